/// JSON string literals written by hand, for the places that skip JSONEncoder to be fast: the
/// Inbox's metadata journal and `share inbox list --json`. One writer, in two styles.
package enum JSONString {
  /// What is escaped beyond quotes, backslashes and C0 controls.
  package enum Style: Sendable {
    /// The Inbox's journal, read back by its own scanner: `\n`, `\r` and `\t`, and every other C0
    /// control, DEL and C1 control as `\u00xx`; nothing above U+009F.
    case journal
    /// `--json` output, byte for byte what `JSONOutput.line` writes: JSONEncoder's escapes (`\b`
    /// and `\f` too), then DEL, C1 controls, U+2028, U+2029 and format characters as `\uxxxx`
    /// (`outputEscapes`), so a name from the network reaches no terminal raw even through JSON;
    /// and a byte of a file name that is not UTF-8 as `\udcXX` (see `append`), where JSONEncoder
    /// would write the private-use scalar `FileNameText` holds it as.
    case output
  }

  /// Appends `value` as a JSON string literal, quotes included, to `out`.
  package static func append(_ value: String, style: Style, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for scalar in value.unicodeScalars {
      switch scalar.value {
      case 0x22: out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
      case 0x5C: out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
      case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case 0x08 where style == .output: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
      case 0x0C where style == .output: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
      case 0x20..<0x7F: out.append(UInt8(truncatingIfNeeded: scalar.value))
      case 0x00..<0x20, 0x7F...0x9F: appendHexEscape(scalar.value, to: &out)
      default:
        if style == .output, let byte = FileNameText.rawByte(scalar) {
          // A byte of a name that is not UTF-8 (`FileNameText`): a lone surrogate, as PEP 383's
          // surrogateescape writes it, which Python's json and os.fsencode turn back into the byte.
          appendHexEscape(0xDC00 + UInt32(byte), to: &out)
        } else if style == .output && outputEscapes(scalar) {
          appendHexEscape(scalar.value, to: &out)
        } else {
          out.append(contentsOf: String(scalar).utf8)
        }
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// `value` as a JSON string literal, quotes included.
  package static func literal(_ value: String, style: Style) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(value.utf8.count + 2)
    append(value, style: style, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Whether the `output` style writes `scalar` (one above ASCII's controls) as `\uxxxx`.
  package static func outputEscapes(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x7F...0x9F, 0x2028, 0x2029: return true
    case 0x10000...: return false
    default: return scalar.properties.generalCategory == .format
    }
  }

  /// `\uxxxx`, lower-case hex (`value` is below U+10000).
  private static func appendHexEscape(_ value: UInt32, to out: inout [UInt8]) {
    let digits = Array("0123456789abcdef".utf8)
    out += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
    for shift in stride(from: 12, through: 0, by: -4) { out.append(digits[Int((value >> UInt32(shift)) & 0xF)]) }
  }
}
