import Foundation
import Testing

@testable import UniformTypes

/// Review 21: libmagic describes Android's Dalvik executables ("Dalvik dex file version 035") but
/// gives them no MIME type past application/octet-stream, so a `classes.dex` was data, accepted
/// under any name (`photo.jpg`).
@Suite struct DalvikTests {
  /// The header of a dex file (`dex\n035\0`, then checksum, signature, sizes) and some zeros.
  static func executable(magic: String = "dex\n035") -> [UInt8] {
    var bytes = Array(magic.utf8) + [0]
    bytes += [UInt8](repeating: 0xA5, count: 24)
    for word: UInt32 in [4096, 0x70, 0x1234_5678] { bytes += withUnsafeBytes(of: word.littleEndian, Array.init) }
    return bytes + [UInt8](repeating: 0, count: 4000)
  }

  @Test(arguments: [("classes.dex", "dex\n035"), ("photo.jpg", "dex\n039"), ("notes", "dey\n036")])
  func aDalvikExecutableIsAnExecutableUnderAnyName(_ name: String, _ magic: String) throws {
    let policy = try TypePolicy(registry: TypeRegistry.system(), declarations: .builtinDefault)
    let verdict = try policy.check(writing: Self.executable(magic: magic), as: name).verdict
    #expect(!verdict.accepted && verdict.type == "com.android.dex" && verdict.rule == .excludedContent, "\(verdict)")
  }

  @Test(arguments: ["dex\n03", "dex\n03a", "dez\n035", "dex 035"])
  func onlyTheHeaderMakesOne(_ magic: String) {
    let head = Self.executable(magic: magic)
    #expect(!head.withUnsafeBytes { ContentClassifier.isDalvikExecutable($0) }, "\(magic.debugDescription)")
  }
}
