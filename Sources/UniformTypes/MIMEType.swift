/// Helpers for MIME type strings (`type/subtype`), as tags and as libmagic output.
enum MIMEType {
  /// Lower-cases and drops parameters and surrounding blanks: `Text/Plain; charset=utf-8` → `text/plain`.
  static func normalized(_ value: String) -> String {
    // libmagic's answers and most tags are already so: returned as they are, without copies.
    let plain = value.utf8.allSatisfy { byte in
      byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: ";") && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
    if plain { return value }
    let head = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return head.trimmingBlanks().lowercased()
  }

  /// Whether `value` is `type/subtype` with RFC 6838 restricted-name characters on each side.
  static func isValid(_ value: String) -> Bool {
    let parts = value.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, value.utf8.count <= 255 else { return false }
    return parts.allSatisfy { part in
      !part.isEmpty
        && part.utf8.allSatisfy { byte in
          switch byte {
          case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
          default:
            return "!#$&-^_.+".utf8.contains(byte)
          }
        }
    }
  }

  /// The media type before the slash (`image` for `image/png`).
  static func mediaType(of value: String) -> Substring {
    value.split(separator: "/", maxSplits: 1).first ?? ""
  }
}

extension StringProtocol {
  /// The string without leading and trailing spaces, tabs, CR and LF.
  func trimmingBlanks() -> String {
    func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    let bytes = Array(utf8)
    guard let first = bytes.firstIndex(where: { !isBlank($0) }),
      let last = bytes.lastIndex(where: { !isBlank($0) })
    else { return "" }
    return String(decoding: bytes[first...last], as: UTF8.self)
  }
}
