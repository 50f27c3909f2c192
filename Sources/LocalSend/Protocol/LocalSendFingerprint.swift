import Foundation
import TLS

/// A LocalSend fingerprint in HTTPS mode: the SHA-256 of the device's whole certificate
/// (DER), as the protocol document defines it ("the SHA-256 hash of the certificate").
///
/// Spelled as 64 uppercase hex digits, as the LocalSend app does; other implementations
/// (localsend-cli) send lowercase, so parsing and comparison ignore case. This is not share's
/// device ID, which hashes only the public key: the same certificate has both, but a renewed
/// certificate keeps the share ID and gets a new LocalSend fingerprint.
package struct LocalSendFingerprint: Hashable, Sendable, CustomStringConvertible {
  /// The 32 digest bytes.
  package let bytes: [UInt8]

  /// The fingerprint of a DER-encoded certificate.
  package init(certificateDER der: [UInt8]) {
    bytes = SHA256Hasher.hash(der)
  }

  /// The fingerprint of a PEM certificate (the first CERTIFICATE block); nil if none decodes.
  package init?(certificatePEM pem: String) {
    guard let der = Self.der(fromPEM: pem) else { return nil }
    self.init(certificateDER: der)
  }

  /// The fingerprint of this device's certificate: the one identity both protocols present.
  package init?(identity: DeviceIdentity) {
    self.init(certificatePEM: identity.certificatePEM)
  }

  /// Parses 64 hex digits in either case; nil otherwise.
  package init?(hex: String) {
    let digits = Array(hex.utf8)
    guard digits.count == 64 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    for index in stride(from: 0, to: 64, by: 2) {
      guard let high = ASCII.hexValue(digits[index]), let low = ASCII.hexValue(digits[index + 1])
      else { return nil }
      bytes.append(high << 4 | low)
    }
    self.bytes = bytes
  }

  /// 64 uppercase hex digits.
  package var hex: String {
    bytes.map { byte in
      let digits = Array("0123456789ABCDEF")
      return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
    }.joined()
  }

  package var description: String { hex }

  /// Whether a fingerprint a peer sent (any case) names this certificate.
  package func matches(_ claimed: String) -> Bool {
    LocalSendFingerprint(hex: claimed) == self
  }

  /// The DER bytes of the first `CERTIFICATE` block of a PEM text.
  static func der(fromPEM pem: String) -> [UInt8]? {
    let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
    guard let begin = lines.firstIndex(of: "-----BEGIN CERTIFICATE-----"),
      let end = lines[begin...].firstIndex(of: "-----END CERTIFICATE-----")
    else { return nil }
    let body = lines[(begin + 1)..<end].joined()
    guard let data = Data(base64Encoded: body), !data.isEmpty else { return nil }
    return [UInt8](data)
  }
}
