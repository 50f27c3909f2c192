/// A SHA-256 digest as carried by `end` frames and receipts.
package struct Digest: Hashable, Sendable, Codable, CustomStringConvertible {
  /// Bytes in a SHA-256 digest.
  package static let size = 32

  package let bytes: [UInt8]

  /// Fails unless `bytes` holds exactly 32 bytes.
  package init?(bytes: [UInt8]) {
    guard bytes.count == Digest.size else { return nil }
    self.bytes = bytes
  }

  /// Parses 64 hexadecimal digits.
  package init?(hex: String) {
    let digits = Array(hex.utf8)
    guard digits.count == Digest.size * 2 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(Digest.size)
    var i = 0
    while i < digits.count {
      guard let hi = hexValue(digits[i]), let lo = hexValue(digits[i + 1]) else { return nil }
      out.append(hi << 4 | lo)
      i += 2
    }
    bytes = out
  }

  /// 64 lowercase hexadecimal digits.
  package var hex: String { hexString(bytes) }
  package var description: String { hex }

  package init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let digest = Digest(hex: text) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "not a SHA-256 hex digest"))
    }
    self = digest
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(hex)
  }
}

/// Lowercase hexadecimal for a byte sequence.
package func hexString(_ bytes: some Sequence<UInt8>) -> String {
  let digits = Array("0123456789abcdef".utf8)
  var out: [UInt8] = []
  for b in bytes {
    out.append(digits[Int(b >> 4)])
    out.append(digits[Int(b & 0xf)])
  }
  return String(decoding: out, as: UTF8.self)
}

/// The value of one hexadecimal digit, either case (a digest's, a JSON `\u` escape's).
func hexValue(_ c: UInt8) -> UInt8? {
  switch c {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
  default: return nil
  }
}
