/// The one place share makes untrusted strings (names from the network, values from a declarations file) safe to
/// embed in reasons and error messages: no control character, escape sequence or
/// bidirectional override reaches a terminal, and very long values are shortened.
package enum Escaping {
  /// Longest escaped value embedded in a message, in Unicode scalars (escapes included).
  package static let maximumLength = 160

  /// `value` with control characters (C0, DEL, C1), Unicode format characters (bidi
  /// overrides, zero-width characters), other characters drawn as nothing (Hangul fillers, the
  /// braille blank) and line/paragraph separators written as `\u{XX}`;
  /// backslashes doubled; cut to `maximumLength` scalars of output, then `…`.
  package static func escaped(_ value: String, maximumLength: Int = Escaping.maximumLength) -> String {
    escaped(value, maximumLength: maximumLength, quote: false)
  }

  /// A message share made from escaped parts (a verdict's reason names its item through
  /// `escaped`), made safe to print again without escaping its parts twice: hidden characters
  /// are written as `\u{XX}` as `escaped` writes them, backslashes are left as they are.
  package static func made(_ message: String, maximumLength: Int = Escaping.maximumLength) -> String {
    escaped(message, maximumLength: maximumLength, quote: false, doublingBackslashes: false)
  }

  /// `escaped(value)` between double quotes (inner quotes escaped too).
  package static func quoted(_ value: String) -> String {
    "\"" + escaped(value, maximumLength: maximumLength, quote: true) + "\""
  }

  /// The text `escaped` or `quoted` (without its quotes) was made from, or nil when `shown` is
  /// not such an escaping (a backslash before anything but a backslash, a quote, `u{HEX}` or
  /// `xHH`, a raw byte of a file name that is not UTF-8).
  /// For names a person copied from share's output and pastes back.
  package static func unescaped(_ shown: String) -> String? {
    var result = String.UnicodeScalarView()
    var scalars = shown.unicodeScalars[...]
    while let scalar = scalars.popFirst() {
      guard scalar == "\\" else {
        result.append(scalar)
        continue
      }
      switch scalars.popFirst() {
      case "\\": result.append("\\")
      case "\"": result.append("\"")
      case "x":
        guard let high = scalars.popFirst(), let low = scalars.popFirst(), let byte = UInt8("\(high)\(low)", radix: 16),
          byte >= 0x80
        else { return nil }
        result.append(FileNameText.scalar(forRawByte: byte))
      case "u":
        guard scalars.popFirst() == "{", let close = scalars.firstIndex(of: "}"),
          let value = UInt32(String(scalars[..<close]), radix: 16), let escaped = Unicode.Scalar(value)
        else { return nil }
        result.append(escaped)
        scalars = scalars[scalars.index(after: close)...]
      default: return nil
      }
    }
    return String(result)
  }

  /// `value` when it has at most `limit` UTF-8 bytes, else its longest prefix of whole
  /// characters within `limit` bytes followed by `…` (which adds 3 bytes): for text that is kept
  /// or sent on rather than shown, so nothing is escaped.
  package static func cut(_ value: String, toBytes limit: Int) -> String {
    guard value.utf8.count > limit else { return value }
    var bytes = 0
    var end = value.startIndex
    for index in value.indices {
      let next = value.index(after: index)
      bytes += value.utf8.distance(from: index, to: next)
      if bytes > limit { break }
      end = next
    }
    return String(value[..<end]) + "…"
  }

  private static func escaped(
    _ value: String, maximumLength: Int, quote: Bool, doublingBackslashes: Bool = true
  ) -> String {
    // Printable ASCII without a backslash or quote is its own escape (and what most names are).
    let utf8 = value.utf8
    if utf8.count <= maximumLength,
      utf8.allSatisfy({
        (0x20...0x7E).contains($0) && !(doublingBackslashes && $0 == UInt8(ascii: "\\"))
          && !(quote && $0 == UInt8(ascii: "\""))
      })
    {
      return value
    }
    var result = ""
    var count = 0
    let scalars = Array(value.unicodeScalars)
    var flagTagsThrough = -1
    for (index, scalar) in scalars.enumerated() {
      let piece: String
      if index <= flagTagsThrough {
        // A subdivision flag's tags (🏴󠁧󠁢󠁳󠁣󠁴󠁿): shown as the Inbox keeps them.
        piece = String(scalar)
      } else if case let tags = flagTagCount(scalars, at: index), tags > 0 {
        flagTagsThrough = index + tags
        piece = String(scalar)
      } else if (doublingBackslashes && scalar == "\\") || (quote && scalar == "\"") {
        piece = "\\" + String(scalar)
      } else if index > 0, index + 1 < scalars.count, isJoiner(scalar, between: scalars[index - 1], scalars[index + 1]) {
        // A joiner where writing needs it (👨‍👩‍👧, Persian): shown as the Inbox keeps it.
        piece = String(scalar)
      } else if let byte = FileNameText.rawByte(scalar) {
        // A byte of a file name that is not UTF-8 (see `FileNameText`).
        piece = "\\x" + String(byte, radix: 16, uppercase: true)
      } else if needsEscape(scalar) {
        piece = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        piece = String(scalar)
      }
      let length = piece.unicodeScalars.count
      if count + length > maximumLength {
        result += "…"
        break
      }
      result += piece
      count += length
    }
    return result
  }

  /// Whether `escaped` writes `scalar` as `\u{XX}`: a control character, or one drawn as
  /// nothing or that changes how the text around it is drawn.
  package static func isHidden(_ scalar: Unicode.Scalar) -> Bool { needsEscape(scalar) }

  private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: return true
    case 0x2028, 0x2029: return true
    // Drawn as nothing, so a name with one looks like the name without (review 13): the braille
    // blank, and the default-ignorable letters (Hangul fillers) and marks; a variation selector
    // is left alone (an emoji's ❤️ keeps its look).
    case 0x2800: return true
    case 0xFE00...0xFE0F, 0xE0100...0xE01EF: return false
    case _ where scalar.properties.isDefaultIgnorableCodePoint: return true
    default: break
    }
    switch scalar.properties.generalCategory {
    case .format, .control, .surrogate, .privateUse, .unassigned: return true
    default: return false
    }
  }
}
