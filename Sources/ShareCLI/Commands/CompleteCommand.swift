import Dispatch
import Foundation
import ShareKit
import Synchronization

/// `share __complete SOURCE`: the words a shell offers for a value only known when Tab is
/// pressed, one a line on stdout. Hidden: the completion scripts call it. It never fails and never
/// writes anything to the disk: whatever cannot be read, or does not answer within
/// `CompleteCommand.patience`, is left out, and a name that could not be printed as it is (a
/// control character, a backslash) is skipped rather than escaped, since an escaped name would
/// not be the peer's name.
enum CompleteCommand: Command {
  static let spec = CommandSpec(
    path: ["__complete"], summary: "Print the names a completion offers (used by the completion scripts)",
    usage: ["__complete " + CompletionSource.allCases.map(\.rawValue).joined(separator: "|")],
    arguments: 1...1, argumentKind: .choice(CompletionSource.allCases.map(\.rawValue)), home: .unused, hidden: true)

  /// How long Tab may wait for Avahi and the daemon, in milliseconds.
  static let patience = 300

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    guard let source = CompletionSource(rawValue: arguments.positionals[0]) else {
      throw UsageError("no completions for '\(escape(arguments.positionals[0]))'", spec: spec)
    }
    var seen: Set<String> = []
    let paths = try context.paths
    for word in words(for: source, paths: paths) where escape(word) == word && seen.insert(word).inserted {
      context.terminal.out(word)
    }
    return .success
  }

  static func words(for source: CompletionSource, paths: SharePaths) -> [String] {
    switch source {
    case .peers: peerNames(paths: paths)
    case .contacts: contactNames(paths: paths)
    case .inbox: inboxNames(paths: paths)
    case .asks: (daemon(.requests, paths: paths)?.requests ?? []).map { String($0.id) }
    case .types: typeIdentifiers(paths: paths)
    }
  }

  /// Nearby peers (but not this home's own daemon), then contacts, then names sent to before.
  static func peerNames(paths: SharePaths) -> [String] {
    let nearby = Mutex<[Peer]>([])
    let own = Mutex<Fingerprint?>(nil)
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      // Names only: every record on its own, nothing judged (no book of known identities).
      let directory = PeerDirectory(book: KnownIdentities(own: nil, trust: TrustStore(), known: KnownPeers()))
      let peers = try? runBlocking { try await directory.snapshot(timeout: .milliseconds(patience)) }
      nearby.withLock { $0 = peers ?? [] }
    }
    DispatchQueue.global().async(group: group) {
      let id = daemon(.status, paths: paths)?.status.flatMap { Fingerprint(hex: $0.id) }
      own.withLock { $0 = id }
    }
    _ = group.wait(timeout: .now() + .milliseconds(patience + 100))
    let ownID = own.withLock { $0 }
    let others = nearby.withLock { $0 }.filter { $0.id == nil || $0.id != ownID }
    let remembered = Contacts(paths: paths).remembered().0.entries.map(\.name)
    // Advertised names are anyone's text: only those that print as they are become completions.
    let advertised = others.flatMap { [$0.name] + $0.aliases }.map(\.unescaped).filter { Escaping.escaped($0) == $0 }
    return advertised + contactNames(paths: paths) + remembered
  }

  /// Contacts' names as they are (`run` leaves out any that would not print as they are).
  static func contactNames(paths: SharePaths) -> [String] {
    ((try? Contacts(paths: paths).trusted())?.peers ?? []).map(\.name.unescaped)
  }

  /// The Inbox's items; nothing (and no folder made) when this home has no Inbox yet.
  static func inboxNames(paths: SharePaths) -> [String] {
    guard FileManager.default.fileExists(atPath: paths.inbox.path), let inbox = try? Inbox(paths: paths, repairing: false) else {
      return []
    }
    return inbox.list().map(\.name)
  }

  static func typeIdentifiers(paths: SharePaths) -> [String] {
    guard let report = (try? TypeGate.load(paths: paths))?.declarationsReport else { return [] }
    let declared = (report.exportedTypes + report.importedTypes).map(\.identifier)
    return (report.acceptedTypes + report.excludedTypes + declared).map(\.rawValue)
  }

  /// The running daemon's answer, if it gives one within `patience` (no daemon: at once).
  private static func daemon(_ request: ControlRequest, paths: SharePaths) -> ControlResponse? {
    let answer = Mutex<ControlResponse?>(nil)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      let response = try? ControlClient.send(request, paths: paths)
      answer.withLock { $0 = response }
      done.signal()
    }
    guard done.wait(timeout: .now() + .milliseconds(patience)) == .success else { return nil }
    return answer.withLock { $0 }
  }
}
