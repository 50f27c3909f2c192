import ShareKit

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
  /// Whether progress bars may be drawn on stderr.
  var showsProgress: Bool
  let console: any Console
  /// `$COLUMNS`, when set to a number: the width when the terminal cannot say.
  private let environmentColumns: Int?

  init(environment: [String: String], verbose: Bool, console: any Console) {
    self.console = console
    stdoutIsTerminal = console.isTerminal(.standardOutput)
    stderrIsTerminal = console.isTerminal(.standardError)
    let dumb = environment["TERM"] == "dumb"
    colour = stderrIsTerminal && !dumb && environment["NO_COLOR"] == nil
    showsProgress = stderrIsTerminal && !dumb
    self.verbose = verbose
    environmentColumns = environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
  }

  /// The width of the terminal stderr is, in columns: what the terminal says (`TIOCGWINSZ`),
  /// else `$COLUMNS`, else 80. Read afresh each time, so a resized window is followed.
  var columns: Int { console.columns(.standardError) ?? environmentColumns ?? 80 }

  /// The width of the terminal stdout is, alike (for tables).
  var outputColumns: Int { console.columns(.standardOutput) ?? environmentColumns ?? 80 }

  /// Writes a line of data to stdout.
  func out(_ line: String) { console.write(line + "\n", to: .standardOutput) }

  /// Writes a line to stderr.
  func err(_ line: String) { console.write(line + "\n", to: .standardError) }

  /// Writes text to stderr as it is: a prompt, or progress bars redrawn in place.
  func errRaw(_ text: String) { console.write(text, to: .standardError) }

  /// Writes a warning to stderr.
  func warn(_ line: String) { err(paint("Warning: ", .yellow) + line) }

  /// An error to stderr in the product's one-sentence form, with detail under `--verbose`.
  func error(_ message: String, detail: String? = nil) {
    err(paint("Error: ", .red) + message)
    if verbose, let detail, detail != message { err("  detail: \(detail)") }
  }

  enum Colour: String {
    case red = "31"
    case green = "32"
    case yellow = "33"
    case dim = "2"
    case bold = "1"
  }

  /// Wraps text in an ANSI colour when colour is on.
  func paint(_ text: String, _ colour: Colour) -> String {
    self.colour ? "\u{1b}[\(colour.rawValue)m\(text)\u{1b}[0m" : text
  }
}

/// Makes an untrusted string safe to print: control characters (C0, DEL, C1), escape sequences,
/// invisible format characters (bidi overrides) are shown as `\u{…}` escapes, a backslash is
/// doubled so an escape cannot be forged, and the result is cut as `PeerText` cuts (at
/// `PeerText.displayLength` characters, then `…`), so a peer's 256 escape characters cannot
/// fill a screen.
func escape(_ text: String) -> String {
  Escaping.escaped(text, maximumLength: PeerText.displayLength)
}

/// A reason this home's own daemon or type rules made (a refusal, a failure), shown as it was
/// made: the names in it were escaped then, and escaping them again doubled their backslashes
/// (`Q3\\\\b.sh` for `Q3\\b.sh`); anything raw in it is still escaped (`Escaping.made`). Never for a
/// peer's text, whose backslashes must stay doubled so that it cannot forge an escape.
func made(_ reason: PeerText) -> String {
  Escaping.made(reason.unescaped, maximumLength: PeerText.displayLength)
}
