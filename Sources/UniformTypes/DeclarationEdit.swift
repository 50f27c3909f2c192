import TextEscaping

/// A change to a receiver's declarations: what `share types accept|exclude|forget TYPE…` make,
/// and what a refusal suggests to the receiver's owner (`Verdict.remedy`).
///
/// - `accept`: the type is no longer listed in `ExcludedActivityTypes`, and, unless an accepted
///   type already covers it, gets a `CFBundleDocumentTypes` entry of its own (named after its
///   description: "ISO disk images"). A type excluded through a broader excluded type cannot be
///   accepted (exclusion wins): that is an error naming the broader type.
/// - `exclude`: the type is added to `ExcludedActivityTypes` (unless something excluded already
///   covers it) and no longer listed as accepted.
/// - `forget`: every mention of the type is removed, in both lists; what it conforms to decides again.
package struct DeclarationEdit: Sendable, Codable, Equatable {
  package enum Action: String, Sendable, Codable, CaseIterable {
    case accept, exclude, forget
  }

  package var action: Action
  /// Canonical identifiers, in the order given.
  package var types: [TypeIdentifier]
  /// How a person names each type (`.iso`, `public.executable`), in the same order.
  package var arguments: [String]

  package init(action: Action, types: [TypeIdentifier], arguments: [String]) {
    self.action = action
    self.types = types
    self.arguments = arguments
  }
}

/// What an edit did to one type, and where the type stands afterwards.
package struct TypeEditOutcome: Sendable, Codable, Equatable {
  package enum Change: String, Sendable, Codable {
    /// Given a `CFBundleDocumentTypes` entry (`accept`).
    case accepted
    /// Taken out of `ExcludedActivityTypes` (`accept`).
    case unexcluded
    /// Already accepted and not excluded: nothing to do (`accept`).
    case alreadyAccepted = "already-accepted"
    /// Added to `ExcludedActivityTypes` (`exclude`).
    case excluded
    /// Taken out of `CFBundleDocumentTypes` (`exclude`, `forget`).
    case unaccepted
    /// Already excluded, itself or through a broader type: nothing to do (`exclude`).
    case alreadyExcluded = "already-excluded"
    /// Mentioned nowhere: nothing to do (`forget`).
    case notMentioned = "not-mentioned"
  }

  /// What the person typed.
  package var argument: String
  package var type: TypeIdentifier
  /// "ISO disk image", and as lists name kinds, "ISO disk images".
  package var description: String
  package var plural: String
  /// What changed, in order; one of the `already…`/`notMentioned` cases when nothing did.
  package var changes: [Change]
  /// Afterwards: the `CFBundleTypeName` of the entry that accepts it, if any.
  package var acceptedBy: String?
  /// Afterwards: the excluded identifier it conforms to, if any (exclusion wins), and its kinds ("disk images").
  package var excludedBy: TypeIdentifier?
  package var excludedAs: String?

  /// Whether the declarations changed for this type.
  package var changed: Bool { !changes.contains { [.alreadyAccepted, .alreadyExcluded, .notMentioned].contains($0) } }
}

/// Declarations after an edit, validated, with what happened to each type.
package struct EditedDeclarations: Sendable {
  package var declarations: Declarations
  /// The policy the new declarations make (valid: built exactly as a receiver builds it).
  package var policy: TypePolicy
  package var outcomes: [TypeEditOutcome]
  /// Whether anything changed at all.
  package var changed: Bool { outcomes.contains(where: \.changed) }
}

extension TypePolicy {
  /// Applies `edit` to these declarations over `base` (the registry without the declarations'
  /// own types, as `init(registry:declarations:)` takes it) and validates the result exactly as
  /// a receiver would (`init(registry:declarations:)`).
  /// - Throws: `TypeEditError`: `excludedByParent` when accepting a type a broader excluded type
  ///   covers, `invalidDeclarations` when the result would not be valid. Nothing is half applied.
  package func applying(_ edit: DeclarationEdit, base: TypeRegistry) throws(TypeEditError) -> EditedDeclarations {
    var editor = DeclarationsEditor(policy: self, declarations: declarations)
    var changes: [[TypeEditOutcome.Change]] = []
    for type in edit.types {
      switch edit.action {
      case .accept: changes.append(try editor.accept(type))
      case .exclude: changes.append(editor.exclude(type))
      case .forget: changes.append(editor.forget(type))
      }
    }
    let edited = editor.declarations
    let policy: TypePolicy
    do {
      policy = try TypePolicy(registry: base, declarations: edited)
    } catch {
      throw TypeEditError(kind: .invalidDeclarations, message: "the edited declarations would not be valid: \(error)")
    }
    let outcomes = zip(edit.types, zip(edit.arguments, changes)).map { type, pair in
      let excluded = policy.exclusion(of: type)
      return TypeEditOutcome(
        argument: pair.0, type: type, description: registry.describe(type), plural: registry.describePlural(type),
        changes: pair.1, acceptedBy: policy.acceptance(of: type)?.documentType, excludedBy: excluded,
        excludedAs: excluded.map(registry.describePlural))
    }
    return EditedDeclarations(declarations: edited, policy: policy, outcomes: outcomes)
  }
}

