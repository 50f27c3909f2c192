import Foundation
import Glibc
import ShareKit
import Synchronization

/// An Inbox item as `--json` prints it.
struct InboxItemOutput: Encodable {
  var name: String
  var path: String
  var kind: String
  var size: Int64
  var originalName: PeerText?
  var senderName: PeerText?
  var senderId: String?
  var receivedAt: Date?
  var sha256: String?
  var type: String?
  /// `"localsend"` for an item that came by LocalSend; absent for share's own protocol.
  var `protocol`: String?
  var senderVerified: Bool?
  /// The sender's name as this home's contact, when it was one.
  var contactName: PeerText?
  /// For a stranger: the contact whose name, or one like it, it used.
  var posedAs: PeerText?
  /// A folder's entries that were offered but not stored, each with why (the first 100).
  var refusedEntries: [ItemMetadata.RefusedEntry]?
  /// How many of a folder's entries were not stored.
  var entriesRefused: Int?
  /// How many files a folder holds (review 20: `inbox show` printed it, `--json` did not).
  var files: Int?

  init(_ item: InboxItem) {
    name = item.name
    path = item.path
    kind = item.metadata?.kind.rawValue ?? item.kind.rawValue
    size = item.size
    originalName = item.metadata?.originalName
    senderName = item.metadata?.senderName
    senderId = item.metadata?.senderId
    receivedAt = item.metadata?.receivedAt
    sha256 = item.metadata?.sha256
    type = item.metadata?.type?.rawValue
    `protocol` = item.metadata?.protocol
    senderVerified = item.metadata?.senderVerified
    contactName = item.metadata?.contactName
    posedAs = item.metadata?.posedAs
    refusedEntries = item.metadata?.refusedEntries
    entriesRefused = item.metadata?.entriesRefused
    files = item.metadata?.files
  }
}

/// `share inbox list`.
enum InboxListCommand: Command {
  static let json = Flag("--json", "One JSON object per item, per line")

  static let spec = CommandSpec(
    path: ["inbox", "list"], summary: "List what arrived in Documents/Inbox",
    usage: ["inbox [list] [--json]"],
    discussion: "Items are read-only; move one out with 'share inbox move' to edit it.",
    options: [json],
    examples: ["share inbox", "share inbox list --json"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let paths = try context.paths
    let items = try Inbox.existing(paths: paths)?.list() ?? []
    let terminal = context.terminal
    if arguments[Self.json] {
      var output = InboxListOutput(to: terminal)
      for item in items { output.writeJSON(item) }
      output.finish()
      return .success
    }
    if items.isEmpty {
      // A removed Inbox folder is not an empty one (review 38); the daemon makes it again.
      let exists = FileManager.default.fileExists(atPath: paths.inbox.path) || !FileManager.default.fileExists(atPath: paths.documents.path)
      terminal.err(
        exists
          ? "The Inbox is empty (\(paths.inbox.path))."
          : "There is no Inbox folder (\(paths.inbox.path)): it was removed; the daemon makes it again when something arrives.")
      return .success
    }
    // For scripts (a pipe), tab-separated lines as they have always been.
    guard terminal.stdoutIsTerminal else {
      var output = InboxListOutput(to: terminal)
      for item in items { output.writeLine(item) }
      output.finish()
      return .success
    }
    // For people: aligned columns, local times and type names.
    var table = Table("NAME", "SIZE", "TYPE", "RECEIVED", "FROM")
    for item in items {
      let when = item.metadata.map { LocalTime.string($0.receivedAt) } ?? "-"
      let type = item.metadata?.type.map { TypeNames.describe($0.rawValue) } ?? item.kind.rawValue
      table.add(escape(item.name), formatBytes(item.size), type, when, sender(item))
    }
    // Names are cut to fit the terminal; 'inbox list --json' and a pipe have them whole.
    table.print(to: terminal, shrinking: 0)
    return .success
  }

  /// Who sent an item: name and the start of its ID, escaped.
  static func sender(_ item: InboxItem) -> String {
    item.metadata.map { SenderLabel($0).text } ?? "unknown sender"
  }
}

/// Who sent an item, as the Inbox shows it: a contact by its name here (and the name it gave, if
/// another); a stranger by the name it gave, marked when that was a contact's name or like one
/// (review 15: a stranger calling itself `bob` was later listed as "bob"); an ID the sender only
/// claimed (a LocalSend sender without a certificate) marked so, never shown as a contact's is.
struct SenderLabel: Equatable {
  var name: PeerText
  var id: String
  var verified: Bool?
  var contactName: PeerText?
  var posedAs: PeerText?

