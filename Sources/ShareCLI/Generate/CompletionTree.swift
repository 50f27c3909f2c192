/// The command line as shell completion sees it: a tree of command words, each node with the
/// subcommands below it, the options it accepts and what its arguments are. Derived from
/// `CommandLineModel` alone; the bash, zsh and fish scripts are renderings of it, each with the
/// same small driver that walks the words typed so far down this tree.
struct CompletionTree: Sendable {
  /// One place in the tree: `share`, `share inbox`, `share inbox move`, ...
  struct Node: Sendable {
    /// The words after `share` (empty at the top).
    var path: [String]
    /// The subcommand words that may come next, with their summaries.
    var children: [(name: String, summary: String)]
    /// The options accepted here (for a group such as `inbox`, those of the command it runs).
    var options: [OptionSpec]
    /// What to offer for each positional argument; the last one repeats. Empty: none.
    var arguments: [CompletionAction]
    /// How many positional arguments it takes at most.
    var maximumArguments: Int

    var name: String { path.joined(separator: " ") }
  }

  /// Every node, the top (`share` alone) first, then in the order help lists the commands.
  var nodes: [Node]

  /// The tree of the commands help lists.
  static var share: CompletionTree { CompletionTree(commands: CommandLineModel.commands) }

  init(commands: [CommandSpec]) {
    var paths: [[String]] = [[]]
    for command in commands {
      for length in 1...command.path.count where !paths.contains(Array(command.path.prefix(length))) {
        paths.append(Array(command.path.prefix(length)))
      }
    }
    nodes = paths.map { path in
      let children = paths.filter { $0.count == path.count + 1 && $0.starts(with: path) }.map { child in
        (name: child[path.count], summary: CompletionTree.command(running: child, among: commands)?.summary ?? "")
      }
      guard !path.isEmpty, let command = CompletionTree.command(running: path, among: commands) else {
        return Node(
          path: path, children: children, options: CommandLineModel.globalOptions + CommandLineModel.topLevelOptions,
          arguments: [], maximumArguments: 0)
      }
      let count = min(command.arguments.upperBound, 2)
      let arguments = (0..<count).compactMap { command.argumentKind(at: $0).map(CompletionAction.init) }
      return Node(
        path: path, children: children, options: command.allOptions, arguments: arguments,
        maximumArguments: command.arguments.upperBound)
    }
  }

  /// The command that `share PATH` runs: the one declared with that path, else (a group such as
  /// `inbox`) the one the entry point picks for it.
  private static func command(running path: [String], among commands: [CommandSpec]) -> CommandSpec? {
    if let exact = commands.first(where: { $0.path == path }) { return exact }
    guard let (found, consumed) = Entrypoint.find(path), consumed == path.count else { return nil }
    return found.spec
  }

  /// Every option name anywhere in the tree that takes a value, with what to offer for it; the
  /// drivers need it to skip an option's value while walking (the same name never takes a value
  /// in one command and not in another: `theSameOptionNameIsAlwaysFlagOrAlwaysValued` checks it).
  var valuedOptions: [(name: String, action: CompletionAction)] {
    var seen: Set<String> = []
    var result: [(name: String, action: CompletionAction)] = []
    for node in nodes {
      for option in node.options {
        guard let kind = option.kind else { continue }
        for name in option.names where seen.insert(name).inserted {
          result.append((name, CompletionAction(kind)))
        }
      }
    }
    return result
  }
}

/// What a shell offers for a value or an argument.
enum CompletionAction: Sendable, Equatable {
  /// Nothing: free text, a number, an address.
  case nothing
  /// File and folder names.
  case files
  /// Folder names.
  case directories
  /// Command names on PATH.
  case executables
  /// These words.
  case words([String])
  /// What `share __complete SOURCE` prints, one a line (asked at the moment Tab is pressed).
  case dynamic(CompletionSource)
  /// The subcommands of the command path given as arguments so far (`share help inbox <Tab>`).
  case commands

  /// Examples offered for a duration.
  static let durations = ["30s", "5m", "10m", "30m", "1h", "2h"]

  init(_ kind: ValueKind) {
    switch kind {
    case .text, .number, .address, .url: self = .nothing
    case .duration: self = .words(Self.durations)
    case .path: self = .files
    case .directory: self = .directories
    case .shellCommand: self = .executables
    case .peer: self = .dynamic(.peers)
    case .contact: self = .dynamic(.contacts)
    case .inboxItem: self = .dynamic(.inbox)
    case .askID: self = .dynamic(.asks)
    case .typeIdentifier: self = .dynamic(.types)
    case .command: self = .commands
    case .choice(let words): self = .words(words)
    }
  }

  /// A one-word token for the scripts' tables: `files`, `dirs`, `cmds`, `help`, `none`,
  /// `@peers` (ask `share __complete peers`), or `=off,contacts,everyone` (these words).
  var token: String {
    switch self {
    case .nothing: "none"
    case .files: "files"
    case .directories: "dirs"
    case .executables: "cmds"
    case .commands: "help"
    case .dynamic(let source): "@" + source.rawValue
    case .words(let words): "=" + words.joined(separator: ",")
    }
  }
}

/// What `share __complete` can list, for values only known when Tab is pressed.
enum CompletionSource: String, CaseIterable, Sendable {
  /// Nearby peers (Avahi, at most ~300 ms), contacts and names sent to before.
  case peers
  /// Contacts' names.
  case contacts
  /// Items in the Inbox.
  case inbox
  /// The numbers of asks waiting in the running daemon.
  case asks
  /// Type identifiers this home's declarations name.
  case types
}
