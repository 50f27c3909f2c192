/// How an item's name and content were reconciled (see Inbox/TYPES.md, "Agreement").
package enum Reconciliation: Sendable, Equatable {
  /// Name and content agree; `type` is taken, by `match`.
  case agreed(type: TypeIdentifier, match: Verdict.Match)
  /// They disagree harmlessly (a PDF named `.png`, unrecognised bytes named `.mp4`): what the
  /// content is decides, and the name is only a name.
  case contentDecides(type: TypeIdentifier)
  /// The content is of a kind that acts when opened (a program, a script, a desktop entry, an
  /// installer, a macro-enabled document) under a name of a harmless kind: a disguise.
  case disguise
}

extension TypePolicy {
  /// Kinds of content that act when opened. Such content under a name that says otherwise is a
  /// disguise, whatever the declarations accept.
  package static let activeKinds: [TypeIdentifier] = [.installerPackage, .executable, .script, .desktopEntry, .macroEnabled]

  // MARK: - Name stage

  /// The Ask-time verdict, from the name and kind alone (no bytes have been sent).
  ///
  /// Rules: excluded-name, accepted, pending-content (a file whose name gives no type), not-accepted.
  package func judge(name: String, kind: ItemKind) -> Verdict {
    let type = nameType(of: name, kind: kind)
    let match: Verdict.Match? = kind == .file ? nil : .kind
    if let excluded = exclusion(of: type) {
      return Verdict(
        accepted: false, stage: .name, type: type, nameType: type, match: match, rule: .excludedName,
        decidedBy: excluded.rawValue, reason: excludedNameReason(name: name, kind: kind, type: type, excluded: excluded),
        remedy: remedy(forNameType: type))
    }
    if let (_, documentType) = acceptance(of: type) {
      return Verdict(
        accepted: true, stage: .name, type: type, nameType: type, match: match, rule: .accepted,
        decidedBy: documentType, reason: acceptedReason(type, documentType))
    }
    if kind == .file && type == .data {
      return Verdict(
        accepted: true, stage: .name, type: type, nameType: type, rule: .pendingContent,
        reason: "accepted for now: \(subject(name, kind)) has no type by its name; its content will decide")
    }
    return Verdict(
      accepted: false, stage: .name, type: type, nameType: type, match: match, rule: .notAccepted,
      reason: notAcceptedReason(name: name, kind: kind, type: type), remedy: remedy(forNameType: type))
  }

  // MARK: - Content stage

  /// The verdict on an item's first bytes, already classified.
  ///
  /// Rules, first match wins: excluded-content, excluded-name, type-mismatch (a disguise),
  /// not-accepted, accepted. When the name could mean several types (shared-mime-info globs of
  /// equal weight), the one the content agrees with is the name's type.
  package func judge(name: String, content classified: ContentType) -> Verdict {
    let module = fontModule(name: name, content: classified)
    let nameType = settledNameType(of: name, content: module)
    let content = weighed(module, against: nameType)
    let contentType = content.type
    func verdict(
      _ accepted: Bool, _ type: TypeIdentifier, _ match: Verdict.Match?, _ rule: Verdict.Rule, _ decidedBy: String?,
      _ reason: String
    ) -> Verdict {
      let remediable = !accepted && [.excludedContent, .excludedName, .notAccepted].contains(rule)
      return Verdict(
        accepted: accepted, stage: .content, type: type, nameType: nameType, contentType: contentType,
        match: match, rule: rule, decidedBy: decidedBy, reason: reason,
        remedy: remediable ? remedy(forNameType: nameType, content: content) : nil)
    }
    if !content.isEmpty, let excluded = exclusion(of: contentType) {
      let reason = excludedContentReason(name: name, nameType: nameType, content: content, excluded: excluded)
      return verdict(false, contentType, nil, .excludedContent, excluded.rawValue, reason)
    }
    if let excluded = exclusion(of: nameType) {
      let reason = excludedNameReason(name: name, kind: .file, type: nameType, excluded: excluded)
      return verdict(false, nameType, nil, .excludedName, excluded.rawValue, reason)
    }
    let type: TypeIdentifier
    let match: Verdict.Match?
    switch reconcile(name: nameType, content: content) {
    case .disguise:
      return verdict(false, contentType, nil, .typeMismatch, nil, disguiseReason(name: name, nameType: nameType, content: content))
    case .agreed(let agreed, let how):
      (type, match) = (agreed, how)
    case .contentDecides(let decided):
      (type, match) = (decided, nil)
    }
    let namedOtherwise = match == nil ? nameType : nil
    if let excluded = exclusion(of: type) {
      // Only reachable for empty content typed by its name; kept for completeness.
      let reason = excludedNameReason(name: name, kind: .file, type: type, excluded: excluded)
      return verdict(false, type, match, .excludedContent, excluded.rawValue, reason)
    }
    guard let (_, documentType) = acceptance(of: type) else {
      let reason = notAcceptedReason(name: name, kind: .file, type: type, namedOtherwise: namedOtherwise)
      return verdict(false, type, match, .notAccepted, nil, reason)
    }
    // What the name stage rejected stays rejected (a name no accepted type covers cost no bytes
    // at Ask time only because it was refused then).
    if nameType != .data, nameType != type, acceptance(of: nameType) == nil {
      return verdict(false, type, match, .notAccepted, nil, notAcceptedReason(name: name, kind: .file, type: nameType))
    }
    return verdict(true, type, match, .accepted, documentType, acceptedReason(type, documentType, namedOtherwise: namedOtherwise))
  }

