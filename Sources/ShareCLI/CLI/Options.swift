/// What a value (of an option or a positional argument) is, for help, shell completion and the
/// man page: generators offer file names for `.path`, peer names for `.peer`, the words of
/// `.choice`, and so on.
public enum ValueKind: Sendable, Equatable {
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
public struct OptionSpec: Sendable, Equatable {
  /// Long name with dashes, e.g. `--to`.
  public var long: String
  /// Optional short form, e.g. `-q`.
  public var short: String?
  /// The value's placeholder, e.g. `PEER`; nil for a flag.
  public var placeholder: String?
  /// What the value is (nil for a flag).
  public var kind: ValueKind?
  /// Whether it may be given more than once.
  public var repeatable: Bool
  public var help: String

  public var isFlag: Bool { placeholder == nil }

  /// The names it answers to: the long one, then the short one.
  public var names: [String] { [long] + (short.map { [$0] } ?? []) }
}

/// An option declared once and then looked up by the constant itself, so a misspelt lookup does
/// not compile: `static let json = Flag("--json", …)`, then `arguments[Self.json]`.
public protocol OptionDeclaration: Sendable {
  var spec: OptionSpec { get }
}

/// An option that takes no value: given or not.
public struct Flag: OptionDeclaration {
  public let spec: OptionSpec

  public init(_ long: String, short: String? = nil, _ help: String) {
    spec = OptionSpec(long: long, short: short, placeholder: nil, kind: nil, repeatable: false, help: help)
  }
}

/// An option that takes a value, once or (`repeatable`) several times.
public struct Option: OptionDeclaration {
  public let spec: OptionSpec

  public init(
    _ long: String, _ placeholder: String, short: String? = nil, kind: ValueKind = .text, repeatable: Bool = false,
    _ help: String
  ) {
    spec = OptionSpec(long: long, short: short, placeholder: placeholder, kind: kind, repeatable: repeatable, help: help)
  }
}

/// Options every command accepts, before or after its name.
public enum GlobalOptions {
  public static let home = Option(
    "--home", "DIR", kind: .directory,
    "Use DIR for identity, settings and Documents/Inbox (default: $SHARE_HOME, else XDG locations)")
  public static let verbose = Flag("--verbose", short: "-v", "Add technical detail to errors and logs")
  public static let help = Flag("--help", short: "-h", "Show this help")

  /// In the order help lists them.
  public static let all: [any OptionDeclaration] = [home, verbose, help]
  static let specs = all.map(\.spec)

  /// Only before any command: `share --version` (or `-V`, or `share version`).
  public static let version = Flag("--version", short: "-V", "Print the version of share (before any command; also: share version)")
}
