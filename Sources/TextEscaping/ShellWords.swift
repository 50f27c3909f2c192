/// Commands share prints for a person to paste into a shell (`to resume, run: …`, `run 'share
/// trust forget NAME'`), whose words may be a path or a name from the network. A word is
/// quoted so that the shell reads it back as it is — never run, never cut — and so that it shows
/// on a terminal as printable text. Review 20: the resume line was quoted for the shell and then
/// escaped for the terminal, which doubled its backslashes and undid the quoting; pasted, a
/// file named `x'$(touch r)'y` ran `touch`.
package enum ShellWords {
  /// `word` as a shell reads it back: as it is when no shell treats any of its characters
  /// specially; in single quotes (a quote as `'\''`) when every character shows as itself; else
  /// in `$'…'` (bash, zsh, ksh, and POSIX since 2024), which spells control and invisible
  /// characters in printable ASCII (`\x1B`, `\u202E`).
  package static func quoted(_ word: String) -> String {
    if !word.isEmpty && word.unicodeScalars.allSatisfy({ $0.isASCII && isPlain($0) }) { return word }
    if !word.unicodeScalars.contains(where: Escaping.isHidden) {
      var quoted = "'"
      for character in word { quoted += character == "'" ? "'\\''" : String(character) }
      return quoted + "'"
    }
    var spelled = "$'"
    for scalar in word.unicodeScalars {
      switch scalar {
      case "\\": spelled += "\\\\"
      case "'": spelled += "\\'"
      case _ where Escaping.isHidden(scalar): spelled += spelling(scalar)
      default: spelled.unicodeScalars.append(scalar)
      }
    }
    return spelled + "'"
  }

  /// `words` as one command line.
  package static func line(_ words: [String]) -> String {
    words.map(quoted).joined(separator: " ")
  }

  /// A command to name in a sentence: between single quotes, as share's messages name
  /// commands, when none of its words needs quoting; otherwise as it is (quotes around a
  /// quoted word would be read as closing and opening ones by whoever copies them too).
  package static func suggestion(_ words: [String]) -> String {
    let line = line(words)
    return words.allSatisfy({ quoted($0) == $0 }) ? "'\(line)'" : line
  }

  private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "a"..."z", "A"..."Z", "0"..."9": return true
    default: return "-_./:=@%+,".unicodeScalars.contains(scalar)
    }
  }

  /// A character in `$'…'`: `\xHH`, `\uHHHH` or `\UHHHHHHHH`, always with every digit (the
  /// shell reads as many as it can).
  private static func spelling(_ scalar: Unicode.Scalar) -> String {
    let (prefix, digits) = scalar.value < 0x80 ? ("\\x", 2) : scalar.value <= 0xFFFF ? ("\\u", 4) : ("\\U", 8)
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return prefix + String(repeating: "0", count: digits - hex.count) + hex
  }
}
