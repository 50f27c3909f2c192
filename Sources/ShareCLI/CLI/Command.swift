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
  /// What the command does with its home: one that must exist is checked when first asked for.
  var homeUse: CommandSpec.HomeUse = .mayCreate
  /// The words after `share`, as given (to show a command to run again).
  var commandLine: [String]

  init(arguments: ParsedArguments, environment: [String: String], console: any Console, commandLine: [String] = []) {
    self.environment = environment
    self.commandLine = commandLine
    terminal = Terminal(environment: environment, verbose: arguments[GlobalOptions.verbose], console: console)
    resolvedPaths = SharePaths.resolve(home: arguments[GlobalOptions.home], environment: environment)
    namedHome = arguments[GlobalOptions.home] ?? environment["SHARE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
  }

  private var resolvedPaths: SharePaths
  /// The home given with `--home DIR` or `SHARE_HOME` (nil for the XDG locations).
  private var namedHome: String?

  /// This command's home. Asked for after the arguments are checked, so a usage error comes
  /// first; a home named with `--home` or `SHARE_HOME` that does not exist is an error unless
  /// the command sets a device up (`CommandSpec.HomeUse`): a mistyped DIR made a new, empty
  /// home even for `share inbox` (the XDG locations are made on first use by every command).
  var paths: SharePaths {
    get throws(ShareError) {
      if homeUse == .mustExist, let namedHome, !resolvedPaths.isHome {
        throw .configuration(
          "there is no share home at \(escape(namedHome)) (check --home or SHARE_HOME; 'share id' makes a new one)")
      }
      return resolvedPaths
    }
  }

  /// This home's device, its identity created on first use.
  func device(name: String? = nil) throws -> Device {
    try Device.load(paths: try paths, name: name)
  }
}
