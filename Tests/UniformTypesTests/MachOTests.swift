import Foundation
import Testing

@testable import UniformTypes

/// Review 16: libmagic names Mach-O programs (`application/x-mach-binary`), but no type had that
/// name, so a macOS executable was "data", accepted under any name (`photo.jpg`).
@Suite struct MachOTests {
  /// The header of a 64-bit x86_64 Mach-O executable and its first load command (`__PAGEZERO`).
  static func executable() -> [UInt8] {
    var bytes: [UInt8] = []
    func le(_ value: UInt32) { bytes += withUnsafeBytes(of: value.littleEndian, Array.init) }
    func le(_ value: UInt64) { bytes += withUnsafeBytes(of: value.littleEndian, Array.init) }
    for word: UInt32 in [0xFEED_FACF, 0x0100_0007, 3, 2, 1, 72, 0x85, 0] { le(word) }
    le(UInt32(0x19))
    le(UInt32(72))
    bytes += Array("__PAGEZERO".utf8) + [UInt8](repeating: 0, count: 6)
    for value: UInt64 in [0, 0x1_0000_0000, 0, 0] { le(value) }
    for word: UInt32 in [0, 0, 0, 0] { le(word) }
    return bytes + [UInt8](repeating: 0, count: 4000)
  }

  @Test(arguments: ["holiday.jpg", "report.pdf", "libthing.dylib", "tool"])
  func aMachOProgramIsAnExecutableUnderAnyName(_ name: String) throws {
    let policy = try TypePolicy(registry: TypeRegistry.system(), declarations: .builtinDefault)
    let verdict = try policy.check(writing: Self.executable(), as: name).verdict
    #expect(!verdict.accepted && verdict.type == "com.apple.mach-o-binary" && verdict.rule == .excludedContent, "\(verdict)")
  }
}
