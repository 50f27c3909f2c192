import Foundation

/// Text made safe for roff (man(7)), and the Markdown inline marks the README's prose uses
/// (`code`, **strong**, *emphasis*, [links](target)) turned into roff fonts.
enum Roff {
  /// `text` with roff's special characters escaped: a backslash, a dash that starts a word (an
  /// option: `\-\-to`, so it prints as a minus and can be copied; every dash in `literal` text),
  /// and anything outside ASCII as a named Unicode character (`\[u2014]`), so groff needs no
  /// input encoding. `previous` is the character before `text`, for the word-start rule.
  static func escape(_ text: String, literal: Bool = false, after previous: Character? = nil) -> String {
    var result = ""
    var previous = previous
    for character in text {
      switch character {
      case "\\": result += #"\e"#
      case "-" where literal || !(previous.map(isWordCharacter) ?? false): result += #"\-"#
      default:
        if character.isASCII {
          result.append(character)
        } else {
          for scalar in character.unicodeScalars { result += #"\[u"# + hex(scalar.value) + "]" }
        }
      }
      previous = character
    }
    return result
  }

  /// A text line as roff input: one that would start with `.` or `'` (a request) is guarded.
  static func textLine(_ line: String) -> String {
    line.hasPrefix(".") || line.hasPrefix("'") ? #"\&"# + line : line
  }

  /// A macro's argument in double quotes (a quote inside it doubled, as groff reads it).
  static func quoted(_ text: String) -> String {
    "\"" + escape(text).replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  static func bold(_ roff: String) -> String { #"\fB"# + roff + #"\fR"# }
  static func italic(_ roff: String) -> String { #"\fI"# + roff + #"\fR"# }

  /// How a link is shown: given its text (already roff) and its target, the roff to print.
  typealias LinkStyle = (_ label: String, _ target: String) -> String

  /// Markdown inline text as roff: `code` and **strong** in bold, *emphasis* in italics, a link
  /// as `link` shows it (by default its text alone). Anything else is text.
  static func inline(_ markdown: String, link: LinkStyle = { label, _ in label }) -> String {
    var result = ""
    var rest = Substring(markdown)
    var previous: Character? = nil
    while let first = rest.first {
      if let (roff, consumed) = mark(in: rest, link: link) {
        result += roff
        previous = rest[rest.index(before: consumed)]
        rest = rest[consumed...]
      } else {
        result += escape(String(first), after: previous)
        previous = first
        rest = rest.dropFirst()
      }
    }
    return result
  }

  /// The inline mark that `text` starts with, as roff, and where it ends.
  private static func mark(in text: Substring, link: LinkStyle) -> (String, Substring.Index)? {
    if text.hasPrefix("`"), let end = text.dropFirst().firstIndex(of: "`") {
      return (bold(escape(String(text[text.index(after: text.startIndex)..<end]), literal: true)), text.index(after: end))
    }
    if text.hasPrefix("**"), let end = text.dropFirst(2).range(of: "**") {
      return (bold(inline(String(text[text.index(text.startIndex, offsetBy: 2)..<end.lowerBound]), link: link)), end.upperBound)
    }
    if text.hasPrefix("*"), text.dropFirst().first.map({ !$0.isWhitespace && $0 != "*" }) ?? false,
      let end = text.dropFirst().firstIndex(of: "*")
    {
      return (italic(inline(String(text[text.index(after: text.startIndex)..<end]), link: link)), text.index(after: end))
    }
    if text.hasPrefix("["), let close = text.range(of: "]("), let end = text[close.upperBound...].firstIndex(of: ")") {
      let label = inline(String(text[text.index(after: text.startIndex)..<close.lowerBound]), link: link)
      return (link(label, String(text[close.upperBound..<end])), text.index(after: end))
    }
    return nil
  }

  private static func isWordCharacter(_ character: Character) -> Bool {
    character.isLetter || character.isNumber || character == "_"
  }

  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