/// The edits, one type at a time, on a copy of the declarations. Identifiers in the file are
/// compared canonically (an alias or a `dyn.mime.` spelling of a declared type is that type).
private struct DeclarationsEditor {
  let policy: TypePolicy
  var declarations: Declarations
  var registry: TypeRegistry { policy.registry }

  init(policy: TypePolicy, declarations: Declarations) {
    self.policy = policy
    self.declarations = declarations
  }

  func canonical(_ id: TypeIdentifier) -> TypeIdentifier { registry.canonicalIdentifier(id) ?? id }

  /// The first excluded identifier `type` conforms to.
  func exclusion(of type: TypeIdentifier) -> TypeIdentifier? {
    declarations.excludedTypes.map(canonical).first { registry.conforms(type, to: $0) }
  }

  /// The name of the first entry that accepts `type`.
  func acceptance(of type: TypeIdentifier) -> String? {
    declarations.documentTypes.first { entry in entry.contentTypes.contains { registry.conforms(type, to: canonical($0)) } }?.name
  }

  mutating func accept(_ type: TypeIdentifier) throws(TypeEditError) -> [TypeEditOutcome.Change] {
    var changes: [TypeEditOutcome.Change] = []
    if removeExclusion(of: type) { changes.append(.unexcluded) }
    if let broader = exclusion(of: type) {
      throw TypeEditError(
        kind: .excludedByParent,
        message: "cannot accept \(registry.describePlural(type)) (\(registry.argument(for: type))): they are "
          + "\(registry.describePlural(broader)) (\(broader)), which are excluded, and exclusion wins; "
          + "'share types forget \(registry.argument(for: broader))' would accept every one of them")
    }
    if acceptance(of: type) == nil {
      let name = Self.entryName(registry.describePlural(type))
      if let index = declarations.documentTypes.firstIndex(where: { $0.name == name }) {
        declarations.documentTypes[index].contentTypes.append(type)
      } else {
        declarations.documentTypes.append(DocumentType(name: name, contentTypes: [type]))
      }
      changes.append(.accepted)
    }
    return changes.isEmpty ? [.alreadyAccepted] : changes
  }

  mutating func exclude(_ type: TypeIdentifier) -> [TypeEditOutcome.Change] {
    if exclusion(of: type) != nil { return [.alreadyExcluded] }
    declarations.excludedTypes.append(type)
    return removeAcceptance(of: type) ? [.excluded, .unaccepted] : [.excluded]
  }

  mutating func forget(_ type: TypeIdentifier) -> [TypeEditOutcome.Change] {
    var changes: [TypeEditOutcome.Change] = []
    if removeExclusion(of: type) { changes.append(.unexcluded) }
    if removeAcceptance(of: type) { changes.append(.unaccepted) }
    return changes.isEmpty ? [.notMentioned] : changes
  }

  /// Removes `type` itself from `ExcludedActivityTypes`; whether it was there.
  private mutating func removeExclusion(of type: TypeIdentifier) -> Bool {
    let registry = self.registry
    let before = declarations.excludedTypes.count
    declarations.excludedTypes.removeAll { (registry.canonicalIdentifier($0) ?? $0) == type }
    return declarations.excludedTypes.count != before
  }

  /// Removes `type` itself from every entry's `LSItemContentTypes`, and entries left empty;
  /// whether it was listed.
  private mutating func removeAcceptance(of type: TypeIdentifier) -> Bool {
    let registry = self.registry
    var removed = false
    for index in declarations.documentTypes.indices {
      let before = declarations.documentTypes[index].contentTypes.count
      declarations.documentTypes[index].contentTypes.removeAll { (registry.canonicalIdentifier($0) ?? $0) == type }
      removed = removed || declarations.documentTypes[index].contentTypes.count != before
    }
    declarations.documentTypes.removeAll { $0.contentTypes.isEmpty }
    return removed
  }

  /// "ISO disk images" from "ISO disk images", "Disk images" from "disk images"; a MIME type stays as it is.
  static func entryName(_ plural: String) -> String {
    guard !plural.contains("/"), let first = plural.first else { return plural }
    return first.uppercased() + plural.dropFirst()
  }
}
