import Foundation
import Glibc
import TextEscaping

/// Where output goes, and how it may look.
///
/// Data goes to stdout; messages, warnings and progress to stderr. Colour and progress bars only
/// when stderr is a terminal, `NO_COLOR` is unset and `TERM` is not `dumb`. Every string that
/// came from the network or the disk passes through `escape` before it is printed.
struct Terminal: Sendable {
  var stdoutIsTerminal: Bool
  var stderrIsTerminal: Bool
  var colour: Bool
  var verbose: Bool

  init(environment: [String: String], verbose: Bool) {
    stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    stderrIsTerminal = isatty(STDERR_FILENO) == 1
    let dumb = environment["TERM"] == "dumb"
    colour = stderrIsTerminal && !dumb && environment["NO_COLOR"] == nil
    self.verbose = verbose
  }

  /// Whether progress bars may be drawn on stderr.
  var showsProgress: Bool { stderrIsTerminal && !(ProcessInfo.processInfo.environment["TERM"] == "dumb") }

  /// Writes a line of data to stdout.
  func out(_ line: String) { Terminal.write(line + "\n", to: STDOUT_FILENO) }

  /// Writes a line to stderr.
  func err(_ line: String) { Terminal.write(line + "\n", to: STDERR_FILENO) }

  /// Writes a warning to stderr.
  func warn(_ line: String) { err(paint("Warning: ", .yellow) + line) }

  /// An error to stderr in the product's one-sentence form, with detail under `--verbose`.
  func error(_ message: String, detail: String? = nil) {
    err(paint("Error: ", .red) + message)
    if verbose, let detail, detail != message { err("  detail: \(detail)") }
  }

  enum Colour: String { case red = "31", green = "32", yellow = "33", dim = "2", bold = "1" }

  /// Wraps text in an ANSI colour when colour is on.
  func paint(_ text: String, _ colour: Colour) -> String {
    self.colour ? "\u{1b}[\(colour.rawValue)m\(text)\u{1b}[0m" : text
  }

  static func write(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      offset += n
    }
  }
}

/// Makes an untrusted string safe to print: control characters (C0, DEL, C1), escape sequences,
/// invisible format characters (bidi overrides) are shown as `\u{…}` escapes, a backslash is
/// doubled so an escape cannot be forged. Nothing is cut.
func escape(_ text: String) -> String {
  Escaping.escaped(text, maximumLength: Int.max)
}
