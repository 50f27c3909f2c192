/// Makes text from the network safe to print on a terminal, on one line.
///
/// Each of these Unicode scalars is replaced by `\u{X}`, X its code point in
/// upper-case hex without leading zeros beyond two digits (ESC → `\u{1B}`,
/// RLO → `\u{202E}`), the notation of a Swift string literal:
/// - C0 controls U+0000...U+001F (tab, newline and ESC included, so no escape
///   sequence and no line break gets through),
/// - DEL U+007F and the C1 controls U+0080...U+009F (U+009B is a one-byte CSI
///   on some terminals),
/// - bidirectional formatting characters, which can make text read in a
///   different order than it is stored: U+061C, U+200E, U+200F,
///   U+202A...U+202E, U+2066...U+2069,
/// - line and paragraph separators U+2028, U+2029.
///
/// A backslash becomes `\\`, so an escaped name never looks like a different
/// name that happened to contain the text `\u{1B}`. Everything else, including
/// non-ASCII letters and emoji, is kept. Pure; safe from any thread.
public func escapeForTerminal(_ s: String) -> String {
  var out = ""
  out.reserveCapacity(s.utf8.count)
  for scalar in s.unicodeScalars {
    if scalar == "\\" {
      out += "\\\\"
    } else if needsEscape(scalar.value) {
      let hex = String(scalar.value, radix: 16, uppercase: true)
      out += "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
    } else {
      out.unicodeScalars.append(scalar)
    }
  }
  return out
}

private func needsEscape(_ v: UInt32) -> Bool {
  switch v {
  case 0x00...0x1F, 0x7F...0x9F: true
  case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
  case 0x2028, 0x2029: true
  default: false
  }
}
