import COpenSSL
import Foundation

/// How a password becomes an encrypted Office package's key (MS-OFFCRYPTO), and the digests and
/// ciphers it takes, through OpenSSL's EVP interface.
extension OfficeEncryption {
  /// Agile encryption's `EncryptionInfo` XML: the key data (how the package is encrypted) and
  /// the password key encryptor (how the package key is encrypted with the password).
  struct AgileKey {
    var keySalt: [UInt8] = []
    var keyHash = ""
    var keyBits = 0
    var keyBlockSize = 0
    var passwordSalt: [UInt8] = []
    var passwordHash = ""
    var passwordKeyBits = 0
    var spinCount = 0
    var verifierInput: [UInt8] = []
    var verifierHash: [UInt8] = []
    var encryptedKey: [UInt8] = []

    init?(info: [UInt8]) {
      let text = String(decoding: info, as: UTF8.self)
      var sawKeyData = false
      var sawPassword = false
      for element in text.split(separator: "<") {
        let name = element.prefix { !" \t\r\n/>".contains($0) }
        let local = name.split(separator: ":").last.map(String.init) ?? ""
        var attributes: [String: String] = [:]
        ContentClassifier.forEachAttribute(in: element) { attributes[$0] = $1 }
        func bytes(_ key: String) -> [UInt8] { attributes[key].flatMap { Data(base64Encoded: $0) }.map { Array($0) } ?? [] }
        if local == "keyData", !sawKeyData {
          sawKeyData = true
          (keySalt, keyHash) = (bytes("saltValue"), attributes["saltValue"] == nil ? "" : attributes["hashAlgorithm"] ?? "")
          (keyBits, keyBlockSize) = (Int(attributes["keyBits"] ?? "") ?? 0, Int(attributes["blockSize"] ?? "") ?? 0)
        } else if local == "encryptedKey", !sawPassword, attributes["encryptedKeyValue"] != nil {
          sawPassword = true
          (passwordSalt, passwordHash) = (bytes("saltValue"), attributes["hashAlgorithm"] ?? "")
          (passwordKeyBits, spinCount) = (Int(attributes["keyBits"] ?? "") ?? 0, Int(attributes["spinCount"] ?? "") ?? -1)
          (verifierInput, verifierHash) = (bytes("encryptedVerifierHashInput"), bytes("encryptedVerifierHashValue"))
          encryptedKey = bytes("encryptedKeyValue")
        }
      }
      guard sawKeyData, sawPassword, spinCount >= 0, [128, 192, 256].contains(keyBits), [128, 192, 256].contains(passwordKeyBits),
        keyBlockSize == 16, !keySalt.isEmpty, passwordSalt.count >= 16
      else { return nil }
    }

    /// The package key when `password` is this document's; nil otherwise.
    func key(password: String) -> Key? {
      guard let hash = Crypto.spun(passwordHash, salt: passwordSalt, password: password, rounds: spinCount) else { return nil }
      func derived(_ block: [UInt8]) -> [UInt8]? {
        guard let key = Crypto.digest(passwordHash, hash + block) else { return nil }
        let length = passwordKeyBits / 8
        return key.count >= length ? Array(key.prefix(length)) : key + [UInt8](repeating: 0x36, count: length - key.count)
      }
      let iv = Array(passwordSalt.prefix(16))
      guard let inputKey = derived([0xFE, 0xA7, 0xD2, 0x76, 0x3B, 0x4B, 0x9E, 0x79]),
        let valueKey = derived([0xD7, 0xAA, 0x0F, 0x6D, 0x30, 0x61, 0x34, 0x4E]),
        let keyKey = derived([0x14, 0x6E, 0x0B, 0xE7, 0xAB, 0xAC, 0xD0, 0xD6]),
        let input = Crypto.aes(verifierInput, key: inputKey, iv: iv), let value = Crypto.aes(verifierHash, key: valueKey, iv: iv),
        let inputHash = Crypto.digest(passwordHash, Array(input.prefix(passwordSalt.count))),
        value.count >= inputHash.count, Array(value.prefix(inputHash.count)) == inputHash,
        let secret = Crypto.aes(encryptedKey, key: keyKey, iv: iv), secret.count >= keyBits / 8,
        Crypto.digest(keyHash, []) != nil
      else { return nil }
      return .agile(key: Array(secret.prefix(keyBits / 8)), salt: keySalt, hash: keyHash, blockSize: keyBlockSize)
    }
  }

  /// Standard encryption's `EncryptionInfo`: an AES key size, and the verifier with its salt.
  struct StandardKey {
    var keyBytes: Int
    var salt: [UInt8]
    var verifier: [UInt8]
    var verifierHash: [UInt8]

