extension ContentSniffer {
  /// A head of one or two printable ASCII characters: text. libmagic calls anything that short
  /// "very short file (no magic)", which would make a one-letter `.txt` data.
  static func isTinyText(_ head: UnsafeRawBufferPointer) -> Bool {
    (1...2).contains(head.count) && head.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
  }

  /// Plain text that needs no libmagic at all: valid UTF-8 (a sequence cut by the end of the
  /// head allowed), no NUL and no control character but tab, newline, carriage return and form
  /// feed, starting (after blanks) with a letter or a digit. Exactly what libmagic's built-in
  /// checks would call text, decided in microseconds.
  static func isPlainUTF8Text(_ head: UnsafeRawBufferPointer) -> Bool {
    guard head.count >= 3, startsWithLetterOrDigit(head) else { return false }
    var index = 0
    let count = head.count
    while index < count {
      let byte = head[index]
      if byte < 0x80 {
        if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D && byte != 0x0C { return false }
        if byte == 0x7F { return false }
        index += 1
        continue
      }
      let length: Int
      switch byte {
      case 0xC2...0xDF: length = 2
      case 0xE0...0xEF: length = 3
      case 0xF0...0xF4: length = 4
      default: return false
      }
      if index + length > count { return true }  // cut by the end of the head
      for offset in 1..<length where head[index + offset] & 0xC0 != 0x80 { return false }
      // No C1 controls (U+0080–U+009F, encoded C2 80–C2 9F).
      if byte == 0xC2 && head[index + 1] < 0xA0 { return false }
      index += length
    }
    return true
  }

  /// Whether the first byte of `head` that is not a blank (space, tab, line break) is an ASCII
  /// letter or digit, as plain text starts: every text format with a signature (`%PDF-`, `%!PS`,
  /// `{\rtf`, `<?xml`, `<svg`, `<!DOCTYPE`, `#!`, `[Desktop Entry]`, a byte-order mark) starts
  /// otherwise, so those still get the full database.
  static func startsWithLetterOrDigit(_ head: UnsafeRawBufferPointer) -> Bool {
    guard let first = head.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return false }
    return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first)
      || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
  }
}
