import Testing

@testable import ShareCLI

/// The completion scripts come from the declarations: every command, subcommand, option and
/// value kind is in each script, under its own command, so an option added without completions
/// (or a generator that forgets one) fails here. The shells run them in EndToEndTests.
@Suite struct CompletionScriptTests {
  static let tree = CompletionTree.share

  @Test(arguments: CompletionShell.allCases)
  func everyCommandOptionAndArgumentIsInTheScriptUnderItsCommand(shell: CompletionShell) throws {
    let run = share(["completions", shell.rawValue])
    #expect(run.code == .success && run.err.isEmpty, "\(run)")
    for command in CommandLineModel.commands {
      let branch = try #require(Self.branch(command.path, in: run.out, shell: shell), "\(shell): no branch for 'share \(command.name)'")
      for name in command.allOptions.flatMap(\.names) {
        #expect(Self.offers(name, in: branch, shell: shell), "\(shell): 'share \(command.name)' does not offer \(name)")
      }
      for index in 0..<min(command.arguments.upperBound, 2) {
        let token = try #require(command.argumentKind(at: index).map { CompletionAction($0).token })
        #expect(branch.contains(Self.argument(token, shell: shell)), "\(shell): 'share \(command.name)' argument \(index) is not \(token)")
      }
      let parent = try #require(Self.branch(Array(command.path.dropLast()), in: run.out, shell: shell))
      #expect(parent.contains(Self.child(command.path.last ?? "", shell: shell)), "\(shell): '\(command.name)' is not offered")
    }
    let top = try #require(Self.branch([], in: run.out, shell: shell))
    for name in CommandLineModel.topLevelOptions.flatMap(\.names) { #expect(Self.offers(name, in: top, shell: shell)) }
    #expect(!top.contains("__complete"), "\(shell): the hidden command is offered")
  }

  @Test(arguments: CompletionShell.allCases)
  func everyValuedOptionSaysWhatItsValueIs(shell: CompletionShell) {
    let script = shell.script(Self.tree)
    for command in CommandLineModel.commands {
      for option in command.allOptions {
        guard let kind = option.kind else { continue }
        let token = CompletionAction(kind).token
        let line =
          switch shell {
          case .bash: "  \(ShellQuoting.posix(option.long))) _share_action=\(ShellQuoting.posix(token)) ;;"
          case .zsh: "  (\(ShellQuoting.posix(option.long))) _share_action=\(ShellQuoting.posix(token)) ;;"
          case .fish: "    case \(ShellQuoting.fish(option.long))\n        echo \(ShellQuoting.fish(token))"
          }
        #expect(script.contains(line), "\(shell): \(option.long) of 'share \(command.name)' is not \(token)")
      }
    }
  }

  /// The drivers skip an option's value by its name alone, wherever it is.
  @Test func theSameOptionNameAlwaysTakesTheSameKindOfValue() {
    var seen: [String: (action: CompletionAction?, command: String)] = [:]
    for command in CommandLineModel.commands {
      for option in command.allOptions {
        let action = option.kind.map(CompletionAction.init)
        for name in option.names {
          if let earlier = seen[name] {
            #expect(earlier.action == action, "\(name): \(earlier.command) and \(command.name) disagree")
          }
          seen[name] = (action, command.name)
        }
      }
    }
  }

  @Test func choicesAreWordsTheScriptsCanHoldAsOneToken() {
    for node in Self.tree.nodes {
      for action in node.arguments + node.options.compactMap({ $0.kind.map(CompletionAction.init) }) {
        guard case .words(let words) = action else { continue }
        for word in words {
          #expect(!word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || ".-_".contains($0) }, "\(word)")
        }
      }
    }
  }

  @Test func eachValueIsOfferedWhatItIs() throws {
    func node(_ path: String...) throws -> CompletionTree.Node {
      try #require(Self.tree.nodes.first { $0.path == path }, "no node \(path)")
    }
    func value(_ name: String) -> CompletionAction? { Self.tree.valuedOptions.first { $0.name == name }?.action }
    #expect(value("--to") == .dynamic(.peers))
    #expect(value("--mode") == .words(["off", "contacts", "everyone"]))
    #expect(value("--for") == .words(CompletionAction.durations))
    #expect(value("--home") == .directories)
    #expect(value("--on-receive") == .executables)
    #expect(value("--port") == .nothing)
    #expect(value("--json") == nil, "a flag takes no value")
    #expect(try node("receive").arguments == [.words(["off", "contacts", "everyone"])])
    #expect(try node("send").arguments.first == .files && node("send").maximumArguments == Int.max)
    #expect(try node("inbox", "move").arguments == [.dynamic(.inbox), .files])
    #expect(try node("inbox", "delete").arguments.allSatisfy { $0 == .dynamic(.inbox) })
    #expect(try node("trust", "remove").arguments == [.dynamic(.contacts)])
    #expect(try node("accept").arguments == [.dynamic(.asks)])
    #expect(try node("types", "show").arguments == [.dynamic(.types)])
    #expect(try node("help").arguments.first == .commands)
    #expect(try node("completions").arguments == [.words(["bash", "zsh", "fish"])])
    #expect(try node("inbox").children.map(\.name) == ["list", "show", "move", "delete"])
    #expect(try node("inbox").options.map(\.long).contains("--json"), "'share inbox' runs 'inbox list'")
    #expect(try Set(node("types").children.map(\.name)).isSuperset(of: ["show", "check"]))
  }

  @Test func anUnknownShellIsAUsageError() {
    let run = share(["completions", "tcsh"])
    #expect(run.code == .usage && run.out.isEmpty)
    #expect(run.errLines.first == "Error: the shell is bash, zsh or fish, not 'tcsh'", "\(run)")
  }

  // MARK: Reading the scripts

  /// The lines of one command's entry in the script's node table.
  static func branch(_ path: [String], in script: String, shell: CompletionShell) -> String? {
    let name = path.joined(separator: " ")
    let (label, nextLabel) =
      switch shell {
      case .bash: ("  \(ShellQuoting.posix(name)))", { (line: String) in line.hasPrefix("  '") || line.hasPrefix("  *)") })
      case .zsh: ("  (\(ShellQuoting.posix(name)))", { (line: String) in line.hasPrefix("  (") })
      case .fish: ("    case \(ShellQuoting.fish(name))", { (line: String) in line.hasPrefix("    case ") })
      }
    let lines = script.split(separator: "\n").map(String.init)
    guard let start = lines.firstIndex(of: label) else { return nil }
    let body = lines[(start + 1)...].prefix { !nextLabel($0) }
    return body.joined(separator: "\n")
  }

  /// Whether a command's entry lists the option name.
  static func offers(_ name: String, in branch: String, shell: CompletionShell) -> Bool {
    switch shell {
    case .bash:
      let prefix = "    _share_options=("
      guard let line = branch.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return false }
      return line.dropFirst(prefix.count).dropLast().split(separator: " ").contains { $0 == name }
    case .zsh: return branch.contains("'\(name):")
    case .fish: return branch.contains("option '\(name)'")
    }
  }

  static func child(_ name: String, shell: CompletionShell) -> String {
    switch shell {
    case .bash: "'\(name)'"
    case .zsh: "'\(name):"
    case .fish: "child '\(name)'"
    }
  }

  static func argument(_ token: String, shell: CompletionShell) -> String {
    switch shell {
    case .bash, .zsh: ShellQuoting.posix(token)
    case .fish: "argument \(ShellQuoting.fish(token))"
    }
  }
}