    init?(info: [UInt8]) {
      guard info.count >= 12 else { return nil }
      let headerSize = info.withUnsafeBytes { ContentClassifier.le32($0, 8) }
      let verifierStart = 12 + headerSize
      guard headerSize >= 32, verifierStart + 4 + 16 + 16 + 4 + 32 <= info.count else { return nil }
      let (algorithm, keySize, saltSize) = info.withUnsafeBytes {
        (ContentClassifier.le32($0, 12 + 8), ContentClassifier.le32($0, 12 + 16), ContentClassifier.le32($0, verifierStart))
      }
      guard [0x660E, 0x660F, 0x6610].contains(algorithm), [128, 192, 256].contains(keySize), saltSize == 16 else { return nil }
      keyBytes = keySize / 8
      salt = Array(info[(verifierStart + 4)..<(verifierStart + 20)])
      verifier = Array(info[(verifierStart + 20)..<(verifierStart + 36)])
      verifierHash = Array(info[(verifierStart + 40)..<(verifierStart + 72)])
    }

    /// The package key when `password` is this document's; nil otherwise.
    func key(password: String) -> Key? {
      guard let spun = Crypto.spun("SHA1", salt: salt, password: password, rounds: 50_000),
        let final = Crypto.digest("SHA1", spun + [0, 0, 0, 0])
      else { return nil }
      func xored(_ pad: UInt8) -> [UInt8] { (0..<64).map { $0 < final.count ? final[$0] ^ pad : pad } }
      guard let first = Crypto.digest("SHA1", xored(0x36)), let second = Crypto.digest("SHA1", xored(0x5C)) else { return nil }
      let key = Array((first + second).prefix(keyBytes))
      guard let clear = Crypto.aes(verifier, key: key, iv: nil), let hash = Crypto.aes(verifierHash, key: key, iv: nil),
        let expected = Crypto.digest("SHA1", clear), Array(hash.prefix(expected.count)) == expected
      else { return nil }
      return .standard(key: key)
    }
  }

  /// Digests and AES through OpenSSL.
  enum Crypto {
    /// The digest `name` (as MS-OFFCRYPTO names it: SHA512, SHA1...) of `bytes`; nil for a name
    /// OpenSSL does not know.
    static func digest(_ name: String, _ bytes: [UInt8]) -> [UInt8]? {
      guard let md = EVP_get_digestbyname(openSSLName(name)) else { return nil }
      var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
      var length: UInt32 = 0
      guard EVP_Digest(bytes, bytes.count, &out, &length, md, nil) == 1 else { return nil }
      return Array(out.prefix(Int(length)))
    }

    /// H(salt + password as UTF-16LE), then `rounds` times H(round number + the last), with one
    /// digest context for all of them.
    static func spun(_ name: String, salt: [UInt8], password: String, rounds: Int) -> [UInt8]? {
      guard let md = EVP_get_digestbyname(openSSLName(name)), let context = EVP_MD_CTX_new(),
        var hash = digest(name, salt + OfficeEncryption.utf16LE(password))
      else { return nil }
      defer { EVP_MD_CTX_free(context) }
      var length: UInt32 = 0
      for round in 0..<rounds {
        var counter = UInt32(round).littleEndian
        guard EVP_DigestInit_ex(context, md, nil) == 1, EVP_DigestUpdate(context, &counter, 4) == 1,
          EVP_DigestUpdate(context, hash, hash.count) == 1, EVP_DigestFinal_ex(context, &hash, &length) == 1
        else { return nil }
      }
      return hash
    }

    /// `bytes` (a whole number of AES blocks) decrypted with AES in CBC mode from `iv`, or in ECB
    /// mode without one; no padding.
    static func aes(_ bytes: [UInt8], key: [UInt8], iv: [UInt8]?) -> [UInt8]? {
      guard [16, 24, 32].contains(key.count), bytes.count % 16 == 0, iv.map({ $0.count == 16 }) ?? true,
        let cipher = EVP_get_cipherbyname("AES-\(key.count * 8)-\(iv == nil ? "ECB" : "CBC")"), let context = EVP_CIPHER_CTX_new()
      else { return nil }
      defer { EVP_CIPHER_CTX_free(context) }
      guard EVP_DecryptInit_ex(context, cipher, nil, key, iv) == 1, EVP_CIPHER_CTX_set_padding(context, 0) == 1 else { return nil }
      var out = [UInt8](repeating: 0, count: bytes.count + 16)
      var written: Int32 = 0
      var final: Int32 = 0
      guard EVP_DecryptUpdate(context, &out, &written, bytes, Int32(bytes.count)) == 1,
        EVP_DecryptFinal_ex(context, out.withUnsafeMutableBufferPointer { $0.baseAddress! + Int(written) }, &final) == 1
      else { return nil }
      return Array(out.prefix(Int(written + final)))
    }

    private static func openSSLName(_ name: String) -> String {
      switch name.uppercased() {
      case "SHA-1": return "SHA1"
      case "SHA-256": return "SHA256"
      case "SHA-384": return "SHA384"
      case "SHA-512": return "SHA512"
      default: return name.uppercased()
      }
    }
  }
}
