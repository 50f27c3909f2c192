/// What a receiver accepts, small enough for its Hello: a sender predicts name-stage verdicts
/// from it with `predictVerdict(name:kind:registry:)`.
///
/// Holds identifiers as the receiver wrote them, plus the receiver's own declared types
/// (identifier, parents, extensions) so that custom extensions resolve on the sender too.
/// Coming from the network, it is bounded before use (`bounded()`).
package struct AcceptSummary: Sendable, Codable, Equatable {
  /// Accepted groups: `CFBundleTypeName` and `LSItemContentTypes`.
  package var documentTypes: [DocumentType]
  /// `ExcludedActivityTypes`.
  package var excludedTypes: [TypeIdentifier]
  /// The receiver's exported and imported declarations, reduced to what name prediction needs.
  package var declaredTypes: [DeclaredType]

  /// A declared type as the summary carries it.
  package struct DeclaredType: Sendable, Codable, Equatable {
    package var identifier: TypeIdentifier
    package var conformsTo: [TypeIdentifier]
    package var filenameExtensions: [String]

    package init(identifier: TypeIdentifier, conformsTo: [TypeIdentifier], filenameExtensions: [String]) {
      self.identifier = identifier
      self.conformsTo = conformsTo
      self.filenameExtensions = filenameExtensions
    }
  }

  package init(documentTypes: [DocumentType], excludedTypes: [TypeIdentifier], declaredTypes: [DeclaredType]) {
    self.documentTypes = documentTypes
    self.excludedTypes = excludedTypes
    self.declaredTypes = declaredTypes
  }

  /// Every accepted identifier, without repeats.
  package var acceptedTypes: [TypeIdentifier] {
    var seen = Set<TypeIdentifier>()
    return documentTypes.flatMap(\.contentTypes).filter { seen.insert($0).inserted }
  }

  /// Limits for a summary read from the network.
  package enum Limits {
    package static let documentTypes = 64
    package static let identifiersPerList = 128
    package static let declaredTypes = 128
    package static let extensionsPerType = 32
    package static let nameLength = 128
  }

  /// This summary cut to `Limits`, with over-long names shortened and malformed identifiers dropped.
  package func bounded() -> AcceptSummary {
    func ids(_ list: [TypeIdentifier]) -> [TypeIdentifier] {
      Array(list.prefix(Limits.identifiersPerList).filter { $0.isReverseDNS || $0.dynamicMIMEType != nil })
    }
    return AcceptSummary(
      documentTypes: documentTypes.prefix(Limits.documentTypes).map {
        DocumentType(name: String($0.name.prefix(Limits.nameLength)), contentTypes: ids($0.contentTypes))
      },
      excludedTypes: ids(excludedTypes),
      declaredTypes: declaredTypes.prefix(Limits.declaredTypes).map {
        DeclaredType(
          identifier: $0.identifier, conformsTo: Array(ids($0.conformsTo).prefix(16)),
          filenameExtensions: Array($0.filenameExtensions.prefix(Limits.extensionsPerType).map { $0.lowercased() }))
      })
  }

  /// The name-stage verdict the receiver would give, computed on the sender's `registry`.
  ///
  /// Exact when both sides run the same share and shared-mime-info; otherwise a prediction:
  /// the receiver's verdict is the one that counts, and content is judged on arrival.
  /// Builds a policy per call; keep a `TypePolicy(registry:summary:)` to predict many names.
  package func predictVerdict(name: String, kind: ItemKind, registry: TypeRegistry) -> Verdict {
    TypePolicy(registry: registry, summary: self).judge(name: name, kind: kind)
  }
}

extension TypePolicy {
  /// The summary a receiver sends in its Hello.
  package var summary: AcceptSummary {
    AcceptSummary(
      documentTypes: declarations.documentTypes,
      excludedTypes: declarations.excludedTypes,
      declaredTypes: (declarations.exportedTypes + declarations.importedTypes)
        .filter { registry.declaration(for: $0.identifier)?.origin.kind == .declarations }
        .map {
          AcceptSummary.DeclaredType(
            identifier: $0.identifier, conformsTo: $0.conformsTo, filenameExtensions: $0.filenameExtensions)
        })
  }
}
