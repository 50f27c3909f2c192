import Glibc
import ShareKit

/// Every subcommand, in the order `share help` lists them.
let allCommands: [any Command.Type] = [
  SendCommand.self,
  PeersCommand.self,
  DaemonCommand.self,
  InboxListCommand.self,
  InboxShowCommand.self,
  InboxMoveCommand.self,
  InboxDeleteCommand.self,
  StatusCommand.self,
  ReceiveCommand.self,
  RequestsCommand.self,
  AcceptCommand.self,
  DeclineCommand.self,
  PairCommand.self,
  TrustListCommand.self,
  TrustAddCommand.self,
  TrustRemoveCommand.self,
  TrustForgetCommand.self,
  TypesCommand.self,
  TypesShowCommand.self,
  TypesCheckCommand.self,
  TypesAcceptCommand.self,
  TypesExcludeCommand.self,
  TypesForgetCommand.self,
  TypesResetCommand.self,
  IdCommand.self,
  CompletionsCommand.self,
  ManCommand.self,
  NameCommand.self,
  VersionCommand.self,
  HelpCommand.self,
  CompleteCommand.self,
]

/// The whole command line as data, for generators of shell completions and the man page: the
/// same declarations that parsing and help read.
package enum CommandLineModel {
  /// What share is, in a line (help's overview, the man page's NAME).
  package static let abstract = "send files, folders, links and text to nearby Linux machines over TLS 1.3"
  /// Every command, in the order `share help` lists them (not the hidden ones).
  package static var commands: [CommandSpec] { allCommands.map { $0.spec }.filter { !$0.hidden } }
  /// Options every command accepts.
  package static var globalOptions: [OptionSpec] { GlobalOptions.specs }
  /// Options accepted only before any command (`share --version`).
  package static var topLevelOptions: [OptionSpec] { [GlobalOptions.version.spec] }
  package static var exitCodes: [ExitCode] { ExitCode.allCases }
  /// The text `share help` prints.
  package static var overview: String { Help.overview(commands) }
  /// The text `share help COMMAND` prints.
  package static func help(for command: CommandSpec) -> String { Help.text(for: command) }
}