  init(_ meta: ItemMetadata) {
    (name, id, verified, contactName, posedAs) = (meta.senderName, meta.senderId, meta.senderVerified, meta.contactName, meta.posedAs)
  }

  /// The name alone, with what it needs said (escaped).
  var who: String {
    verified == false ? "\(name)" : Self.who(name, contactName: contactName, posedAs: posedAs)
  }

  /// A device that gave `name`, as this home knows it (`TrustStore.identify`): a contact by its
  /// name here, a stranger marked when it would pass for a contact (escaped). The Inbox's
  /// senders and `share send`'s receivers read the same.
  static func who(_ name: PeerText, contactName: PeerText?, posedAs: PeerText?) -> String {
    if let contactName { return contactName == name ? "\(contactName)" : "\(contactName) (calls itself \(name))" }
    if let posedAs { return "\(name) (NOT your contact \(posedAs))" }
    return "\(name)"
  }

  /// The name and the start of the ID (escaped).
  var text: String {
    let id = escape(String(id.prefix(12)))
    return verified == false ? "\(name) (unverified, claims \(id))" : "\(who) (\(id))"
  }
}

/// `share inbox show ITEM`.
enum InboxShowCommand: Command {
  static let json = Flag("--json", "Print one JSON object")

  static let spec = CommandSpec(
    path: ["inbox", "show"], summary: "Show one item's metadata",
    usage: ["inbox show ITEM [--json]"],
    options: [json],
    arguments: 1...1, argumentKind: .inboxItem, examples: ["share inbox show notes.txt"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let item = try existingInbox(context, holding: arguments.positionals[0]).item(named: arguments.positionals[0])
    let terminal = context.terminal
    if arguments[Self.json] {
      terminal.out(JSONOutput.line(InboxItemOutput(item)))
      return .success
    }
    terminal.out("Name:       \(escape(item.name))")
    let shownPath = escape(item.path)
    // An escaped path is not the file's: say so rather than let it be copied as one.
    let escaped = shownPath == item.path ? "" : "  (escaped as share shows names; 'share inbox list --json' has it exact)"
    terminal.out("Path:       \(shownPath)\(escaped)")
    terminal.out("Kind:       \(item.metadata?.kind.rawValue ?? item.kind.rawValue)")
    terminal.out("Size:       \(item.size < 1024 ? formatBytes(item.size) : "\(formatBytes(item.size)) (\(item.size) bytes)")")
    guard let meta = item.metadata else {
      terminal.out("Metadata:   none (not placed by share, or its record was lost)")
      return .success
    }
    terminal.out("Type:       \(meta.type.map { "\(TypeNames.describe($0.rawValue)) (\($0.rawValue))" } ?? "unknown")")
    terminal.out("Sent as:    \(meta.originalName)")
    terminal.out("From:       \(SenderLabel(meta).who)")
    terminal.out("Sender ID:  \(escape(meta.senderId))\(meta.senderVerified == false ? " (claimed, not proven)" : "")")
    if let via = meta.protocol { terminal.out("Protocol:   \(escape(via))") }
    terminal.out("Received:   \(LocalTime.string(meta.receivedAt, seconds: true))")
    if let sha = meta.sha256 { terminal.out("SHA-256:    \(sha)") }
    if let files = meta.files { terminal.out("Files:      \(files)") }
    let named = meta.refusedEntries ?? []
    for (index, entry) in named.enumerated() {
      terminal.out("\(index == 0 ? "Not stored: " : "            ")\(entry.path): \(made(entry.reason))")
    }
    if let count = meta.entriesRefused, count > named.count { terminal.out("            … and \(count - named.count) more") }
    return .success
  }
}

/// `share inbox move ITEM [DEST]`.
enum InboxMoveCommand: Command {
  static let spec = CommandSpec(
    path: ["inbox", "move"], summary: "Move an item out of the Inbox, writable again",
    usage: ["inbox move ITEM [DEST]"],
    discussion: """
      DEST defaults to Documents/ of this home. When DEST is a folder the item keeps its name (or
      takes name-1, name-2, ... when taken); otherwise DEST is the new path and must not exist.
      Nothing is ever overwritten. Works across file systems.
      """,
    arguments: 1...2, argumentKind: .inboxItem, laterArgumentKind: .path,
    examples: ["share inbox move notes.txt", "share inbox move photo.jpg ~/Pictures/"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let given = arguments.positionals.dropFirst().first
    // An empty DEST (an unset "$dest") would be the current folder.
    if given == "" { throw UsageError("DEST is empty; leave it out to move the item to Documents/", spec: spec) }
    let destination = try given.map(checkedDestination)
    if let destination {
      try refuseInside(context.paths.inbox, destination, "the Inbox")
      // Share's own state beside it: staging is emptied when the daemon starts (review 27).
      try refuseInside(context.paths.documents.appendingPathComponent(".share"), destination, "share's own folder")
    }
    // Ctrl-C (or SIGTERM) while an item is copied to another file system: the copy is finished
    // and then removed, and the item stays (review 27: the folder was left hidden, the half-copy
    // beside DEST); a second one stops at once.
    let interrupt = InterruptFlag()
    let terminal = context.terminal
    Signals.onSignal { number in
      guard number != SIGHUP else { return }
      if interrupt.raised.exchange(true, ordering: .relaxed) { exit(ExitCode.interrupted.rawValue) }
      terminal.err("Stopping: the copy is removed once made, and the item stays in the Inbox (Ctrl-C again stops at once).")
    }
    let name = arguments.positionals[0]
    let result = Result { () throws(ShareError) -> URL in
      try existingInbox(context, holding: name).move(name, to: destination, isInterrupted: { interrupt.isRaised })
    }
    if interrupt.isRaised, case .failure = result {
      terminal.err("Not moved: \(escape(name)) is still in the Inbox.")
      return .interrupted
    }
    // For a script, the path as it is on disk; for a person, escaped (a name's bytes could be
    // a terminal's controls).
    let moved = try result.get().path
    terminal.out(terminal.stdoutIsTerminal ? escape(moved) : moved)
    return interrupt.isRaised ? .interrupted : .success
  }
}

/// The home's Inbox for a command that needs item `name` of it; a home where nothing has
/// arrived has none, and a read or a move must not make one (review 30 L6): no item is there.
private func existingInbox(_ context: CommandContext, holding name: String) throws(ShareError) -> Inbox {
  guard let inbox = try Inbox.existing(paths: context.paths) else { throw .inbox(.noSuchItem(name)) }
  return inbox
}

/// A signal's arrival, seen from the thread doing the work.
final class InterruptFlag: Sendable {
  let raised = Atomic<Bool>(false)

