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

  /// Review 37: a universal binary with 64-bit offsets (`0xCAFEBABF`), which libmagic 5.44 does
  /// not know, was data under any name. One with an implausible count of architectures stays data.
  @Test func aUniversalBinaryWith64BitOffsetsIsAnExecutable() throws {
    let policy = try TypePolicy(registry: TypeRegistry.system(), declarations: .builtinDefault)
    // Two architectures (x86_64, arm64), each: cpu type, subtype, offset, size (64-bit), align, reserved.
    var fat: [UInt8] = [0xCA, 0xFE, 0xBA, 0xBF, 0, 0, 0, 2]
    for cpu: UInt32 in [0x0100_0007, 0x0100_000C] {
      fat += withUnsafeBytes(of: cpu.bigEndian, Array.init) + [UInt8](repeating: 0, count: 4)
      fat += withUnsafeBytes(of: UInt64(0x4000).bigEndian, Array.init) + withUnsafeBytes(of: UInt64(4096).bigEndian, Array.init)
      fat += [0, 0, 0, 14, 0, 0, 0, 0]
    }
    let verdict = try policy.check(writing: fat + [UInt8](repeating: 0x5A, count: 4000), as: "holiday.jpg").verdict
    #expect(!verdict.accepted && verdict.type == "com.apple.mach-o-binary" && verdict.rule == .excludedContent, "\(verdict)")
    let many = try policy.check(writing: [0xCA, 0xFE, 0xBA, 0xBF, 0, 0, 1, 0] + [UInt8](repeating: 0x5A, count: 4000), as: "x.bin")
    #expect(many.verdict.type != "com.apple.mach-o-binary", "\(many.verdict)")
  }
}
