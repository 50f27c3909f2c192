import Foundation
import ShareKit

/// One subcommand of `share`: a spec (parsing and help) and what it does.
protocol Command {
  static var spec: CommandSpec { get }
  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode
}

/// What every command gets: the environment, the terminal, and its home's paths.
struct CommandContext {
  var environment: [String: String]
  var terminal: Terminal
  var paths: SharePaths
  /// The words after `share`, as given (to show a command to run again).
  var commandLine: [String]

  init(arguments: ParsedArguments, environment: [String: String], console: any Console, commandLine: [String] = []) {
    self.environment = environment
    self.commandLine = commandLine
    terminal = Terminal(environment: environment, verbose: arguments[GlobalOptions.verbose], console: console)
    paths = SharePaths.resolve(home: arguments[GlobalOptions.home], environment: environment)
  }

  /// This home's device, its identity created on first use.
  func device(name: String? = nil) throws -> Device {
    try Device.load(paths: paths, name: name)
  }
}
