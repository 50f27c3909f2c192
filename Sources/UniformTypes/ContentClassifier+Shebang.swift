/// A `#!` line before binary data: a Python zipapp (`#!/usr/bin/env python3` and a ZIP) or a
/// self-extracting shell archive runs when made executable, whatever follows the line
/// (review 18: a zipapp named `.zip` was accepted as data; libmagic calls its bytes
/// `application/octet-stream`).
extension ContentClassifier {
  /// The script type of content that is not text but starts (after a UTF-8 BOM) with `#!` and an
  /// absolute interpreter path, as the kernel runs it. A word there instead of a path is a
  /// signature (`#!AMR` audio, `#!SILK`), left to libmagic.
  static func binaryShebangType(_ head: UnsafeRawBufferPointer) -> (TypeIdentifier, String)? {
    let offset = startsWith(head, [0xEF, 0xBB, 0xBF]) ? 3 : 0
    guard head.count > offset + 2, head[offset] == UInt8(ascii: "#"), head[offset + 1] == UInt8(ascii: "!") else {
      return nil
    }
    var start = offset + 2
    while start < head.count, head[start] == UInt8(ascii: " ") || head[start] == UInt8(ascii: "\t") { start += 1 }
    guard start < head.count, head[start] == UInt8(ascii: "/") else { return nil }
    return shebangType(head)
  }
}
