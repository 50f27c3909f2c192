import Foundation

/// `share man`: the manual page share(1) in roff, generated from the same declarations as help
/// and the README's prose.
enum ManCommand: Command {
  static let spec = CommandSpec(
    path: ["man"], summary: "Print the manual page share(1) (roff)",
    usage: ["man"],
    discussion: """
      Prints share(1) as roff, made from the same declarations as this help and from the
      README's prose for the concepts (modes, declarations, the Inbox, files, environment). The
      Debian package and 'scripts/install.sh --user' install it; to read it without installing:
      share man | man -l -
      With SOURCE_DATE_EPOCH set (a reproducible build), the page is dated from it.
      """,
    examples: ["share man | man -l -", "share man > share.1"], home: .unused)

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let page = ManPage.render(
      commands: CommandLineModel.commands, prose: .embedded, version: shareVersion,
      date: date(sourceDateEpoch: context.environment["SOURCE_DATE_EPOCH"]))
    context.terminal.console.write(page, to: .standardOutput)
    return .success
  }

  /// `YYYY-MM-DD` (UTC) of a `SOURCE_DATE_EPOCH`, or nothing without one.
  static func date(sourceDateEpoch: String?) -> String {
    guard let text = sourceDateEpoch, let seconds = Int(text) else { return "" }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
  }
}
