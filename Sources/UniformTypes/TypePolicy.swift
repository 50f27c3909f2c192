import TextEscaping

/// Decides what a receiver accepts: declarations applied to a registry.
///
/// Pure and immutable: every `judge` is a function of its arguments, safe from any thread.
/// The exact rules, in order, are in Inbox/TYPES.md; in short, an item is accepted only when
/// neither its content's type nor its name's type conforms to an excluded type, name and
/// content agree (`Verdict.Match`), and the agreed type conforms to an accepted type.
package struct TypePolicy: Sendable {
  /// The registry with the declarations' own types added.
  package let registry: TypeRegistry
  package let declarations: Declarations
  /// Things in the declarations that are legal but probably not meant (an accepted type that is
  /// also excluded, an imported type that is built in).
  package let warnings: [String]
  /// The receiver's name, which refusals start with ("lab-b does not accept disk images
  /// (big.iso)"); nil for a local check ("rejected: does not accept …").
  package var receiverName: String?
  /// (accepted identifier, document type name), canonical, in file order.
  private let acceptedTypes: [(TypeIdentifier, String)]
  private let excludedTypes: [TypeIdentifier]
  /// Acceptance and exclusion of every declared type, computed once so a judgement costs
  /// dictionary lookups; dynamic types are computed on demand.
  private let standings: [TypeIdentifier: Standing]

  private struct Standing: Sendable {
    var excludedBy: TypeIdentifier?
    var acceptedBy: (TypeIdentifier, String)?
  }

  private static func standing(
    of type: TypeIdentifier, registry: TypeRegistry, accepted: [(TypeIdentifier, String)], excluded: [TypeIdentifier]
  ) -> Standing {
    var chain = Set(registry.ancestors(of: type))
    chain.insert(type)
    return Standing(
      excludedBy: excluded.first { chain.contains($0) },
      acceptedBy: accepted.first { chain.contains($0.0) })
  }

  private static func standings(
    registry: TypeRegistry, accepted: [(TypeIdentifier, String)], excluded: [TypeIdentifier]
  ) -> [TypeIdentifier: Standing] {
    var result: [TypeIdentifier: Standing] = [:]
    result.reserveCapacity(registry.declaredIdentifiers.count)
    for id in registry.declaredIdentifiers {
      result[id] = standing(of: id, registry: registry, accepted: accepted, excluded: excluded)
    }
    return result
  }

  private func standing(of type: TypeIdentifier) -> Standing {
    standings[type] ?? Self.standing(of: type, registry: registry, accepted: acceptedTypes, excluded: excludedTypes)
  }

  /// Validates `declarations` against `registry` and builds the policy.
  ///
  /// Checks that declared types are new (exported) or skips them when already known (imported,
  /// as iOS does), that every `UTTypeConformsTo`, `LSItemContentTypes` and
  /// `ExcludedActivityTypes` identifier is known, and that conformance has no cycle.
  /// - Throws: `DeclarationsError` naming the key path.
  package init(registry: TypeRegistry, declarations: Declarations) throws(DeclarationsError) {
    var warnings: [String] = []
    var additions: [TypeDeclaration] = []
    var paths: [String] = []
    for (index, declaration) in declarations.exportedTypes.enumerated() {
      additions.append(declaration)
      paths.append("UTExportedTypeDeclarations[\(index)]")
    }
    for (index, declaration) in declarations.importedTypes.enumerated() {
      if let existing = registry.declaration(for: declaration.identifier), existing.origin.kind == .builtin {
        warnings.append(
          "UTImportedTypeDeclarations[\(index)]: \(declaration.identifier) is built in; the built-in declaration is used")
        continue
      }
      additions.append(declaration)
      paths.append("UTImportedTypeDeclarations[\(index)]")
    }
    let effective: TypeRegistry
    do {
      effective = try registry.adding(additions)
    } catch {
      throw Self.declarationsError(
        error, declaration: additions[error.index], path: paths[error.index], source: declarations.source, registry: registry)
    }
    func resolve(_ id: TypeIdentifier, at path: String, role: String) throws(DeclarationsError) -> TypeIdentifier {
      if let canonical = effective.canonicalIdentifier(id) { return canonical }
      var message = "unknown type identifier \(Escaping.quoted(id.rawValue))"
      if let suggestion = Suggestions.closest(to: id.rawValue, among: effective.declaredIdentifiers.map(\.rawValue)) {
        message += " (did you mean \(suggestion)?)"
      }
      message += "; \(role) must name a built-in type, a type declared in this file, or dyn.mime.<type>/<subtype>"
      throw DeclarationsError(kind: .unknownType, source: declarations.source, keyPath: path, message: message)
    }

    var accepted: [(TypeIdentifier, String)] = []
    for (index, documentType) in declarations.documentTypes.enumerated() {
      for (position, id) in documentType.contentTypes.enumerated() {
        let canonical = try resolve(
          id, at: "CFBundleDocumentTypes[\(index)].LSItemContentTypes[\(position)]", role: "LSItemContentTypes")
        accepted.append((canonical, documentType.name))
      }
    }
    var excluded: [TypeIdentifier] = []
    for (position, id) in declarations.excludedTypes.enumerated() {
      let canonical = try resolve(id, at: "\(Declarations.excludedKey)[\(position)]", role: Declarations.excludedKey)
      if !excluded.contains(canonical) { excluded.append(canonical) }
    }
    for (id, name) in accepted {
      if let blocker = excluded.first(where: { effective.conforms(id, to: $0) }) {
        warnings.append(
          "\(Escaping.quoted(name)) accepts \(id), which conforms to excluded \(blocker): it will never be accepted")
      }
    }
    self.registry = effective
    self.declarations = declarations
    self.warnings = warnings
    self.acceptedTypes = accepted
    self.excludedTypes = excluded
    self.standings = Self.standings(registry: effective, accepted: accepted, excluded: excluded)
  }

  /// A policy rebuilt from a receiver's `AcceptSummary` on the sender's registry, to predict
  /// name-stage verdicts. Never fails: the summary comes from the network, so it is
  /// bounded (`AcceptSummary.bounded()`), and declarations that do not fit are dropped.
  package init(registry: TypeRegistry, summary: AcceptSummary) {
    let summary = summary.bounded()
    var additions: [TypeDeclaration] = summary.declaredTypes.compactMap { declared in
      guard declared.identifier.isReverseDNS, registry.declaration(for: declared.identifier) == nil else { return nil }
      return TypeDeclaration(
        identifier: declared.identifier, description: declared.identifier.rawValue,
        conformsTo: declared.conformsTo.isEmpty ? [.data] : declared.conformsTo,
        filenameExtensions: declared.filenameExtensions.filter(TypeRegistry.isValidExtension),
        origin: TypeOrigin(kind: .declarations, source: "receiver's summary"))
    }
    // Unknown parents (a type the receiver knows and this registry does not) fall back to public.data.
    let newIDs = Set(additions.map(\.identifier))
    for index in additions.indices {
      additions[index].conformsTo = additions[index].conformsTo.filter { newIDs.contains($0) || registry.isKnown($0) }
      if additions[index].conformsTo.isEmpty { additions[index].conformsTo = [.data] }
    }
    var effective = registry
    for _ in 0...additions.count {
      do {
        effective = try registry.adding(additions)
        break
      } catch {
        additions.remove(at: error.index)
      }
    }
    self.registry = effective
    self.declarations = Declarations(
      documentTypes: summary.documentTypes, excludedTypes: summary.excludedTypes, source: "receiver's summary")
    self.warnings = []
    self.acceptedTypes = summary.documentTypes.flatMap { documentType in
      documentType.contentTypes.map { (effective.canonicalIdentifier($0) ?? $0, documentType.name) }
    }
    self.excludedTypes = summary.excludedTypes.map { effective.canonicalIdentifier($0) ?? $0 }
    self.standings = Self.standings(registry: effective, accepted: acceptedTypes, excluded: excludedTypes)
  }

  private static func declarationsError(
    _ error: TypeRegistryError, declaration: TypeDeclaration, path: String, source: String, registry: TypeRegistry
  ) -> DeclarationsError {
    let kind: DeclarationsError.Kind
    var keyPath = path
    var message = error.description
    switch error.problem {
    case .invalidIdentifier:
      kind = .invalidIdentifier
      keyPath += ".UTTypeIdentifier"
    case .duplicate, .alreadyDeclared:
      kind = .conflict
      keyPath += ".UTTypeIdentifier"
    case .noParent:
      kind = .missingKey
      keyPath += ".UTTypeConformsTo"
    case .unknownParent(let parent):
      kind = .unknownType
      keyPath += ".UTTypeConformsTo"
      if declaration.conformsTo.count > 1, let position = declaration.conformsTo.firstIndex(of: parent) {
        keyPath += "[\(position)]"
      }
      message = "\(declaration.identifier) conforms to undeclared type \(Escaping.quoted(parent.rawValue))"
      if let suggestion = Suggestions.closest(to: parent.rawValue, among: registry.declaredIdentifiers.map(\.rawValue)) {
        message += " (did you mean \(suggestion)?)"
      }
    case .cycle:
      kind = .cycle
      keyPath += ".UTTypeConformsTo"
    case .invalidExtension:
      kind = .invalidValue
      keyPath += ".UTTypeTagSpecification.public.filename-extension"
    case .extensionClaimedTwice:
      kind = .conflict
      keyPath += ".UTTypeTagSpecification.public.filename-extension"
    case .invalidMIMEType:
      kind = .invalidValue
      keyPath += ".UTTypeTagSpecification.public.mime-type"
    case .mimeTypeClaimedTwice:
      kind = .conflict
      keyPath += ".UTTypeTagSpecification.public.mime-type"
    }
    return DeclarationsError(kind: kind, source: source, keyPath: keyPath, message: message)
  }

  // MARK: - Lookups

  /// The first accepted identifier `type` conforms to, with its document type's name.
  package func acceptance(of type: TypeIdentifier) -> (acceptedType: TypeIdentifier, documentType: String)? {
    standing(of: type).acceptedBy
  }

  /// The first excluded identifier `type` conforms to.
  package func exclusion(of type: TypeIdentifier) -> TypeIdentifier? {
    standing(of: type).excludedBy
  }

  /// The accepted identifiers, canonical, in file order, without repeats.
  package var accepted: [TypeIdentifier] {
    var seen = Set<TypeIdentifier>()
    return acceptedTypes.map(\.0).filter { seen.insert($0).inserted }
  }

  /// The excluded identifiers, canonical.
  package var excluded: [TypeIdentifier] { excludedTypes }

  /// The type a name says for an item of `kind`: folders (but a `folderForms` name), URLs and
  /// text by their kind, files by name. A file name that may mean several types means the first excluded one if any (`*.ws`:
  /// a Windows script, and a WonderSwan game; Windows runs it), else the first; but a meaning
  /// only content shows (`meaningsShownByContent`) is left for the content to confirm.
  package func nameType(of name: String, kind: ItemKind) -> TypeIdentifier {
    switch kind {
    case .file:
      let candidates = registry.types(forFilename: name)
      guard let excluded = excludedCandidate(among: candidates) else { return candidates[0] }
      return candidates.first(where: Self.meaningsShownByContent.contains) ?? excluded
    case .folder: return registry.types(forFilename: name).first(where: Self.folderForms.contains) ?? .folder
    case .url: return .url
    case .text: return .utf8PlainText
    }
  }

  /// Types a folder is by its name, as a file of the name would be: macOS takes a folder named
  /// `*.pkg` or `*.mpkg` for a bundle installer package (`Contents/Archive.pax.gz` and its
  /// Info.plist), which Installer opens on a double click and which needs no script or program
  /// inside to install its payload (review 37). Any other folder is `public.folder`.
  static let folderForms: [TypeIdentifier] = ["com.apple.installer-package-archive"]

  /// Meanings of a name that outweigh an excluded meaning of the same name when, and only when,
  /// the content is of that type by share's own check: `*.theme` is a Windows theme (excluded:
  /// ThemeBleed) and an icon, cursor or sound theme's `index.theme` (review 20: icon themes lost
  /// their index). The name stage lets such a name through; the content stage takes the meaning
  /// only for content that shows it, and otherwise the excluded one.
  static let meaningsShownByContent: [TypeIdentifier] = [.themeDescription]

  /// The first of a name's possible types that is excluded: what the name is refused as.
  func excludedCandidate(among candidates: [TypeIdentifier]) -> TypeIdentifier? {
    candidates.count > 1 ? candidates.first { exclusion(of: $0) != nil } : nil
  }
}
