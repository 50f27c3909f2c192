import Foundation
import Glibc
import ShareKit

/// Every subcommand, in the order `share help` lists them.
var allCommands: [any Command.Type] { [
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
  IdCommand.self,
  HelpCommand.self,
] }

/// Finds the command, parses its arguments, runs it, and turns what it throws into the
/// product's error lines and exit codes.
public enum Entrypoint {
  /// The process's entry point (`main.swift`): takes the signals before any other thread
  /// exists, runs the command line and returns the exit status.
  public static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
    signal(SIGPIPE, SIG_IGN)
    Signals.start()
    return main(arguments, environment: environment, console: StandardConsole()).rawValue
  }

  /// Runs one command line, writing to `console`: what `share` does, without the process
  /// set-up (tests call it in process).
  static func main(_ arguments: [String], environment: [String: String], console: any Console) -> ExitCode {
    // Global options may come before the command: `share --home DIR send ...`.
    var leading: [String] = []
    var homeWithoutValue = false
    var rest = arguments[...]
    while let first = rest.first, first.hasPrefix("-"), first != "-" {
      leading.append(first)
      rest = rest.dropFirst()
      if first == "--home" {
        guard let value = rest.first else {
          homeWithoutValue = true
          break
        }
        leading.append(value)
        rest = rest.dropFirst()
      }
    }
    let words = Array(rest)
    let terminal = Terminal(environment: environment, verbose: leading.contains("--verbose") || leading.contains("-v"), console: console)

    if words.isEmpty {
      if leading.contains("--version") {
        terminal.out("share \(shareVersion)")
        return .success
      }
      if leading.isEmpty || leading.contains("--help") || leading.contains("-h") {
        terminal.out(Help.overview(allCommands))
        return .success
      }
      let message = homeWithoutValue ? "--home needs a value (DIR)" : "missing command"
      terminal.error(message)
      terminal.err("Usage: share <command> [options]\n  See 'share help' for the list of commands.")
      return .usage
    }
    guard let (command, consumed) = find(words) else {
      let word = words.first ?? leading.first ?? ""
      var message = "unknown command '\(escape(word))'"
      let names = Set(allCommands.map { $0.spec.path[0] })
      if let suggestion = closest(to: word, among: Array(names).sorted()) { message += "; did you mean '\(suggestion)'?" }
      terminal.error(message)
      terminal.err("Usage: share <command> [options]\n  See 'share help' for the list of commands.")
      return .usage
    }
    let spec = command.spec
    let group = Array(words[0..<consumed])
    let subcommands = allCommands.map { $0.spec.path }.filter { $0.count == consumed + 1 && $0.starts(with: group) }.map { $0[consumed] }
    if !subcommands.isEmpty, spec.arguments.upperBound == 0, consumed < words.count, !words[consumed].hasPrefix("-") {
      var message = "unknown subcommand '\(escape(words[consumed]))' of 'share \(group.joined(separator: " "))'"
      if let suggestion = closest(to: words[consumed], among: subcommands) { message += "; did you mean '\(suggestion)'?" }
      terminal.error(message)
      terminal.err(Help.usage(for: spec))
      return .usage
    }
    do {
      let parsed = try ParsedArguments.parse(leading + Array(words[consumed...]), spec: spec)
      if parsed.flag("--help") {
        terminal.out(Help.text(for: spec))
        return .success
      }
      let context = CommandContext(arguments: parsed, environment: environment, console: console)
      return try command.run(parsed, context)
    } catch let error as UsageError {
      terminal.error(error.message)
      terminal.err(Help.usage(for: error.spec ?? spec))
      return .usage
    } catch let error as ShareError {
      terminal.error(error.description, detail: error.detail)
      return .failure
    } catch {
      let wrapped = ShareError.wrap(error)
      terminal.error(wrapped.description, detail: wrapped.detail)
      return .failure
    }
  }

  /// The command whose path is the longest prefix of `words`, and how many words it used.
  /// `share inbox` alone is `share inbox list`.
  static func find(_ words: [String]) -> (any Command.Type, Int)? {
    let matches = allCommands.filter { words.starts(with: $0.spec.path) }
    if words.first == "inbox", matches.isEmpty { return (InboxListCommand.self, 1) }
    if words.first == "trust", matches.isEmpty { return (TrustListCommand.self, 1) }
    guard let best = matches.max(by: { $0.spec.path.count < $1.spec.path.count }) else { return nil }
    return (best, best.spec.path.count)
  }
}

/// The version printed by `share --version`.
let shareVersion = "0.1.0"