  var isRaised: Bool { raised.load(ordering: .relaxed) }
}

/// DEST as given, when it can be one: an existing folder (the item keeps its name), or a new
/// name in an existing folder. A DEST ending in `/` must be a folder; one that does not exist is
/// an error that says so, not a new name beside it.
private func checkedDestination(_ text: String) throws(ShareError) -> URL {
  let url = URL(fileURLWithPath: text)
  var isFolder: ObjCBool = false
  let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
  if text.hasSuffix("/"), exists, !isFolder.boolValue {
    throw .configuration("\(escape(text)) is a file, not a folder; give a folder, or a new name without the '/'")
  }
  if text.hasSuffix("/"), !exists {
    throw .configuration("there is no folder \(escape(text)); create it first (\(ShellWords.suggestion(["mkdir", "-p", text])))")
  }
  let parent = url.deletingLastPathComponent()
  var parentIsFolder: ObjCBool = false
  if !exists, !(FileManager.default.fileExists(atPath: parent.path, isDirectory: &parentIsFolder) && parentIsFolder.boolValue) {
    throw .configuration("there is no folder \(escape(parent.path)) to move it into; create it first")
  }
  // `..` and links as the kernel follows them, as `mv` takes DEST (review 38: `link/../` was
  // taken as written, the item moved beside the link, not into where `..` leads from its target).
  if exists, let real = resolved(text) { return URL(fileURLWithPath: real, isDirectory: isFolder.boolValue) }
  let last = String(text.split(separator: "/").last ?? "")
  let folder = text.contains("/") ? String(text[..<text.lastIndex(of: "/")!]) : "."
  if !exists, !last.isEmpty, last != ".", last != "..", let real = resolved(folder.isEmpty ? "/" : folder) {
    return URL(fileURLWithPath: real == "/" ? "/" + last : real + "/" + last, isDirectory: false)
  }
  return url
}

/// `path` with every link and `..` followed by the kernel (realpath(3)); nil when it fails.
private func resolved(_ path: String) -> String? {
  guard let real = realpath(path, nil) else { return nil }
  defer { free(real) }
  return String(cString: real)
}

/// A DEST in the Inbox (or in an item of it) would leave the item there, writable and renamed
/// (review 20): the Inbox is filled by the daemon only.
private func refuseInside(_ inbox: URL, _ destination: URL, _ what: String) throws(ShareError) {
  var isFolder: ObjCBool = false
  let exists = FileManager.default.fileExists(atPath: destination.path, isDirectory: &isFolder)
  let folder = exists && isFolder.boolValue ? destination : destination.deletingLastPathComponent()
  let real = folder.resolvingSymlinksInPath().standardizedFileURL.path
  let inboxPath = inbox.resolvingSymlinksInPath().standardizedFileURL.path
  guard real == inboxPath || real.hasPrefix(inboxPath + "/") else { return }
  throw .configuration("\(escape(destination.path)) is in \(what); move items out of it (to Documents/ when DEST is left out)")
}

/// `share inbox delete ITEM...`.
enum InboxDeleteCommand: Command {
  static let spec = CommandSpec(
    path: ["inbox", "delete"], summary: "Delete items from the Inbox",
    usage: ["inbox delete ITEM..."], arguments: 1...Int.max, argumentKind: .inboxItem,
    examples: ["share inbox delete notes.txt notes-1.txt"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let inbox = try Inbox.existing(paths: context.paths)
    var failures = 0
    var seen: [String: Bool] = [:]
    for name in arguments.positionals {
      // Named twice: deleted once (review 32: the second said "no item named" and exit 1); one
      // that was not there is not said to be deleted once (review 38).
      if let deleted = seen[name] {
        if deleted { context.terminal.warn("\(escape(name)) was named more than once; it is deleted once") }
        continue
      }
      do throws(ShareError) {
        guard let inbox else { throw .inbox(.noSuchItem(name)) }
        try inbox.delete(name)
        seen[name] = true
        context.terminal.err("deleted \(escape(name))")
      } catch {
        seen[name] = false
        context.terminal.error(error.description, detail: error.detail)
        failures += 1
      }
    }
    return failures == 0 ? .success : .failure
  }
}
