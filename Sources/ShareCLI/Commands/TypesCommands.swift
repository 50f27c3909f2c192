import Foundation
import ShareKit

/// `share types`: the effective declarations and where they came from.
enum TypesCommand: Command {
  static let json = Flag("--json", "Print one JSON object")

  static let spec = CommandSpec(
    path: ["types"], summary: "Show what this receiver accepts and excludes",
    usage: ["types [--json]", "types show ID [--json]", "types check PATH... [--json]"],
    discussion: """
      The receiver's type declarations (Info.plist vocabulary: CFBundleDocumentTypes with
      LSItemContentTypes, UTExportedTypeDeclarations / UTImportedTypeDeclarations, and
      ExcludedActivityTypes) decide what lands in its Inbox. A home's own Declarations.plist
      replaces the shipped default (Inbox/Declarations.plist); 'share types accept', 'exclude',
      'forget' and 'reset' change it. Kinds are listed by their descriptions; --verbose adds
      their identifiers. The rules are in Inbox/TYPES.md.
      """,
    options: [json],
    examples: ["share types", "share types --verbose", "share types show public.png", "share types check ~/Downloads/*"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let gate = try TypeGate.load(paths: context.paths)
    let report = gate.declarationsReport
    let terminal = context.terminal
    if arguments[Self.json] {
      terminal.out(JSONOutput.line(report))
      return .success
    }
    // Kinds by their descriptions ("disk images"); --verbose adds identifiers, --json has only them.
    func kinds(_ types: [TypeIdentifier]) -> String {
      types.map { type in
        let words = escape(gate.describePlural(type))
        return terminal.verbose ? "\(words) (\(type.rawValue))" : words
      }.joined(separator: ", ")
    }
    terminal.out("Declarations: \(escape(report.source))")
    terminal.out("Accepted:")
    for group in report.documentTypes {
      terminal.out("  \(escape(group.name)): \(kinds(group.contentTypes))")
    }
    terminal.out("Excluded: \(report.excludedTypes.isEmpty ? "nothing" : kinds(report.excludedTypes))")
    let declared = report.exportedTypes + report.importedTypes
    if !declared.isEmpty {
      terminal.out("Declared here:")
      for type in declared {
        let tags = type.filenameExtensions.map { ".\($0)" } + type.mimeTypes
        terminal.out(
          "  \(type.identifier.rawValue) (\(escape(type.description))) conforms to \(type.conformsTo.map(\.rawValue).joined(separator: ", "))\(tags.isEmpty ? "" : "; " + tags.joined(separator: " "))"
        )
      }
    }
    for warning in report.warnings { terminal.warn(escape(warning)) }
    return .success
  }
}

/// `share types show ID`: one type's conformance chain and tags.
enum TypesShowCommand: Command {
  static let json = Flag("--json", "Print one JSON object")

  static let spec = CommandSpec(
    path: ["types", "show"], summary: "Show a type's conformance chain and tags",
    usage: ["types show ID [--json]"],
    discussion: "ID is a type identifier (public.jpeg), a file extension (.jpg) or a MIME type (image/jpeg).",
    options: [json], arguments: 1...1, argumentKind: .typeIdentifier,
    examples: ["share types show public.jpeg", "share types show .docx", "share types show image/heic"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let gate = try TypeGate.load(paths: context.paths)
    let report = try gate.report(for: arguments.positionals[0])
    let terminal = context.terminal
    if arguments[Self.json] {
      terminal.out(JSONOutput.line(report))
      return .success
    }
    terminal.out("\(report.identifier.rawValue): \(escape(report.description))")
    terminal.out("  origin:      \(report.origin)")
    terminal.out("  conforms to: \(([report.identifier] + report.ancestors).map(\.rawValue).joined(separator: " → "))")
    if !report.filenameExtensions.isEmpty {
      terminal.out("  extensions:  \(report.filenameExtensions.map { ".\($0)" }.joined(separator: " "))")
    }
    if !report.mimeTypes.isEmpty { terminal.out("  MIME types:  \(report.mimeTypes.joined(separator: " "))") }
    if let excluded = report.excludedBy {
      terminal.out("  verdict:     excluded (conforms to \(excluded.rawValue))")
    } else if let group = report.acceptedBy {
      terminal.out("  verdict:     accepted by \"\(escape(group))\"")
    } else {
      terminal.out("  verdict:     not accepted")
    }
    return .success
  }
}

/// `share types check PATH...`: how this receiver would judge files, and why.
enum TypesCheckCommand: Command {
  static let json = Flag("--json", "One JSON object per file, per line")

  static let spec = CommandSpec(
    path: ["types", "check"], summary: "Judge files as this receiver would, with the rule that decided",
    usage: ["types check PATH... [--json]"],
    discussion:
      "Prints the type from the name, the type from the content (libmagic, first 64 KiB), and the verdict. A folder is judged, then each file in it, as a receiver judges a folder's entries (symbolic links and special files are not sent, and not judged).\nExit status: 0 when every file would be accepted, 3 when some would not.",
    options: [json], arguments: 1...Int.max, argumentKind: .path,
    examples: ["share types check photo.png run.sh", "share types check --json ~/Downloads/*"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    // `share send -` reads standard input; this judges files by their names, and `-` has none.
    if arguments.positionals.contains("-") {
      throw UsageError("types check judges files by name and content: save standard input to a named file first", spec: spec)
    }
    let gate = try TypeGate.load(paths: context.paths)
    let terminal = context.terminal
    var refused = 0
    var failed = 0
    for entry in arguments.positionals.flatMap(gate.checks) {
      let path = entry.path
      let report: CheckReport
      do {
        report = try gate.check(entry)
      } catch {
        // It names the file itself (review 16: "cannot read X: cannot read "X": open: …").
        terminal.error(error.description, detail: error.detail)
        failed += 1
        continue
      }
      if !report.verdict.accepted { refused += 1 }
      if arguments[Self.json] {
        terminal.out(JSONOutput.line(report))
        continue
      }
      // Types by their descriptions; --verbose adds identifiers.
      let verbose = terminal.verbose
      func type(_ id: TypeIdentifier, _ extra: String? = nil) -> String {
        let details = (verbose ? [id.rawValue] : []) + (extra.map { [escape($0)] } ?? [])
        return escape(gate.describe(id)) + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
      }
      terminal.out("\(escape(path))")
      terminal.out("  name:    \(type(report.nameType))")
      if let content = report.content {
        terminal.out("  content: \(type(content.type, content.mimeType))")
      }
      // The reason escaped its item's name when it was made: shown without escaping that twice.
      let reason = Escaping.made(report.verdict.reason, maximumLength: PeerText.displayLength)
      terminal.out("  verdict: \(reason) [rule: \(report.verdict.rule.rawValue)]")
      if let remedy = report.verdict.remedy { terminal.out("  to accept it: \(remedy.command)") }
    }
    if failed > 0 { return .failure }
    return refused == 0 ? .success : .partial
  }
}
