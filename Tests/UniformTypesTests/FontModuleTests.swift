import Testing

@testable import UniformTypes

/// Review 18, finding 7: Windows bitmap fonts are NE modules that hold only font resources.
@Suite("Windows bitmap fonts (.fon): resource-only NE modules")
struct FontModuleTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  /// The first 256 bytes of Debian's fonts-wine vgafix.fon: MZ stub, NE header at 0x80 (no
  /// segments, CS:IP 0, no module references, empty entry table), resource table.
  static let vgafix: [UInt8] = hex([
    "4d5a0d010100000004000000ffff0000b8000000000000004000000000000000",
    "0000000000000000000000000000000000000000000000000000000080000000",
    "0e1fba0e00b409cd21b8014ccd21546869732050726f6772616d2063616e6e6f",
    "742062652072756e20696e20444f53206d6f64650d0a24000000000000000000",
    "4e45050186000000000000000083000000000000000000000000000000000000",
    "2c00400040007a00860086000801000000000400000002000000000000000004",
    "0400078001000000000014000800500032000000000008800100000000001c00",
    "33013010508000000000000000000000000007464f4e54444952084669786564",
  ])

  static func hex(_ lines: [String]) -> [UInt8] {
    let digits = Array(lines.joined().utf8)
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap {
      UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)
    }
  }

  func judge(_ name: String, _ bytes: [UInt8]) throws -> Verdict {
    try Self.policy.get().judge(name: name, head: bytes, totalSize: 5360, sniffer: try Self.sniffer.get())
  }

  /// vgafix with a 16-bit field of its NE header (at 0x80) changed.
  func patched(_ field: Int, _ value: UInt16) -> [UInt8] {
    var bytes = Self.vgafix
    bytes[0x80 + field] = UInt8(value & 0xFF)
    bytes[0x80 + field + 1] = UInt8(value >> 8)
    return bytes
  }

  @Test("a resource-only NE module named .fon is accepted as a font")
  func fontIsAccepted() throws {
    #expect(Self.vgafix.count == 256)
    let verdict = try judge("vgafix.fon", Self.vgafix)
    #expect(verdict.accepted, "\(verdict.reason)")
    #expect(verdict.type == "com.microsoft.windows-font" && verdict.decidedBy == "Fonts", "\(verdict.reason)")
  }

  @Test("under any other name it stays an executable, as does a .fon with code, an entry point, a stack or imports")
  func everythingElseStaysAnExecutable() throws {
    for name in ["vgafix.exe", "vgafix.dll", "vgafix.jpg", "vgafix", "vgafix.ttf"] {
      let verdict = try judge(name, Self.vgafix)
      #expect(!verdict.accepted && verdict.decidedBy == "public.executable", "\(name): \(verdict.reason)")
    }
    // Segment count, CS:IP (IP and CS), SS:SP, module references.
    for (field, value) in [(0x1C, 1), (0x14, 0x10), (0x16, 1), (0x18, 0x100), (0x1E, 1)] as [(Int, UInt16)] {
      let verdict = try judge("vgafix.fon", patched(field, value))
      #expect(!verdict.accepted && verdict.decidedBy == "public.executable", "field \(field): \(verdict.reason)")
    }
    // An entry table with an entry (a bundle of one fixed entry in segment 1).
    var exports = patched(0x06, 4) + [UInt8](repeating: 0, count: 16)
    let table = 0x80 + 0x86
    exports[table] = 1
    exports[table + 1] = 1
    #expect(!(try judge("vgafix.fon", exports)).accepted)
    // A PE (i386) named .fon stays what it is.
    var pe = Self.vgafix
    pe.replaceSubrange(0x80..<0x86, with: [UInt8(ascii: "P"), UInt8(ascii: "E"), 0, 0, 0x4C, 0x01])
    #expect(!(try judge("vgafix.fon", pe)).accepted)
  }
}
