import COpenSSL
import Foundation

/// An Office document encrypted with the password Excel tries by itself, `VelvetSweatshop`:
/// Excel opens it without asking anyone for a password (review 25: a macro-enabled workbook so
/// encrypted, an OLE2 file of `EncryptionInfo` and `EncryptedPackage`, was accepted as
/// `application/encrypted` — "the password is in the message" does not hold for it). Such a file
/// is decrypted here and its package judged as if it had been sent plain; one encrypted with any
/// other password stays encrypted (its reader must type the password).
///
/// ECMA-376 agile encryption (MS-OFFCRYPTO 2.3.4.10, what Office 2010 and later write) and
/// standard encryption (2.3.4.5, Office 2007: AES-ECB, SHA-1). RC4 encryption of a BIFF8 `.xls`
/// (`FILEPASS`) is not decrypted.
enum OfficeEncryption {
  static let defaultPassword = "VelvetSweatshop"
  /// The largest package decrypted (in memory); a larger one that the default password opens is
  /// a sign by itself.
  static let packageLimit = 32 << 20
  /// The most key-derivation rounds computed (Office writes 100,000; MS-OFFCRYPTO allows up to
  /// 10,000,000, seconds of CPU). More, with an OLE2 file Excel could open unasked, is a sign.
  static let spinLimit = 500_000

  enum Outcome: Equatable {
    /// Not an encrypted Office package, or one only another password opens.
    case closed
    /// The default password opens it: the package.
    case opened([UInt8])
    /// The default password may open it, but share does not decrypt it (why, in words).
    case notDecrypted(String)
  }

  /// Whether the default password opens the encrypted package of the OLE2 file in `bytes`.
  static func open(_ bytes: ItemBytes) -> Outcome {
    guard let file = CompoundFile.Sectors(bytes) else { return .closed }
    let entries = file.rootEntries(named: ["EncryptionInfo", "EncryptedPackage"])
    let streams = entries.filter { $0.type == 2 }
    guard let infoEntry = streams.first(where: { $0.name == "EncryptionInfo" }),
      let packageEntry = streams.first(where: { $0.name == "EncryptedPackage" }),
      let info = file.stream(infoEntry, root: entries.first { $0.type == 5 }, limit: 1 << 20), info.count >= 8
    else { return .closed }
    let (major, minor) = info.withUnsafeBytes { (ContentClassifier.le16($0, 0), ContentClassifier.le16($0, 2)) }
    let key: Key
    switch (major, minor) {
    case (4, 4):
      guard let agile = AgileKey(info: Array(info.dropFirst(8))) else { return .closed }
      guard agile.spinCount <= spinLimit else { return .notDecrypted("its key takes \(agile.spinCount) rounds to derive") }
      guard let derived = agile.key(password: defaultPassword) else { return .closed }
      key = derived
    case (2...4, 2):
      guard let standard = StandardKey(info: info), let derived = standard.key(password: defaultPassword) else { return .closed }
      key = derived
    default:
      return .closed
    }
    guard packageEntry.size >= 8, packageEntry.size - 8 <= packageLimit + 4096,
      let package = file.stream(packageEntry, root: nil, limit: packageLimit + 4096 + 8)
    else { return .notDecrypted("its package is larger than share decrypts (\(packageLimit >> 20) MiB)") }
    guard let plain = key.decrypt(package) else { return .closed }
    return .opened(plain)
  }

  /// A package key and how the package is decrypted with it.
  enum Key {
    /// Agile: AES-CBC, 4,096-byte segments, each with an IV from the key data's salt and the
    /// segment's number.
    case agile(key: [UInt8], salt: [UInt8], hash: String, blockSize: Int)
    /// Standard: AES-ECB over the whole package.
    case standard(key: [UInt8])

    /// The package: its size (8 bytes), then the encrypted bytes.
    func decrypt(_ stream: [UInt8]) -> [UInt8]? {
      let size = stream.withUnsafeBytes { Int(ContentClassifier.le32($0, 0)) | Int(ContentClassifier.le32($0, 4)) << 32 }
      guard size >= 0, size <= OfficeEncryption.packageLimit else { return nil }
      let body = Array(stream.dropFirst(8))
      var plain: [UInt8] = []
      switch self {
      case .agile(let key, let salt, let hash, let blockSize):
        plain.reserveCapacity(body.count)
        var segment = 0
        while segment * 4096 < min(body.count, size + 4096) {
          let piece = Array(body[(segment * 4096)..<min(body.count, (segment + 1) * 4096)])
          guard let iv = Crypto.digest(hash, salt + le32(segment)).map({ Array($0.prefix(blockSize)) }),
            let clear = Crypto.aes(
              piece.count % 16 == 0 ? piece : piece + [UInt8](repeating: 0, count: 16 - piece.count % 16), key: key, iv: iv)
          else { return nil }
          plain += clear
          segment += 1
        }
      case .standard(let key):
        let whole = body.count % 16 == 0 ? body : body + [UInt8](repeating: 0, count: 16 - body.count % 16)
        guard let clear = Crypto.aes(whole, key: key, iv: nil) else { return nil }
        plain = clear
      }
      guard plain.count >= size else { return nil }
      return Array(plain.prefix(size))
    }
  }

  static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

  static func utf16LE(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
}
