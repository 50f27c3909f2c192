/// Where an Office document written as text may hide that it is one (review 35): its head is
/// all prolog (an XML comment of 70 KB before the root element) or all header lines (a MIME
/// message with one long folded header first), or it is UTF-16 without a byte-order mark (XML
/// 1.0 Appendix F: `<?` as `3C 00 3F 00` is UTF-16LE to every parser). Such an item is read
/// whole as the forms are (`wholeTextDocumentMacros`); and a head that shows a form is looked
/// into whatever libmagic called it (seven bytes at 32 KiB made it "ISO 9660"; a binary MIME
/// part, "data").
extension ContentClassifier {
  /// Whether `head` is UTF-16 text as an XML parser tells it: a byte-order mark, or `<` and a
  /// NUL byte, in either order.
  static func isWideText(_ head: UnsafeRawBufferPointer) -> Bool {
    startsWith(head, [0xFF, 0xFE]) || startsWith(head, [0xFE, 0xFF]) || startsWith(head, [0x3C, 0x00])
      || startsWith(head, [0x00, 0x3C])
  }

  /// Whether `head`, text, goes on past its end without showing what it is: XML whose prolog
  /// (declarations, comments, processing instructions, a DOCTYPE) fills it, or header lines
  /// (`Name: value`, folded or not) with no blank line to end them.
  static func mayHideTextDocumentForm(_ head: UnsafeRawBufferPointer) -> Bool {
    guard head.count >= 4096 else { return false }
    return prologFills(head) || headerLinesFill(head)
  }

  private static func prologFills(_ head: UnsafeRawBufferPointer) -> Bool {
    var at = startsWith(head, [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while true {
      while at < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[at]) { at += 1 }
      guard at + 1 < head.count else { return at > 0 }
      guard head[at] == UInt8(ascii: "<") else { return false }
      let end: [UInt8]
      if head[at + 1] == UInt8(ascii: "?") {
        end = Array("?>".utf8)
      } else if startsWith(UnsafeRawBufferPointer(rebasing: head[at...]), Array("<!--".utf8)) {
        end = Array("-->".utf8)
      } else if head[at + 1] == UInt8(ascii: "!") {
        // A DOCTYPE; with an internal subset it ends at `]>`.
        let subset = UnsafeRawBufferPointer(rebasing: head[at...]).prefix { $0 != UInt8(ascii: ">") }.contains(UInt8(ascii: "["))
        end = subset ? Array("]>".utf8) : Array(">".utf8)
      } else {
        return false
      }
      guard let found = ByteSearch.firstIndex(of: end, in: head, from: at + 2) else { return true }
      at = found + end.count
    }
  }

  private static func headerLinesFill(_ head: UnsafeRawBufferPointer) -> Bool {
    let name = head.prefix { $0 != UInt8(ascii: ":") && $0 != 0x0A }
    guard !name.isEmpty, name.count < 80, name.count < head.count, head[name.count] == UInt8(ascii: ":"),
      name.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0 & 0xDF) })
    else { return false }
    return !ByteSearch.contains(Array("\n\n".utf8), in: head) && !ByteSearch.contains(Array("\n\r\n".utf8), in: head)
  }
}
