/// `share help [COMMAND...]`: the overview, or one command's help (the same text as `--help`).
enum HelpCommand: Command {
  static let spec = CommandSpec(
    path: ["help"], summary: "Show help for share or for one command",
    usage: ["help [COMMAND...]"], arguments: 0...3, argumentKind: .command, home: .unused)

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let words = arguments.positionals
    if words.isEmpty {
      context.terminal.out(Help.overview(CommandLineModel.commands))
      return .success
    }
    guard let (command, consumed) = Entrypoint.find(words), consumed == words.count || words == ["inbox"] else {
      var message = "no command '\(escape(words.joined(separator: " ")))'"
      if let suggestion = closest(to: words[0], among: allCommands.map { $0.spec.path[0] }) {
        message += "; did you mean '\(suggestion)'?"
      }
      throw UsageError(message, spec: spec)
    }
    context.terminal.out(Help.text(for: command.spec))
    return .success
  }
}
