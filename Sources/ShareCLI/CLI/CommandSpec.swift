/// Describes one command: its options, arguments and help. Parsing, help text, and (generated
/// from `CommandLineModel`) shell completions and the man page are all derived from it, so they
/// cannot drift apart.
package struct CommandSpec: Sendable {
  /// The words after `share`, e.g. `["inbox", "move"]`.
  package var path: [String]
  /// One line for command lists.
  package var summary: String
  /// Usage lines after `share`, e.g. `send PATH... [--to PEER]`.
  package var usage: [String]
  /// Paragraphs after the usage.
  package var discussion: String
  /// This command's own options, in the order help lists them (the global ones follow).
  package var options: [OptionSpec]
  /// Bounds on positional arguments.
  package var arguments: ClosedRange<Int>
  /// What the positional arguments are (nil when it takes none).
  package var argumentKind: ValueKind?
  /// What the arguments after the first are, when they differ from it (`inbox move ITEM DEST`).
  package var laterArgumentKind: ValueKind?
  /// Not listed in help, completions or the man page (`share __complete`, for the completions).
  package var hidden: Bool
  /// Examples shown in help.
  package var examples: [String]
  /// What the command does with its home (`--home DIR` or `SHARE_HOME`).
  package var home: HomeUse

  package init(
    path: [String], summary: String, usage: [String], discussion: String = "", options: [any OptionDeclaration] = [],
    arguments: ClosedRange<Int> = 0...0, argumentKind: ValueKind? = nil, laterArgumentKind: ValueKind? = nil,
    examples: [String] = [], home: HomeUse = .mustExist, hidden: Bool = false
  ) {
    self.path = path
    self.summary = summary
    self.usage = usage
    self.discussion = discussion
    self.options = options.map(\.spec)
    self.arguments = arguments
    self.argumentKind = argumentKind ?? (arguments.upperBound > 0 ? .text : nil)
    self.laterArgumentKind = laterArgumentKind
    self.examples = examples
    self.home = home
    self.hidden = hidden
  }

  package var name: String { path.joined(separator: " ") }

  /// Whether a command may be the first in a home that does not exist yet: one named with
  /// `--home DIR` (or `SHARE_HOME`) must exist for any other, so that a mistyped DIR is an
  /// error rather than a new, empty home whose Inbox, contacts and identity are not the user's.
  package enum HomeUse: Sendable {
    /// Makes the home when it is missing: the commands that set a device up (`daemon`, `send`,
    /// `id`, `name`, `pair`, `trust add`, `types accept|exclude`).
    case mayCreate
    /// Reads or changes a home that must be there already.
    case mustExist
    /// Never looks at a home (`help`, `version`, `man`, `completions`).
    case unused
  }

  /// What the positional argument at `index` (from 0) is; nil past the last one it takes.
  package func argumentKind(at index: Int) -> ValueKind? {
    guard index < arguments.upperBound else { return nil }
    return index == 0 ? argumentKind : laterArgumentKind ?? argumentKind
  }

  /// Every option this command accepts: its own, then the global ones.
  package var allOptions: [OptionSpec] { options + GlobalOptions.specs }

  /// Whether `option` is one this command accepts.
  func accepts(_ option: OptionSpec) -> Bool { allOptions.contains { $0.long == option.long } }
}
