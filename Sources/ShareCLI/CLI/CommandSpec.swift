/// Describes one command: its options, arguments and help. Parsing and help text are both
/// derived from it, so they cannot drift apart.
struct CommandSpec: Sendable {
  /// The words after `share`, e.g. `["inbox", "move"]`.
  var path: [String]
  /// One line for command lists.
  var summary: String
  /// Usage lines after `share`, e.g. `send PATH... [--to PEER]`.
  var usage: [String]
  /// Paragraphs after the usage.
  var discussion: String = ""
  var options: [OptionSpec] = []
  /// Bounds on positional arguments.
  var arguments: ClosedRange<Int> = 0...0
  /// Examples shown in help.
  var examples: [String] = []

  var name: String { path.joined(separator: " ") }
}

/// One option. A flag when `value` is nil; otherwise it takes a value (`--to PEER` or `--to=PEER`).
struct OptionSpec: Sendable {
  /// Long name with dashes, e.g. `--to`.
  var long: String
  /// Optional short form, e.g. `-t`.
  var short: String? = nil
  /// The value's placeholder, e.g. `PEER`; nil for a flag.
  var value: String? = nil
  /// Whether it may be given more than once.
  var repeatable: Bool = false
  var help: String

  static func flag(_ long: String, short: String? = nil, _ help: String) -> OptionSpec {
    OptionSpec(long: long, short: short, value: nil, help: help)
  }

  static func value(_ long: String, _ placeholder: String, short: String? = nil, repeatable: Bool = false, _ help: String) -> OptionSpec {
    OptionSpec(long: long, short: short, value: placeholder, repeatable: repeatable, help: help)
  }
}

/// Options every command accepts.
let globalOptions: [OptionSpec] = [
  .value("--home", "DIR", "Use DIR for identity, settings and Documents/Inbox (default: $SHARE_HOME, else XDG locations)"),
  .flag("--verbose", short: "-v", "Add technical detail to errors and logs"),
  .flag("--help", short: "-h", "Show this help"),
]
