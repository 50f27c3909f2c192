/// Byte classes of HTTP's grammar (RFC 9110 §5.6, RFC 3986).
enum ASCII {
  static let cr: UInt8 = 0x0D
  static let lf: UInt8 = 0x0A
  static let space: UInt8 = 0x20
  static let tab: UInt8 = 0x09
  static let colon = UInt8(ascii: ":")
  static let slash = UInt8(ascii: "/")
  static let percent = UInt8(ascii: "%")
  static let dot = UInt8(ascii: ".")
  static let zero = UInt8(ascii: "0")

  static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

  static func isAlpha(_ byte: UInt8) -> Bool {
    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }

  /// tchar: the characters of a token (method, field name).
  static func isTokenByte(_ byte: UInt8) -> Bool {
    if isDigit(byte) || isAlpha(byte) { return true }
    switch byte {
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
      UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
      UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
      UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }

  /// field-vchar, SP and HTAB (obs-text included); no other control character.
  static func isFieldValueByte(_ byte: UInt8) -> Bool {
    byte == tab || byte == space || (0x21...0x7E).contains(byte) || byte >= 0x80
  }

  /// unreserved / sub-delims / ":" / "@" / "/" / "?": what a request target may hold besides
  /// percent-escapes.
  static func isTargetByte(_ byte: UInt8) -> Bool {
    if isUnreserved(byte) { return true }
    switch byte {
    case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
      UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
      UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"),
      UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
      return true
    default:
      return false
    }
  }

  /// ALPHA / DIGIT / "-" / "." / "_" / "~".
  static func isUnreserved(_ byte: UInt8) -> Bool {
    isDigit(byte) || isAlpha(byte) || byte == UInt8(ascii: "-") || byte == dot
      || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
  }

  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: return byte - 0x30
    case 0x41...0x46: return byte - 0x41 + 10
    case 0x61...0x66: return byte - 0x61 + 10
    default: return nil
    }
  }
}
