import Foundation
import Testing

@testable import UniformTypes

/// Excel's built-in password (review 25): a workbook encrypted with `VelvetSweatshop` opens in
/// Excel without asking, so share decrypts it and judges what it holds. The agile form (Office
/// 2010 and later, msoffcrypto-tool) is checked end to end on real files by the corpus
/// (`locked-budget.xlsx`, `secret-budget.xlsx`); the standard form (Office 2007) here, on an
/// `EncryptionInfo` and a package made by an independent implementation of MS-OFFCRYPTO 2.3.4.7
/// (Python's hashlib and the cryptography package's AES, not share's code).
@Suite("Office encryption with the built-in password")
struct OfficeEncryptionTests {
  static func bytes(_ hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      result.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return result
  }

  /// Standard encryption, AES-128, salt 00…0f, the password `VelvetSweatshop`.
  static let standardInfo = bytes(
    "03000200240000008c00000024000000000000000e66000004800000800000001800000000000000000000004d006900630072006f0073006f00660074"
      + "00200045006e00680061006e006300650064002000520053004100200061006e00640020004100450053002000430072007900700074006f006700"
      + "7200610070006800690063002000500072006f0076006900640065007200000010000000000102030405060708090a0b0c0d0e0fc9c388ad490e94"
      + "704544db5bb838b6ee14000000be5b1399420b30a6bd10f8474fc01c60b4ea54ab54faf94e4e62a270c21bb933")
  /// Its package: 64 bytes, `PK\3\4` and the bytes 0…59.
  static let standardPackage = bytes(
    "4000000000000000456c894a00fbc79d26c98f5c53c4c086fa778c6076c3953c963451c03add4183cf2a045baa310e14796805ef34eb649559452c2c"
      + "09b382ccd009edebe5afde6a")

  @Test func theBuiltInPasswordOpensAStandardEncryptedPackage() throws {
    let info = try #require(OfficeEncryption.StandardKey(info: Self.standardInfo))
    let key = try #require(info.key(password: OfficeEncryption.defaultPassword))
    #expect(key.decrypt(Self.standardPackage) == [0x50, 0x4B, 0x03, 0x04] + (0..<60).map { UInt8($0) })
  }

  @Test func anotherPasswordOpensNothing() throws {
    let info = try #require(OfficeEncryption.StandardKey(info: Self.standardInfo))
    #expect(info.key(password: "velvetsweatshop") == nil)
    #expect(info.key(password: "") == nil)
  }

  @Test func aPackageThatLiesAboutItsSizeIsNotOpened() throws {
    let key = try #require(OfficeEncryption.StandardKey(info: Self.standardInfo)?.key(password: OfficeEncryption.defaultPassword))
    var longer = Self.standardPackage
    longer[0] = 0x80
    #expect(key.decrypt(longer) == nil)
    var huge = Self.standardPackage
    huge[6] = 0x01
    #expect(key.decrypt(huge) == nil)
  }

  @Test func digestsAndCiphersAreOpenSSLs() throws {
    // FIPS 180-2's "abc", and a name MS-OFFCRYPTO may write with a dash.
    #expect(OfficeEncryption.Crypto.digest("SHA-1", Array("abc".utf8)) == Self.bytes("a9993e364706816aba3e25717850c26c9cd0d89d"))
    #expect(OfficeEncryption.Crypto.digest("SHA512", Array("abc".utf8))?.count == 64)
    #expect(OfficeEncryption.Crypto.digest("NOSUCH", []) == nil)
    // A length that is no whole number of blocks, or a key of no AES size, decrypts nothing.
    #expect(OfficeEncryption.Crypto.aes([1, 2, 3], key: [UInt8](repeating: 0, count: 16), iv: nil) == nil)
    #expect(OfficeEncryption.Crypto.aes([UInt8](repeating: 0, count: 16), key: [1], iv: nil) == nil)
  }

  /// Review 35: streams called `EncryptionInfo` and `EncryptedPackage` in a storage listed
  /// before the root's own were read instead of those Office reads (the root storage's): empty
  /// decoys there made an encrypted workbook Excel opens unasked "closed", so never judged.
  @Test func theRootStoragesStreamsAreReadPastDecoysInAStorage() throws {
    let names = [("Decoys", UInt8(1)), ("EncryptionInfo", 2), ("EncryptedPackage", 2), ("EncryptionInfo", 2), ("EncryptedPackage", 2)]
    var bytes = SampleBytes.compoundFile(names, directory: [1, 2])
    func put(_ value: UInt32, at offset: Int) { bytes.replaceSubrange(offset..<(offset + 4), with: SampleBytes.le32(value)) }
    func entry(_ index: Int) -> Int { 512 + [1, 2][index / 4] * 512 + (index % 4) * 128 }
    // The storage holds the first two streams: its right sibling is the fourth entry, its child
    // the second; the third ends the storage's own list.
    put(4, at: entry(1) + 72)
    put(2, at: entry(1) + 76)
    put(0xFFFF_FFFF, at: entry(3) + 72)
    // No mini stream: the root's streams lie in sectors 3 and 4 of their own.
    put(0, at: 0x38)
    for (index, sector, data) in [(4, 3, Self.standardInfo), (5, 4, Self.standardPackage)] {
      put(0xFFFF_FFFE, at: 512 + 4 * sector)
      put(UInt32(sector), at: entry(index) + 116)
      put(UInt32(data.count), at: entry(index) + 120)
      bytes += data + [UInt8](repeating: 0, count: 512 - data.count)
    }
    let outcome = bytes.withUnsafeBytes { OfficeEncryption.open(ItemBytes($0)) }
    #expect(outcome == .opened([0x50, 0x4B, 0x03, 0x04] + (0..<60).map { UInt8($0) }))
  }
}
