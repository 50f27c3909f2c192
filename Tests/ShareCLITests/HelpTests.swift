import Testing

@testable import ShareCLI

/// Help comes from the same declarations as parsing: `share help X` and `share X --help` print
/// the same text for every command, and every declared option is in it.
@Suite struct HelpTests {
  static let commands = CommandLineModel.commands

  @Test(arguments: commands.map(\.path))
  func helpCommandAndDashDashHelpPrintTheSameText(path: [String]) {
    let viaHelp = share(["help"] + path)
    let viaOption = share(path + ["--help"])
    #expect(viaHelp.code == .success && viaOption.code == .success)
    #expect(viaHelp.err.isEmpty && viaOption.err.isEmpty)
    #expect(viaHelp.out == viaOption.out)
    #expect(viaHelp.out.hasPrefix("OVERVIEW: "))
  }

  @Test(arguments: commands)
  func everyDeclaredOptionIsInTheHelpWithItsPlaceholder(command: CommandSpec) {
    let text = CommandLineModel.help(for: command)
    for option in command.allOptions {
      var names = option.short.map { "\($0), " } ?? ""
      names += option.long + (option.placeholder.map { " \($0)" } ?? "")
      #expect(text.contains("  \(names)"), "share \(command.name): no '\(names)' in its help")
      #expect(text.contains(option.help), "share \(command.name): no help for \(option.long)")
    }
  }

  @Test func theOverviewListsEveryCommandAndEveryExitCode() {
    let run = share(["help"])
    #expect(run.code == .success)
    #expect(share([]).out == run.out && share(["--help"]).out == run.out && share(["-h"]).out == run.out)
    for command in Self.commands { #expect(run.out.contains("\n  \(command.name) "), "\(command.name)") }
    for code in ExitCode.allCases { #expect(run.out.contains("  \(code.rawValue)"), "\(code)") }
    #expect(run.out == CommandLineModel.overview + "\n")
  }

  @Test func helpForAnUnknownCommandSuggestsAndExits64() {
    let run = share(["help", "sedn"])
    #expect(run.code == .usage)
    #expect(run.errLines.first == "Error: no command 'sedn'; did you mean 'send'?", "\(run)")
  }
}

/// The declarations as a model other generators walk (completions, the man page): consistent.
@Suite struct CommandLineModelTests {
  @Test(arguments: CommandLineModel.commands)
  func optionNamesAreUniqueAndEveryOptionIsDescribed(command: CommandSpec) {
    let names = command.allOptions.flatMap(\.names)
    #expect(Set(names).count == names.count, "share \(command.name) declares a name twice: \(names)")
    for option in command.allOptions {
      #expect(option.long.hasPrefix("--") && option.long.count > 3)
      #expect(option.short.map { $0.count == 2 && $0.hasPrefix("-") } ?? true)
      #expect(!option.help.isEmpty)
      #expect(option.isFlag == (option.kind == nil), "\(option.long): a value needs a kind, a flag has none")
    }
    #expect((command.argumentKind == nil) == (command.arguments.upperBound == 0), "share \(command.name)")
  }

  /// Review 16: `share inbox --help` (and trust's, types') said nothing of the group's other
  /// commands.
  @Test(arguments: ["inbox", "trust", "types"])
  func aGroupsHelpNamesItsOtherCommands(group: String) {
    let help = share([group, "--help"]).out
    let others = CommandLineModel.commands.filter { $0.path.count == 2 && $0.path[0] == group && $0.path[1] != "list" }
    #expect(!others.isEmpty)
    for other in others { #expect(help.contains("  \(other.name) "), "\(other.name) is not in:\n\(help)") }
    #expect(!share(["send", "--help"]).out.contains("ALSO"))
  }

  @Test func commandPathsAreUniqueAndHelpFindsEachOne() {
    let paths = CommandLineModel.commands.map(\.path)
    #expect(Set(paths).count == paths.count)
    for path in paths { #expect(Entrypoint.find(path)?.0.spec.path == path) }
  }
}
