/// Android's Dalvik executables (`classes.dex`, and the `dey` form optimized for a device):
/// programs as much as a Java class file is, but libmagic only describes them ("Dalvik dex
/// file version 035") and gives no MIME type past application/octet-stream, so they were data
/// under any name (review 21).
extension ContentClassifier {
  /// A Dalvik executable.
  static let dalvikExecutable: TypeIdentifier = "com.android.dex"

  /// Whether `head` starts as a Dalvik executable does (libmagic's Magdir/dalvik): `dex` or
  /// `dey`, a line feed, a three-digit version and a NUL byte.
  static func isDalvikExecutable(_ head: UnsafeRawBufferPointer) -> Bool {
    guard head.count >= 8, startsWith(head, [0x64, 0x65]), head[2] == UInt8(ascii: "x") || head[2] == UInt8(ascii: "y")
    else { return false }
    let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
    return head[3] == 0x0A && digits.contains(head[4]) && digits.contains(head[5]) && digits.contains(head[6])
      && head[7] == 0
  }
}
