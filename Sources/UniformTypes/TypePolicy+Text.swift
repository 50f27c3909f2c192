/// Text and URL items: typed by their kind, checked to be what they claim.
extension TypePolicy {
  func judgeText(name: String, kind: ItemKind, head: UnsafeRawBufferPointer, truncated: Bool) -> Verdict {
    let type: TypeIdentifier = kind == .url ? .url : .utf8PlainText
    func invalid(_ why: String) -> Verdict {
      Verdict(
        accepted: false, stage: .content, type: type, nameType: type, contentType: type, match: .kind, rule: .invalidText,
        reason: invalidTextReason(kind, why))
    }
    guard let text = Self.utf8(head, allowCutEnd: truncated) else { return invalid("is not valid UTF-8") }
    if text.unicodeScalars.contains("\0") { return invalid("contains NUL bytes") }
    if kind == .url {
      let trimmed = text.trimmingBlanks()
      guard !trimmed.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }),
        let colon = trimmed.firstIndex(of: ":"), colon != trimmed.startIndex,
        trimmed[..<colon].unicodeScalars.allSatisfy({
          $0.isASCII && ($0.properties.isAlphabetic || "0123456789+.-".unicodeScalars.contains($0))
        })
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

}

extension UnsafeRawBufferPointer {
  /// The bytes as `UInt8`s (the memory is only read).
  fileprivate func bindMemoryIfNeeded() -> UnsafeBufferPointer<UInt8> {
    assumingMemoryBound(to: UInt8.self)
  }
}