/// Finds the command, parses its arguments, runs it, and turns what it throws into the
/// product's error lines and exit codes.
package enum Entrypoint {
  /// The process's entry point (`main.swift`): `run` with the process's own arguments, each
  /// exactly as given (`commandArguments`: a file name that is not UTF-8 keeps its bytes).
  package static func run(environment: [String: String]) -> Int32 {
    StandardStream.occupyClosedDescriptors()
    return run(Array(commandArguments().dropFirst()), environment: environment)
  }

  /// Takes the signals before any other thread exists, runs the command line and returns the
  /// exit status.
  package static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
    if let status = HookRunner.serveIfAsked(environment: environment) { return status }
    signal(SIGPIPE, SIG_IGN)
    Signals.start()
    let code = main(arguments, environment: environment, console: StandardConsole())
    guard let failure = StandardStream.outputFailure else { return code.rawValue }
    StandardStream.error.write("Error: cannot write to standard output: \(failure)\n")
    return code == .success ? ExitCode.failure.rawValue : code.rawValue
  }

  /// Runs one command line, writing to `console`: what `share` does, without the process
  /// set-up (tests call it in process).
  static func main(_ arguments: [String], environment: [String: String], console: any Console) -> ExitCode {
    let line = hoistingGlobalOptions(Invocation(arguments))
    let terminal = Terminal(environment: environment, verbose: line.verbose, console: console)
    guard !line.words.isEmpty else { return withoutCommand(line, terminal: terminal) }
    // Review 30: `share -V inbox` answered "did you mean '-v'?" for an option share documents.
    if let version = line.options.first(where: GlobalOptions.version.spec.names.contains) {
      return usageError(
        "\(version) prints the version and takes no command: 'share \(version)' (-v, lower case, adds detail to errors)",
        usage: overviewUsage, terminal: terminal)
    }
    guard let (command, consumed) = find(line.words) else {
      let word = line.words.first ?? ""
      // `share --to lab-b send x` took lab-b for the command (review 30).
      let known = (GlobalOptions.specs + [GlobalOptions.version.spec]).flatMap(\.names)
      if let option = line.options.first(where: { !known.contains(String($0.prefix { $0 != "=" })) }) {
        return usageError(
          "'\(escape(option))' before the command is no global option; a command's options come after it ('share send FILE --to PEER')",
          usage: overviewUsage, terminal: terminal)
      }
      var message = "unknown command '\(escape(word))'"
      if let suggestion = closest(to: word, among: topLevelNames) { message += "; did you mean '\(suggestion)'?" }
      return usageError(message, usage: overviewUsage, terminal: terminal)
    }
    let spec = command.spec
    if let unknown = unknownSubcommand(line.words, consumed: consumed, spec: spec) {
      return usageError(unknown, usage: Help.usage(for: spec), terminal: terminal)
    }
    let parsed: ParsedArguments
    do {
      parsed = try ParsedArguments.parse(line.leading + Array(line.words[consumed...]), spec: spec)
    } catch {
      // A line that asked for events gets its usage error as one, whatever the parser could
      // not make of the rest (review 45: an unknown option printed nothing on stdout).
      if let stream = command as? any EventStreamCommand.Type,
        (line.leading + line.words[consumed...]).prefix(while: { $0 != "--" }).contains(where: stream.json.spec.names.contains)
      {
        terminal.out(JSONOutput.line(ErrorEvent(message: error.message, exitCode: ExitCode.usage.rawValue)))
      }
      return usageError(error.message, usage: Help.usage(for: error.spec ?? spec), terminal: terminal)
    }
    if parsed[GlobalOptions.help] {
      terminal.out(Help.text(for: spec))
      return .success
    }
    // A command whose --json is a stream of events reports its failure as one more event.
    let events = (command as? any EventStreamCommand.Type).map { parsed[$0.json] } ?? false
    do {
      var context = CommandContext(arguments: parsed, environment: environment, console: console, commandLine: arguments)
      context.homeUse = spec.home
      return try command.run(parsed, context)
    } catch let error as UsageError {
      if events { terminal.out(JSONOutput.line(ErrorEvent(message: error.message, exitCode: ExitCode.usage.rawValue))) }
      return usageError(error.message, usage: Help.usage(for: error.spec ?? spec), terminal: terminal)
    } catch {
      let wrapped = ShareError.wrap(error)
      if events { terminal.out(JSONOutput.line(ErrorEvent(message: wrapped.description, exitCode: ExitCode.failure.rawValue))) }
      terminal.error(wrapped.description, detail: wrapped.detail)
      return .failure
    }
  }

  /// `share`, `share --help`, `share --version`, or global options and no command.
  private static func withoutCommand(_ line: Invocation, terminal: Terminal) -> ExitCode {
    if line.leading.contains(where: GlobalOptions.version.spec.names.contains) {
      terminal.out("share \(shareVersion)")
      return .success
    }
    if line.leading.isEmpty || line.leading.contains(where: GlobalOptions.help.spec.names.contains) {
      terminal.out(Help.overview(CommandLineModel.commands))
      return .success
    }
    var message = line.homeWithoutValue ? "\(GlobalOptions.home.spec.long) needs a value (DIR)" : "missing command"
    // `share --bogus` said "missing command" (review 26).
    let known = (GlobalOptions.specs + [GlobalOptions.version.spec]).flatMap(\.names)
    if let unknown = line.options.first(where: { !known.contains(String($0.prefix { $0 != "=" })) }) {
      message = "unknown option '\(unknown)'"
    }
    return usageError(message, usage: overviewUsage, terminal: terminal)
  }

  /// `line` with the global options written between a group and its subcommand (`share inbox
  /// --home DIR show x`, `share trust -v list`) moved before the group, where they mean the
  /// same, so that the subcommand is found (review 30: "unexpected argument 'show'").
  static func hoistingGlobalOptions(_ line: Invocation) -> Invocation {
    var line = line
    let globals = GlobalOptions.specs.flatMap(\.names)
    while let (_, consumed) = find(line.words), consumed < line.words.count,
      allCommands.contains(where: { $0.spec.path.count > consumed && $0.spec.path.starts(with: line.words[..<consumed]) }),
      case let word = line.words[consumed], globals.contains(String(word.prefix { $0 != "=" }))
    {
      let taken = word == GlobalOptions.home.spec.long ? 2 : 1
      guard consumed + taken <= line.words.count else { break }
      line.leading += line.words[consumed..<consumed + taken]
      line.words.removeSubrange(consumed..<consumed + taken)
    }
    return movingSubcommandFlags(line)
  }

  /// `share inbox --json show X`: flags of the subcommand written before it (review 32: a usage
  /// error, "unexpected argument 'show'", while completion offered that order) go after it.
  static func movingSubcommandFlags(_ line: Invocation) -> Invocation {
    var line = line
    guard let (_, consumed) = find(line.words), consumed < line.words.count, line.words[consumed].hasPrefix("-"),
      let at = line.words[consumed...].firstIndex(where: { !$0.hasPrefix("-") }),
      let subcommand = allCommands.first(where: { $0.spec.path == Array(line.words[..<consumed]) + [line.words[at]] }),
      line.words[consumed..<at].allSatisfy({ word in subcommand.spec.options.contains { $0.isFlag && $0.names.contains(word) } })
    else { return line }
    let flags = Array(line.words[consumed..<at])
    line.words.removeSubrange(consumed..<at)
    line.words.insert(contentsOf: flags, at: consumed + 1)
    return line
  }

  /// For a group such as `share trust`: a word after it that names none of its subcommands.
  private static func unknownSubcommand(_ words: [String], consumed: Int, spec: CommandSpec) -> String? {
    let group = Array(words[0..<consumed])
    let subcommands = allCommands.map { $0.spec.path }.filter { $0.count == consumed + 1 && $0.starts(with: group) }.map { $0[consumed] }
    guard !subcommands.isEmpty, spec.arguments.upperBound == 0, consumed < words.count, !words[consumed].hasPrefix("-") else {
      return nil
    }
    var message = "unknown subcommand '\(escape(words[consumed]))' of 'share \(group.joined(separator: " "))'"
    if let suggestion = closest(to: words[consumed], among: subcommands) { message += "; did you mean '\(suggestion)'?" }
    return message
  }

  private static func usageError(_ message: String, usage: String, terminal: Terminal) -> ExitCode {
    terminal.error(message)
    terminal.err(usage)
    return .usage
  }

  private static let overviewUsage = "Usage: share <command> [options]\n  See 'share help' for the list of commands."

  /// The first word of every command, for suggestions.
  static var topLevelNames: [String] { Set(CommandLineModel.commands.map { $0.path[0] }).sorted() }

  /// The command whose path is the longest prefix of `words`, and how many words it used.
  /// `share inbox` alone is `share inbox list`; `share trust` alone is `share trust list`.
  static func find(_ words: [String]) -> (any Command.Type, Int)? {
    let matches = allCommands.filter { words.starts(with: $0.spec.path) }
    if words.first == "inbox", matches.isEmpty { return (InboxListCommand.self, 1) }
    if words.first == "trust", matches.isEmpty { return (TrustListCommand.self, 1) }
    guard let best = matches.max(by: { $0.spec.path.count < $1.spec.path.count }) else { return nil }
    return (best, best.spec.path.count)
  }
}

