import Foundation
import ShareKit

/// `share types accept|exclude|forget TYPE...`: change this home's declarations and tell a
/// running daemon, which takes them at once (no restart).
enum TypesAcceptCommand: Command {
  static let spec = TypesEdit.spec(
    .accept, summary: "Accept types in this home's Inbox",
    discussion: """
      Each TYPE is no longer excluded and, unless an accepted type already covers it, gets an
      entry of its own. A type excluded through a broader type (an ELF program through
      public.executable) cannot be accepted alone: exclusion wins, and the error says which
      'share types forget' would lift it.
      """,
    examples: ["share types accept .iso", "share types accept public.font application/x-blender"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    try TypesEdit.run(.accept, arguments, context)
  }
}

enum TypesExcludeCommand: Command {
  static let spec = TypesEdit.spec(
    .exclude, summary: "Never accept types in this home's Inbox",
    discussion: "Each TYPE, and every type that conforms to it, is refused whatever else accepts it.",
    examples: ["share types exclude .iso", "share types exclude public.archive"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    try TypesEdit.run(.exclude, arguments, context)
  }
}

enum TypesForgetCommand: Command {
  static let spec = TypesEdit.spec(
    .forget, summary: "Drop what this home says about types",
    discussion: "Each TYPE is taken out of the accepted and the excluded lists; what it conforms to decides again.",
    examples: ["share types forget .iso", "share types forget public.executable"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    try TypesEdit.run(.forget, arguments, context)
  }
}

/// `share types reset`: back to the built-in default.
enum TypesResetCommand: Command {
  static let spec = CommandSpec(
    path: ["types", "reset"], summary: "Go back to the built-in default declarations",
    usage: ["types reset [--json]"],
    discussion: "Removes this home's Declarations.plist (what 'share types' calls its source) and tells a running daemon.",
    options: [TypesEdit.json], examples: ["share types reset"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    var change = try DeclarationsStore(paths: context.paths).reset()
    try change.tellDaemon(paths: context.paths)
    return TypesEdit.report(change, arguments, context)
  }
}

/// What the editing commands share: their spec and their output.
enum TypesEdit {
  static let json = Flag("--json", "Print one JSON object: each type's outcome, the file, and the daemon's")

  static func spec(
    _ action: DeclarationEdit.Action, summary: String, discussion: String, examples: [String]
  ) -> CommandSpec {
    CommandSpec(
      path: ["types", action.rawValue], summary: summary, usage: ["types \(action.rawValue) TYPE... [--json]"],
      discussion: discussion + """

        TYPE is a type identifier (public.iso-image), a file extension (.iso) or a MIME type
        (application/x-cd-image). The first change starts from the declarations in force (the
        built-in default on a fresh home) and writes this home's Declarations.plist; a running
        daemon reloads it at once. 'share types reset' goes back to the default.
        """,
      options: [json], arguments: 1...Int.max, argumentKind: .typeIdentifier, examples: examples,
      home: action == .forget ? .mustExist : .mayCreate)
  }

  static func run(_ action: DeclarationEdit.Action, _ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    var change = try DeclarationsStore(paths: context.paths).edit(action, arguments.positionals)
    try change.tellDaemon(paths: context.paths)
    return report(change, arguments, context)
  }

  /// One line per type on stdout (or one JSON object), what happened to the file on stderr.
  static func report(_ change: DeclarationsChange, _ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
    let terminal = context.terminal
    if arguments[json] {
      terminal.out(JSONOutput.line(change))
    } else {
      for outcome in change.types { terminal.out(line(outcome, forgetting: change.action == "forget", verbose: terminal.verbose)) }
      if change.replacedHandWritten {
        terminal.warn("the file replaced was written by hand: its comments and ignored keys (icons, roles) are not kept")
      }
      for warning in change.warnings { terminal.warn(escape(warning)) }
      terminal.err(fileLine(change))
    }
    guard change.daemon == "failed" else { return .success }
    if !arguments[json] { terminal.error("the running daemon did not take them: \(escape(change.daemonError ?? "no answer"))") }
    return .failure
  }

  /// "ISO disk images (.iso): excluded", "ISO disk images (.iso): forgotten; now accepted by "Disk images"".
  static func line(_ outcome: TypeEditOutcome, forgetting: Bool, verbose: Bool) -> String {
    let named = verbose ? "\(escape(outcome.argument)), \(outcome.type.rawValue)" : escape(outcome.argument)
    let kinds = "\(escape(outcome.plural)) (\(named))"
    let standing: String
    if let excluded = outcome.excludedBy {
      let broader = verbose ? "\(escape(outcome.excludedAs ?? "")) (\(excluded.rawValue))" : escape(outcome.excludedAs ?? excluded.rawValue)
      standing = excluded == outcome.type ? "excluded" : "excluded as \(broader)"
    } else if let group = outcome.acceptedBy {
      standing = "accepted by \"\(escape(group))\""
    } else {
      standing = "not accepted"
    }
    switch outcome.changes.first {
    case .alreadyAccepted?, .alreadyExcluded?: return "\(kinds): already \(standing); nothing to change"
    case .notMentioned?: return "\(kinds): not mentioned in the declarations (\(standing)); nothing to change"
    default: break
    }
    return forgetting ? "\(kinds): forgotten; now \(standing)" : "\(kinds): \(standing)"
  }

  static func fileLine(_ change: DeclarationsChange) -> String {
    let path = escape(change.path)
    guard change.written else {
      return change.action == "reset" ? "No \(path): the built-in default is already in force." : "Nothing changed."
    }
    let daemon: String
    switch change.daemon {
    case "reloaded": daemon = "the running daemon has reloaded them"
    case "not-running": daemon = "no daemon is running (the next one starts with them)"
    default: daemon = "the running daemon did not take them"
    }
    if change.action == "reset" { return "Removed \(path): the built-in default declarations are in force; \(daemon)." }
    return "Wrote \(path); \(daemon)."
  }
}