  /// The name's type, settled by the content when the name could mean several (`*.key`: a PEM
  /// key or a Keynote presentation; `*.ts`: TypeScript or an MPEG transport stream): the
  /// candidate the content agrees with most closely (`agreementCloseness`), the first of equals,
  /// else the first that is text when the content is and binary when it is not (an OLE2 `.pub`
  /// is a Publisher document, a text `.pub` an OpenSSH key that is not one), else the first. A name that may mean an excluded type means that type, whatever the content
  /// (`nameType(of:kind:)`), unless the content is a meaning only content shows (an icon theme's
  /// `index.theme`).
  func settledNameType(of name: String, content: ContentType) -> TypeIdentifier {
    let candidates = registry.types(forFilename: name)
    guard candidates.count > 1 else { return candidates.first ?? .data }
    if let excluded = excludedCandidate(among: candidates) {
      return candidates.first { Self.meaningsShownByContent.contains($0) && $0 == content.type } ?? excluded
    }
    let agreeing = candidates.compactMap { candidate in
      agreement(name: candidate, content: content).map { (candidate, Self.agreementCloseness.firstIndex(of: $0.1) ?? .max) }
    }
    let text = registry.conforms(content.type, to: .text)
    return agreeing.min { $0.1 < $1.1 }?.0 ?? candidates.first { registry.conforms($0, to: .text) == text } ?? candidates[0]
  }

  /// `content`, or plain text when it is libmagic's guess of a script from the words in text
  /// (`ContentType.isKeywordGuess`: no `#!` line) and `nameType` is a harmless kind of text
  /// (Markdown, TypeScript, plain text; not a script, a desktop entry...): the name's kind then
  /// decides, as it does for libmagic's other guesses of a kind of text (C source in a `.html`).
  /// A name that says nothing (`public.data`) leaves the guess standing, as does a `#!` line.
  func weighed(_ content: ContentType, against nameType: TypeIdentifier) -> ContentType {
    guard content.isKeywordGuess, registry.conforms(nameType, to: .text),
      !Self.activeKinds.contains(where: { registry.conforms(nameType, to: $0) })
    else { return content }
    var taken = content
    taken.type = .plainText
    taken.refinement = "text (libmagic guessed \(registry.describe(content.type)) from its words; no #! line)"
    return taken
  }

  /// How closely name and content agree, closest first: a name that says exactly what the
  /// content is beats one that only refines it, which beats one that is merely text as the
  /// content is (a Qt Linguist `.ts` is XML: Linguist, not TypeScript).
  static let agreementCloseness: [Verdict.Match] = [.same, .contentRefinesName, .nameRefinesContent, .textFamily, .mediaFamily]

  /// How the name's and the content's types are reconciled (Inbox/TYPES.md, "Agreement").
  package func reconcile(name nameType: TypeIdentifier, content: ContentType) -> Reconciliation {
    if let (type, match) = agreement(name: nameType, content: content) { return .agreed(type: type, match: match) }
    if let kind = Self.activeKinds.first(where: { registry.conforms(content.type, to: $0) }),
      !registry.conforms(nameType, to: kind)
    {
      return .disguise
    }
    return .contentDecides(type: content.type)
  }

