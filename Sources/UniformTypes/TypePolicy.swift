import TextEscaping
/// Decides what a receiver accepts: declarations applied to a registry.
///
/// Pure and immutable: every `judge` is a function of its arguments, safe from any thread.
/// The exact rules, in order, are in Inbox/TYPES.md; in short, an item is accepted only when
/// neither its content's type nor its name's type conforms to an excluded type, name and
/// content agree (`Verdict.Match`), and the agreed type conforms to an accepted type.
public struct TypePolicy: Sendable {
  /// The registry with the declarations' own types added.
  public let registry: TypeRegistry
  public let declarations: Declarations
  /// Things in the declarations that are legal but probably not meant (an accepted type that is
  /// also excluded, an imported type that is built in).
  public let warnings: [String]
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
  public init(registry: TypeRegistry, declarations: Declarations) throws(DeclarationsError) {
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
      throw Self.declarationsError(error, declaration: additions[error.index], path: paths[error.index], source: declarations.source, registry: registry)
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
  public init(registry: TypeRegistry, summary: AcceptSummary) {
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
  public func acceptance(of type: TypeIdentifier) -> (acceptedType: TypeIdentifier, documentType: String)? {
    standing(of: type).acceptedBy
  }

  /// The first excluded identifier `type` conforms to.
  public func exclusion(of type: TypeIdentifier) -> TypeIdentifier? {
    standing(of: type).excludedBy
  }

  /// The accepted identifiers, canonical, in file order, without repeats.
  public var accepted: [TypeIdentifier] {
    var seen = Set<TypeIdentifier>()
    return acceptedTypes.map(\.0).filter { seen.insert($0).inserted }
  }

  /// The excluded identifiers, canonical.
  public var excluded: [TypeIdentifier] { excludedTypes }

  /// The type a name says for an item of `kind`: folders, URLs and text by their kind, files by name.
  public func nameType(of name: String, kind: ItemKind) -> TypeIdentifier {
    switch kind {
    case .file: registry.type(forFilename: name)
    case .folder: .folder
    case .url: .url
    case .text: .utf8PlainText
    }
  }

  // MARK: - Name stage

  /// The Ask-time verdict, from the name and kind alone (no bytes have been sent).
  ///
  /// Rules: excluded-name, accepted, pending-content (a file whose name gives no type), not-accepted.
  public func judge(name: String, kind: ItemKind) -> Verdict {
    let type = nameType(of: name, kind: kind)
    let said = nameClause(name: name, kind: kind, type: type)
    if let excluded = exclusion(of: type) {
      return Verdict(
        accepted: false, stage: .name, type: type, nameType: type, match: kind == .file ? nil : .kind,
        rule: .excludedName, decidedBy: excluded.rawValue,
        reason: "rejected: \(said): \(registry.describe(excluded)) excluded by declarations\(via(type, excluded))")
    }
    if let (acceptedType, documentType) = acceptance(of: type) {
      return Verdict(
        accepted: true, stage: .name, type: type, nameType: type, match: kind == .file ? nil : .kind,
        rule: .accepted, decidedBy: documentType,
        reason: acceptedReason(type, acceptedType, documentType))
    }
    if kind == .file && type == .data {
      return Verdict(
        accepted: true, stage: .name, type: type, nameType: type, rule: .pendingContent,
        reason: "accepted for now: \(said), which gives no type; the content will decide")
    }
    return Verdict(
      accepted: false, stage: .name, type: type, nameType: type, match: kind == .file ? nil : .kind,
      rule: .notAccepted, reason: notAcceptedReason(type, prefix: said))
  }

  // MARK: - Content stage

  /// The verdict on an item's first bytes, already classified.
  ///
  /// Rules, first match wins: excluded-content, excluded-name, type-mismatch, accepted,
  /// not-accepted. URL and text items are checked for UTF-8 text instead (see
  /// `judge(name:kind:head:totalSize:sniffer:)`); folders keep their name verdict.
  public func judge(name: String, content: ContentType) -> Verdict {
    let nameType = registry.type(forFilename: name)
    let contentType = content.type
    func verdict(
      _ accepted: Bool, _ type: TypeIdentifier, _ match: Verdict.Match?, _ rule: Verdict.Rule, _ decidedBy: String?,
      _ reason: String
    ) -> Verdict {
      Verdict(
        accepted: accepted, stage: .content, type: type, nameType: nameType, contentType: contentType,
        match: match, rule: rule, decidedBy: decidedBy, reason: reason)
    }
    if !content.isEmpty, let excluded = exclusion(of: contentType) {
      return verdict(
        false, contentType, nil, .excludedContent, excluded.rawValue,
        "rejected: \(registry.describe(excluded)) content (\(content.label)) excluded by declarations\(via(contentType, excluded))")
    }
    if let excluded = exclusion(of: nameType) {
      return verdict(
        false, nameType, nil, .excludedName, excluded.rawValue,
        "rejected: \(nameClause(name: name, kind: .file, type: nameType)): \(registry.describe(excluded)) excluded by declarations\(via(nameType, excluded))"
      )
    }
    guard let (type, match) = agreement(name: nameType, content: content) else {
      return verdict(
        false, contentType, nil, .typeMismatch, nil,
        "rejected: name says \(nameType) but content is \(contentType) (\(content.label))")
    }
    if let excluded = exclusion(of: type) {
      // Only reachable for empty content typed as plain text; kept for completeness.
      return verdict(
        false, type, match, .excludedContent, excluded.rawValue,
        "rejected: \(type) excluded by declarations\(via(type, excluded))")
    }
    guard let (acceptedType, documentType) = acceptance(of: type) else {
      return verdict(false, type, match, .notAccepted, nil, notAcceptedReason(type, prefix: "\(type)"))
    }
    // What the name stage rejected stays rejected (a media-family match must not let in a name
    // no accepted type covers).
    if nameType != .data, nameType != type, acceptance(of: nameType) == nil {
      return verdict(
        false, type, match, .notAccepted, nil,
        notAcceptedReason(nameType, prefix: nameClause(name: name, kind: .file, type: nameType)))
    }
    return verdict(true, type, match, .accepted, documentType, acceptedReason(type, acceptedType, documentType))
  }

  /// Sniffs `head` (the item's first `ContentSniffer.headLength` bytes, or all of a shorter
  /// item) and judges it. `totalSize` is the item's full size when known.
  ///
  /// Files: `judge(name:content:)`. Folders: the name verdict. Text: must be UTF-8 without NUL
  /// (a last sequence cut by the head's end is allowed when `totalSize` says more follows).
  /// URLs: that, on one line, with a scheme. A libmagic failure rejects the item
  /// (`content-unreadable`), as does an empty head when `totalSize` says there were bytes.
  public func judge(
    name: String, kind: ItemKind = .file, head: UnsafeRawBufferPointer, totalSize: Int64? = nil,
    sniffer: ContentSniffer
  ) -> Verdict {
    switch kind {
    case .folder:
      return judge(name: name, kind: .folder)
    case .text, .url:
      return judgeText(name: name, kind: kind, head: head, truncated: (totalSize ?? Int64(head.count)) > Int64(head.count))
    case .file:
      break
    }
    if head.isEmpty, let totalSize, totalSize > 0 {
      let nameType = registry.type(forFilename: name)
      return Verdict(
        accepted: false, stage: .content, type: nameType, nameType: nameType, rule: .contentUnreadable,
        reason: "rejected: no content bytes were examined for an item of \(totalSize) bytes")
    }
    do {
      // libmagic's description is only needed to word content rejections: ask for it then.
      let mime = try sniffer.mimeType(ofHead: head)
      var content = ContentClassifier.classify(
        head: head, magic: MagicResult(mimeType: mime, description: ""), registry: registry)
      var verdict = judge(name: name, content: content)
      if verdict.rule == .excludedContent || verdict.rule == .typeMismatch, content.refinement == nil {
        content.magicDescription = try sniffer.description(ofHead: head)
        verdict = judge(name: name, content: content)
      }
      return verdict
    } catch {
      let nameType = registry.type(forFilename: name)
      return Verdict(
        accepted: false, stage: .content, type: nameType, nameType: nameType, rule: .contentUnreadable,
        reason: "rejected: \(error)")
    }
  }

  /// `judge(name:kind:head:totalSize:sniffer:)` for bytes in an array.
  public func judge(
    name: String, kind: ItemKind = .file, head: [UInt8], totalSize: Int64? = nil, sniffer: ContentSniffer
  ) -> Verdict {
    head.withUnsafeBytes { judge(name: name, kind: kind, head: $0, totalSize: totalSize, sniffer: sniffer) }
  }

  /// How the name's and the content's types agree, and the type taken; nil when they do not.
  public func agreement(name nameType: TypeIdentifier, content: ContentType) -> (TypeIdentifier, Verdict.Match)? {
    let contentType = content.type
    if content.isEmpty { return (nameType == .data ? .plainText : nameType, .emptyContent) }
    if nameType == contentType { return (nameType, .same) }
    if registry.conforms(contentType, to: nameType) { return (contentType, .contentRefinesName) }
    if registry.conforms(nameType, to: contentType) {
      if !isRecognized(nameType, below: contentType) { return (nameType, .nameRefinesContent) }
    }
    if registry.conforms(nameType, to: .text), registry.conforms(contentType, to: .text) {
      // libmagic's finer text kinds (HTML, C, CSV...) are guesses, so the name's kind stands;
      // a #! line or a real signature (RTF) is firm, so the content's kind does.
      let firm = registry.conforms(contentType, to: .script) || isRecognized(contentType, below: .text)
      return (firm ? contentType : nameType, .textFamily)
    }
    for family in [TypeIdentifier.image, .audiovisualContent]
    where registry.conforms(nameType, to: family) && registry.conforms(contentType, to: family) {
      return (contentType, .mediaFamily)
    }
    return nil
  }

  /// Whether `type`, or a type between it and `limit` (exclusive), is recognised by content.
  private func isRecognized(_ type: TypeIdentifier, below limit: TypeIdentifier) -> Bool {
    ([type] + registry.ancestors(of: type)).contains { id in
      id != limit && registry.isRecognizedByContent(id) && registry.conforms(id, to: limit)
    }
  }

  private func judgeText(name: String, kind: ItemKind, head: UnsafeRawBufferPointer, truncated: Bool) -> Verdict {
    let type: TypeIdentifier = kind == .url ? .url : .utf8PlainText
    let what = kind == .url ? "URL" : "text snippet"
    func invalid(_ why: String) -> Verdict {
      Verdict(
        accepted: false, stage: .content, type: type, nameType: type, contentType: type, match: .kind, rule: .invalidText,
        reason: "rejected: \(what) \(why)")
    }
    guard let text = Self.utf8(head, allowCutEnd: truncated) else { return invalid("is not valid UTF-8") }
    if text.unicodeScalars.contains("\0") { return invalid("contains NUL bytes") }
    if kind == .url {
      let trimmed = text.trimmingBlanks()
      guard !trimmed.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }),
        let colon = trimmed.firstIndex(of: ":"), colon != trimmed.startIndex,
        trimmed[..<colon].unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789+.-".unicodeScalars.contains($0)) })
      else { return invalid("is not a single URL with a scheme") }
    }
    var verdict = judge(name: name, kind: kind)
    verdict.stage = .content
    verdict.contentType = type
    return verdict
  }

