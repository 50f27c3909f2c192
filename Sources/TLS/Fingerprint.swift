/// A device ID: the SHA-256 digest of the DER encoding of a certificate's SubjectPublicKeyInfo.
///
/// Hashing the public key rather than the whole certificate means a renewed certificate for the
/// same key keeps the same ID. The canonical spelling is 64 lowercase hex digits (`hex`); people
/// may also type the `grouped` form, upper case, or colon-separated bytes — `init(hex:)` and
/// `matches(prefix:)` accept all of them. Encodes and decodes (`Codable`) as the canonical string.
package struct Fingerprint: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
  /// The 32 digest bytes.
  package let bytes: [UInt8]

  /// The number of digest bytes (SHA-256).
  package static let byteCount = 32

  /// Wraps a digest; nil unless `bytes` has exactly 32 elements.
  package init?(bytes: [UInt8]) {
    guard bytes.count == Self.byteCount else { return nil }
    self.bytes = bytes
  }

  /// Parses 64 hex digits, case-insensitive, ignoring the separators ' ', ':' and '-';
  /// nil for any other character or any other number of digits.
  package init?(hex: String) {
    guard let digits = normalizedFingerprintPrefix(hex), digits.count == 2 * Self.byteCount
    else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Self.byteCount)
    var high: UInt8? = nil
    for scalar in digits.utf8 {
      let nibble = hexValue(scalar)
      if let h = high {
        bytes.append(h << 4 | nibble)
        high = nil
      } else {
        high = nibble
      }
    }
    self.bytes = bytes
  }

  /// The canonical device ID: 64 lowercase hex digits.
  package var hex: String {
    // Built as UTF-8 bytes in one go: appending scalars one by one costs a receiver about 2% of
    // its CPU for many small items (the sender's ID goes into every item's record).
    String(unsafeUninitializedCapacity: 2 * bytes.count) { buffer in
      for (index, byte) in bytes.enumerated() {
        buffer[2 * index] = UInt8(ascii: hexDigit(byte >> 4))
        buffer[2 * index + 1] = UInt8(ascii: hexDigit(byte & 0x0f))
      }
      return 2 * bytes.count
    }
  }

  /// The human form: 16 groups of 4 hex digits joined by "-".
  package var grouped: String {
    let digits = Array(hex)
    return stride(from: 0, to: digits.count, by: 4)
      .map { String(digits[$0..<$0 + 4]) }
      .joined(separator: "-")
  }

  /// The first 12 hex digits, enough to tell a handful of devices apart on screen.
  package var short: String {
    String(hex.prefix(12))
  }

  /// The smallest number of hex digits `matches(prefix:)` accepts.
  package static let minimumPrefixLength = 4

  /// True when `prefix`, in any accepted spelling (separators ignored, any case), has at least
  /// `minimumPrefixLength` hex digits and is a prefix of `hex`.
  package func matches(prefix: String) -> Bool {
    guard let digits = normalizedFingerprintPrefix(prefix),
      digits.count >= Self.minimumPrefixLength
    else { return false }
    return hex.hasPrefix(digits)
  }

  /// Same as `hex`.
  package var description: String { hex }

  /// Orders by the digest bytes (equivalently, by `hex`).
  package static func < (lhs: Fingerprint, rhs: Fingerprint) -> Bool {
    lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
  }

  /// Decodes the 64-hex-digit string form (any accepted spelling).
  package init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let value = Fingerprint(hex: text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "not a 64-hex-digit fingerprint: \(text.debugDescription)")
    }
    self = value
  }

  /// Encodes as the canonical 64 lowercase hex digits.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(hex)
  }
}

/// Normalises a typed device-ID prefix: drops the separators ' ', ':' and '-', lowercases the
/// rest, and returns nil if anything left is not a hex digit. The empty string normalises to "".
package func normalizedFingerprintPrefix(_ s: String) -> String? {
  var out = ""
  for scalar in s.unicodeScalars {
    switch scalar {
    case " ", ":", "-":
      continue
    case "0"..."9", "a"..."f":
      out.unicodeScalars.append(scalar)
    case "A"..."F":
      out.unicodeScalars.append(Unicode.Scalar(scalar.value + 0x20) ?? scalar)
    default:
      return nil
    }
  }
  return out
}

/// The value of an ASCII hex digit already validated as `0-9a-f`.
private func hexValue(_ c: UInt8) -> UInt8 {
  c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0") : c - UInt8(ascii: "a") + 10
}

/// The lowercase hex digit for a nibble (0...15).
private func hexDigit(_ nibble: UInt8) -> Unicode.Scalar {
  Unicode.Scalar(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
}