  /// How the name's and the content's types agree, and the type taken; nil when they do not.
  package func agreement(name nameType: TypeIdentifier, content: ContentType) -> (TypeIdentifier, Verdict.Match)? {
    let contentType = content.type
    if content.isEmpty { return (nameType == .data ? .plainText : nameType, .emptyContent) }
    if nameType == contentType { return (nameType, .same) }
    if registry.conforms(contentType, to: nameType) { return (contentType, .contentRefinesName) }
    if registry.conforms(nameType, to: contentType) {
      if !isRecognized(nameType, below: contentType) { return (nameType, .nameRefinesContent) }
    }
    // libmagic's bare plain text (no script, no desktop entry) is what an ASCII STL or DXF is.
    if contentType == .plainText, registry.hasTextForm(nameType) { return (nameType, .nameRefinesContent) }
    if registry.conforms(nameType, to: .text), registry.conforms(contentType, to: .text) {
      // libmagic's finer text kinds (HTML, C, CSV, a script known by its words) are guesses, so
      // the name's kind stands; a #! line or a real signature (RTF) is firm, so the content's does. A name of a
      // kind that shows in its text (RTF, an OpenSSH key) is contradicted by text that does not.
      let firm =
        (registry.conforms(contentType, to: .script) && !content.isKeywordGuess) || isRecognized(contentType, below: .text)
      if !firm, isRecognized(nameType, below: .text) { return nil }
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

  // MARK: - Bytes

  /// Sniffs `head` (the item's first `ContentSniffer.headLength` bytes, or all of a shorter
  /// item) and judges it. `totalSize` is the item's full size when known.
  ///
  /// Files: `judge(name:content:)`. Folders: the name verdict. Text: must be UTF-8 without NUL
  /// (a last sequence cut by the head's end is allowed when `totalSize` says more follows), and
  /// is refused on its content as a `.txt` file of the same bytes would be.
  /// URLs: that, on one line, with a scheme. A libmagic failure rejects the item
  /// (`content-unreadable`), as does an empty head when `totalSize` says there were bytes, or a
  /// read of `whole` that failed.
  ///
  /// `whole`: all of a complete item longer than its head, for a ZIP's or an OLE2 file's
  /// directory (`ContentClassifier.needsWhole`); without it, a package is judged by its head
  /// alone, and judged again once it is complete.
  package func judge(
    name: String, kind: ItemKind = .file, head: UnsafeRawBufferPointer, totalSize: Int64? = nil,
    sniffer: ContentSniffer, whole: ItemBytes? = nil
  ) -> Verdict {
    let truncated = ContentSniffer.goesOnPastHead(head.count, totalSize: totalSize)
    switch kind {
    case .folder:
      return judge(name: name, kind: .folder)
    case .text, .url:
      return judgeText(name: name, kind: kind, head: head, truncated: truncated, sniffer: sniffer)
    case .file:
      break
    }
    if head.isEmpty, let totalSize, totalSize > 0 {
      let nameType = nameType(of: name, kind: .file)
      return Verdict(
        accepted: false, stage: .content, type: nameType, nameType: nameType, rule: .contentUnreadable,
        reason: unreadableContentReason(name: name, "no bytes came for an item of \(totalSize) bytes"))
    }
    do {
      // libmagic's description is only needed to word content rejections: ask for it then.
      let mime = try sniffer.mimeType(ofHead: head)
      var content = ContentClassifier.classify(
        head: head, truncated: truncated, magic: MagicResult(mimeType: mime, description: ""), registry: registry, whole: whole)
      if let failure = whole?.failure {
        // Not its description: that names a path on this machine, and a reason goes to the sender.
        let nameType = nameType(of: name, kind: .file)
        return Verdict(
          accepted: false, stage: .content, type: nameType, nameType: nameType, rule: .contentUnreadable,
          reason: unreadableContentReason(
            name: name, "it could not be read back (\(failure.function): \(failure.errno.map { "\($0)" } ?? "?"))"))
      }
      var verdict = judge(name: name, content: content)
      if verdict.rule == .excludedContent || verdict.rule == .typeMismatch, content.refinement == nil {
        content.magicDescription = try sniffer.description(ofHead: head)
        verdict = judge(name: name, content: content)
      }
      return judgeLink(verdict, name: name, head: head, truncated: truncated)
    } catch {
      let nameType = nameType(of: name, kind: .file)
      return Verdict(
        accepted: false, stage: .content, type: nameType, nameType: nameType, rule: .contentUnreadable,
        reason: unreadableContentReason(name: name, "\(error)"))
    }
  }

  /// `judge(name:kind:head:totalSize:sniffer:whole:)` for bytes in an array.
  package func judge(
    name: String, kind: ItemKind = .file, head: [UInt8], totalSize: Int64? = nil, sniffer: ContentSniffer,
    whole: ItemBytes? = nil
  ) -> Verdict {
    head.withUnsafeBytes { judge(name: name, kind: kind, head: $0, totalSize: totalSize, sniffer: sniffer, whole: whole) }
  }
}
