import Foundation

/// Quoting for the generated shell scripts: every word taken from the declarations goes through
/// one of these, so a help text with a quote in it cannot break a script.
enum ShellQuoting {
  /// A single-quoted word for bash and zsh: `it's` → `'it'\''s'`.
  static func posix(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }

  /// A single-quoted word for fish, where a backslash and a quote are escaped inside the quotes.
  static func fish(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: #"\"#, with: #"\\"#).replacingOccurrences(of: "'", with: #"\'"#) + "'"
  }

  /// The pattern of a `case` branch for a command path: `''` for the top, else the quoted path.
  static func casePattern(_ path: String) -> String { posix(path) }
}
