/// `share version`: the same line as `share --version` and `share -V`.
enum VersionCommand: Command {
  static let spec = CommandSpec(
    path: ["version"], summary: "Print the version of share (also: share --version, share -V)",
    usage: ["version"], examples: ["share version"], home: .unused)

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    context.terminal.out("share \(shareVersion)")
    return .success
  }
}
