/// What a value (of an option or a positional argument) is, for help, shell completion and the
/// man page: generators offer file names for `.path`, peer names for `.peer`, the words of
/// `.choice`, and so on.
package enum ValueKind: Sendable, Equatable {
  /// Free text.
  case text
  /// A whole number.
  case number
  /// A duration such as 90s, 10m or 2h.
  case duration
  /// A file or folder.
  case path
  /// A folder.
  case directory
  /// A device name, an ID prefix, or HOST:PORT.
  case peer
  /// A network address to listen on.
  case address
  /// A shell command.
  case shellCommand
  /// A URL.
  case url
  /// A name in this home's Inbox.
  case inboxItem
  /// A contact's name or ID prefix.
  case contact
  /// A type identifier, a file extension (.jpg) or a MIME type.
  case typeIdentifier
  /// The number of an ask (`share requests`).
  case askID
  /// A subcommand's name.
  case command
  /// One of these words.
  case choice([String])
}

/// One option as declared: the data that parsing, help, completions and the man page all read.
/// A flag when `placeholder` is nil; otherwise it takes a value (`--to PEER` or `--to=PEER`).
package struct OptionSpec: Sendable, Equatable {
  /// Long name with dashes, e.g. `--to`.
  package var long: String
  /// Optional short form, e.g. `-q`.
  package var short: String?
  /// The value's placeholder, e.g. `PEER`; nil for a flag.
  package var placeholder: String?
  /// What the value is (nil for a flag).
  package var kind: ValueKind?
  /// Whether it may be given more than once.
  package var repeatable: Bool
  package var help: String

  package var isFlag: Bool { placeholder == nil }

  /// The names it answers to: the long one, then the short one.
  package var names: [String] { [long] + (short.map { [$0] } ?? []) }
}

/// An option declared once and then looked up by the constant itself, so a misspelt lookup does
/// not compile: `static let json = Flag("--json", …)`, then `arguments[Self.json]`.
package protocol OptionDeclaration: Sendable {
  var spec: OptionSpec { get }
}

/// An option that takes no value: given or not.
package struct Flag: OptionDeclaration {
  package let spec: OptionSpec

  package init(_ long: String, short: String? = nil, _ help: String) {
    spec = OptionSpec(long: long, short: short, placeholder: nil, kind: nil, repeatable: false, help: help)
  }
}

/// An option that takes a value, once or (`repeatable`) several times.
package struct Option: OptionDeclaration {
  package let spec: OptionSpec

  package init(
    _ long: String, _ placeholder: String, short: String? = nil, kind: ValueKind = .text, repeatable: Bool = false,
    _ help: String
  ) {
    spec = OptionSpec(long: long, short: short, placeholder: placeholder, kind: kind, repeatable: repeatable, help: help)
  }
}

/// Options every command accepts, before or after its name.
package enum GlobalOptions {
  package static let home = Option(
    "--home", "DIR", kind: .directory,
    "Use DIR for identity, settings and Documents/Inbox (default: $SHARE_HOME, else XDG locations)")
  package static let verbose = Flag("--verbose", short: "-v", "Add technical detail to errors and logs")
  package static let help = Flag("--help", short: "-h", "Show this help")

  /// In the order help lists them.
  package static let all: [any OptionDeclaration] = [home, verbose, help]
  static let specs = all.map(\.spec)

  /// Only before any command: `share --version` (or `-V`, or `share version`).
  package static let version = Flag("--version", short: "-V", "Print the version of share (before any command; also: share version)")
}