/// A command whose `--json` prints a stream of events (`send`, `daemon`, `peers --watch`): an
/// error that ends it is one more event, `{"event":"error","message":…,"exit_code":1}`, so a
/// script reading stdout learns why it ended.
protocol EventStreamCommand: Command {
  static var json: Flag { get }
}

extension SendCommand: EventStreamCommand {}
extension DaemonCommand: EventStreamCommand {}
extension PeersCommand: EventStreamCommand {}

/// The `--json` event for an error that ends a command.
struct ErrorEvent: Encodable {
  var event = "error"
  var message: String
  var exitCode: Int32
}

/// A command line split at the command: the global options before it (`share --home DIR send
/// …`) and the words from the command on.
struct Invocation {
  var leading: [String] = []
  var words: [String]
  /// `--home` was the last word, without its value.
  var homeWithoutValue = false

  init(_ arguments: [String]) {
    var rest = arguments[...]
    while let first = rest.first, first.hasPrefix("-"), first != "-" {
      leading.append(first)
      rest = rest.dropFirst()
      if first == GlobalOptions.home.spec.long {
        guard let value = rest.first else {
          homeWithoutValue = true
          break
        }
        leading.append(value)
        rest = rest.dropFirst()
      }
    }
    words = Array(rest)
  }

  /// The leading words that are options (not `--home`'s value).
  var options: [String] {
    leading.enumerated().filter { index, _ in index == 0 || leading[index - 1] != GlobalOptions.home.spec.long }.map(\.element)
  }

  /// `--verbose` or `-v` among the leading options.
  var verbose: Bool { leading.contains(where: GlobalOptions.verbose.spec.names.contains) }
}

/// The version printed by `share --version`.
let shareVersion = "0.1.0"
