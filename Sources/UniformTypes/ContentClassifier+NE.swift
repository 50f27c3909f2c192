/// 16-bit Windows "new executable" (NE) modules with no code. Windows bitmap fonts (`.fon`) are
/// NE libraries that hold only font resources: no segments, no entry point, nothing imported
/// (review 18: Wine's `sseriffr.fon` and `vgafix.fon` were refused as programs). libmagic calls
/// them NE executables; what they are is decided with the name (`TypePolicy.fontModule`).
extension ContentClassifier {
  /// A resource-only NE module: a Windows executable by kind, with no code.
  static let neResourceModule: TypeIdentifier = "com.microsoft.ne-resource-module"

  /// Whether `head` is an MZ program whose new header (at `e_lfanew`, 0x3C) is an NE header with
  /// no segments (0x1C), no entry point (CS:IP at 0x14), no stack (SS:SP at 0x18), no module
  /// references (0x1E) and an entry table (offset 0x04, length 0x06) without entries.
  static func isResourceOnlyNEModule(_ head: UnsafeRawBufferPointer) -> Bool {
    guard head.count >= 0x40, startsWith(head, [0x4D, 0x5A]) else { return false }
    let ne = le32(head, 0x3C)
    guard ne >= 0x40, ne <= head.count - 0x40, head[ne] == UInt8(ascii: "N"), head[ne + 1] == UInt8(ascii: "E")
    else { return false }
    guard le16(head, ne + 0x1C) == 0, le32(head, ne + 0x14) == 0, le32(head, ne + 0x18) == 0, le16(head, ne + 0x1E) == 0
    else { return false }
    // An entry table of empty bundles (a zero count ends it) exports nothing.
    let entries = ne + le16(head, ne + 0x04)
    let length = le16(head, ne + 0x06)
    guard length > 0 else { return true }
    guard entries + length <= head.count else { return false }
    return head[entries..<(entries + length)].allSatisfy { $0 == 0 }
  }

  /// Whether `head` is a PE program as Windows' loader takes one: `MZ`, and at `e_lfanew`
  /// (0x3C) the signature `PE\0\0`. libmagic's own answer can lose to another of its tests
  /// (review 35: `CD001` written into a program's padding at 32 KiB made it "ISO 9660").
  static func isPEProgram(_ head: UnsafeRawBufferPointer) -> Bool {
    guard head.count >= 0x40, startsWith(head, [0x4D, 0x5A]) else { return false }
    let pe = le32(head, 0x3C)
    return pe >= 0x40 && pe <= head.count - 4 && startsWith(UnsafeRawBufferPointer(rebasing: head[pe...]), [0x50, 0x45, 0, 0])
  }
}
