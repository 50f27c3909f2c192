/// `share completions bash|zsh|fish`: the shell completion script, generated from the same
/// declarations as help.
enum CompletionsCommand: Command {
  static let spec = CommandSpec(
    path: ["completions"], summary: "Print the shell completion script for bash, zsh or fish",
    usage: ["completions bash|zsh|fish"],
    discussion: """
      Prints a completion script made from the same declarations as this help: commands,
      subcommands, options and their values (modes, durations, files, and --to completed with
      the names of contacts and of peers nearby, asked of Avahi for at most a third of a second
      when Tab is pressed). The Debian package and 'scripts/install.sh --user' install them where
      each shell looks; to try one in the current shell: source <(share completions bash).
      """,
    arguments: 1...1, argumentKind: .choice(CompletionShell.allCases.map(\.rawValue)),
    examples: [
      "source <(share completions bash)",
      "share completions zsh > ~/.zfunc/_share",
      "share completions fish > ~/.config/fish/completions/share.fish",
    ], home: .unused)

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    guard let shell = CompletionShell(rawValue: arguments.positionals[0]) else {
      throw UsageError("the shell is bash, zsh or fish, not '\(escape(arguments.positionals[0]))'", spec: spec)
    }
    context.terminal.console.write(shell.script(.share), to: .standardOutput)
    return .success
  }
}

/// The shells a completion script is made for.
enum CompletionShell: String, CaseIterable, Sendable {
  case bash, zsh, fish

  func script(_ tree: CompletionTree) -> String {
    switch self {
    case .bash: BashCompletion.script(tree)
    case .zsh: ZshCompletion.script(tree)
    case .fish: FishCompletion.script(tree)
    }
  }
}
