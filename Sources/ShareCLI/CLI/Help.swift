/// Help text, derived from the command specs.
enum Help {
  /// The full help for one command.
  static func text(for spec: CommandSpec) -> String {
    var lines = ["OVERVIEW: \(spec.summary)", ""]
    let usages = spec.usage.map { "share \($0)" }
    lines.append("USAGE: " + usages.joined(separator: "\n       "))
    if !spec.discussion.isEmpty {
      lines += ["", spec.discussion]
    }
    lines += ["", "OPTIONS:"]
    lines += spec.allOptions.map(optionLine)
    if !spec.examples.isEmpty {
      lines += ["", "EXAMPLES:"]
      lines += spec.examples.map { "  \($0)" }
    }
    let others = siblings(of: spec)
    if !others.isEmpty {
      lines += ["", "ALSO ('share \(spec.path[0]) COMMAND --help' for each):"]
      lines += others.map { column("  " + $0.name, $0.summary) }
    }
    return lines.joined(separator: "\n")
  }

  /// The other commands of a group, for the help of what the group's name alone runs (`share
  /// inbox`, `share trust`, `share types`): their help said nothing of `inbox show|move|delete`
  /// or `trust add|remove` (review 16).
  static func siblings(of spec: CommandSpec) -> [CommandSpec] {
    guard spec.path.count == 1 || spec.path.last == "list" else { return [] }
    return CommandLineModel.commands.filter { $0.path.count == 2 && $0.path[0] == spec.path[0] && $0.path != spec.path }
  }

  /// The overview: every command and the exit codes.
  static func overview(_ commands: [CommandSpec]) -> String {
    var lines = [
      "OVERVIEW: share — \(CommandLineModel.abstract).",
      "",
      "USAGE: share <command> [options]",
      "",
      "COMMANDS:",
    ]
    for command in commands {
      lines.append(column("  " + command.name, command.summary))
    }
    lines += [
      "",
      "GLOBAL OPTIONS:",
    ]
    lines += GlobalOptions.specs.map(optionLine)
    lines.append(optionLine(GlobalOptions.version.spec))
    lines += [
      "",
      "EXIT CODES:",
    ]
    lines += ExitCode.allCases.map { column("  \($0.rawValue)", $0.meaning) }
    lines += [
      "",
      "See 'share help <command>' or 'share <command> --help' for detailed help.",
    ]
    return lines.joined(separator: "\n")
  }

  /// The short form after a usage error.
  static func usage(for spec: CommandSpec) -> String {
    let usages = spec.usage.map { "share \($0)" }
    return "Usage: " + usages.joined(separator: "\n       ") + "\n  See 'share help \(spec.name)' for more information."
  }

  private static func optionLine(_ option: OptionSpec) -> String {
    var names = option.short.map { "\($0), " } ?? ""
    names += option.long
    if let placeholder = option.placeholder { names += " \(placeholder)" }
    return column("  " + names, option.help + (option.repeatable ? " (repeatable)" : ""))
  }

  private static func column(_ left: String, _ right: String) -> String {
    let width = 28
    if left.count >= width - 1 { return left + "\n" + String(repeating: " ", count: width) + right }
    return left + String(repeating: " ", count: width - left.count) + right
  }
}
