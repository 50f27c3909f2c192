/// Text and URL items: typed by their kind, checked to be what they claim.
extension TypePolicy {
  /// A text snippet's bytes must be UTF-8 without NUL, and are then judged as a `.txt` file of
  /// the same bytes would be (`textContentRefusal`); a URL's must be what `URLItemRule` takes.
  func judgeText(
    name: String, kind: ItemKind, head: UnsafeRawBufferPointer, truncated: Bool, sniffer: ContentSniffer
  ) -> Verdict {
    let type: TypeIdentifier = kind == .url ? .url : .utf8PlainText
    func invalid(_ why: String) -> Verdict {
      Verdict(
        accepted: false, stage: .content, type: type, nameType: type, contentType: type, match: .kind, rule: .invalidText,
        reason: invalidTextReason(kind, why))
    }
    guard let text = Self.utf8(head, allowCutEnd: truncated) else { return invalid("is not valid UTF-8") }
    if text.unicodeScalars.contains("\0") { return invalid("contains NUL bytes") }
    if kind == .url {
      if truncated { return invalid("is too long for a URL") }
      if let problem = URLItemRule.problem(with: text) { return invalid(problem) }
    }
    var verdict = judge(name: name, kind: kind)
    verdict.stage = .content
    verdict.contentType = type
    guard kind == .text, verdict.accepted, !head.isEmpty else { return verdict }
    return textContentRefusal(name: name, head: head, truncated: truncated, sniffer: sniffer) ?? verdict
  }

  /// The refusal a `.txt` file holding a snippet's text would get for what that text is: a kind
  /// the declarations exclude (a `#!` script, a desktop entry, a Flatpak reference: rule
  /// `excluded-content`), or one that acts when opened where text was offered (`type-mismatch`).
  /// Nil when the file would not be refused on its content; a libmagic failure refuses the
  /// snippet as it does a file (`content-unreadable`). Sent as text or as a file, the same bytes
  /// get the same answer, with the same reason.
  private func textContentRefusal(
    name: String, head: UnsafeRawBufferPointer, truncated: Bool, sniffer: ContentSniffer
  ) -> Verdict? {
    // What a `.txt` name says: the snippet is stored as one.
    let named: TypeIdentifier = .plainText
    do {
      let mime = try sniffer.mimeType(ofHead: head)
      var content = weighed(
        ContentClassifier.classify(
          head: head, truncated: truncated, magic: MagicResult(mimeType: mime, description: ""), registry: registry),
        against: named)
      let excluded = exclusion(of: content.type)
      let disguise = excluded == nil && reconcile(name: named, content: content) == .disguise
      guard excluded != nil || disguise else { return nil }
      if content.refinement == nil { content.magicDescription = try sniffer.description(ofHead: head) }
      guard let excluded else {
        return Verdict(
          accepted: false, stage: .content, type: content.type, nameType: .utf8PlainText, contentType: content.type,
          rule: .typeMismatch, reason: disguiseReason(name: name, kind: .text, nameType: named, content: content))
      }
      return Verdict(
        accepted: false, stage: .content, type: content.type, nameType: .utf8PlainText, contentType: content.type,
        rule: .excludedContent, decidedBy: excluded.rawValue,
        reason: excludedContentReason(name: name, kind: .text, nameType: named, content: content, excluded: excluded),
        remedy: remedy(forNameType: named, content: content))
    } catch {
      return Verdict(
        accepted: false, stage: .content, type: .utf8PlainText, nameType: .utf8PlainText, rule: .contentUnreadable,
        reason: unreadableContentReason(name: name, kind: .text, "\(error)"))
    }
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

}

extension UnsafeRawBufferPointer {
  /// The bytes as `UInt8`s (the memory is only read).
  fileprivate func bindMemoryIfNeeded() -> UnsafeBufferPointer<UInt8> {
    assumingMemoryBound(to: UInt8.self)
  }
}