  /// The UTF-8 text in `bytes`, or nil; with `allowCutEnd`, up to three trailing bytes of an
  /// incomplete sequence are ignored.
  static func utf8(_ bytes: UnsafeRawBufferPointer, allowCutEnd: Bool) -> String? {
    let maximumCut = allowCutEnd ? min(3, bytes.count) : 0
    for cut in 0...maximumCut {
      let slice = UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - cut)])
      if let text = String(validating: slice.bindMemoryIfNeeded(), as: UTF8.self) { return text }
    }
    return nil
  }

  // MARK: - Reasons

  private func nameClause(name: String, kind: ItemKind, type: TypeIdentifier) -> String {
    switch kind {
    case .folder: return "a folder is \(type)"
    case .url: return "a URL is \(type)"
    case .text: return "a text snippet is \(type)"
    case .file:
      if let ext = registry.filenameExtension(of: name) {
        return "name says \(type) (extension \(Escaping.quoted(ext)))"
      }
      return "name \(Escaping.quoted(TypeRegistry.classifiableBaseName(name))) says \(type)"
    }
  }

  private func via(_ type: TypeIdentifier, _ excluded: TypeIdentifier) -> String {
    type == excluded ? " (\(excluded))" : " (\(type) conforms to \(excluded))"
  }

  private func acceptedReason(_ type: TypeIdentifier, _ acceptedType: TypeIdentifier, _ documentType: String) -> String {
    let by = "accepted by \(Escaping.quoted(documentType))"
    if type == acceptedType { return "accepted: \(type) (\(by))" }
    return "accepted: \(type) conforms to \(acceptedType) (\(by))"
  }

  private func notAcceptedReason(_ type: TypeIdentifier, prefix: String) -> String {
    let list = accepted
    let shown = list.prefix(6).map(\.rawValue).joined(separator: ", ") + (list.count > 6 ? ", …" : "")
    let description = registry.describe(type)
    let what = prefix == type.rawValue && description != type.rawValue ? "\(prefix) (\(description))" : prefix
    return "rejected: \(what), which no accepted type covers"
      + (list.isEmpty ? " (the declarations accept nothing)" : " (accepted: \(shown))")
  }
}

extension UnsafeRawBufferPointer {
  /// The bytes as `UInt8`s (the memory is only read).
  fileprivate func bindMemoryIfNeeded() -> UnsafeBufferPointer<UInt8> {
    assumingMemoryBound(to: UInt8.self)
  }
}
