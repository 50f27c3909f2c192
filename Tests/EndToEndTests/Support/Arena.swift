import Foundation
import Glibc
import Testing

/// The ground of one attack: a receiver's daemon on loopback, a contact of it (`alice`) whose sends
/// must keep working, and an attacker's identity (`mallory`), a contact or a stranger. Names carry
/// a random tag, so records on the shared Avahi never collide with another test's.
///
/// `expectIntact()` checks what must hold after any attack.
final class Arena {
  let tag: String
  let receiver: ShareHome
  let contact: ShareHome
  let mallory: ThrowawayIdentity
  let daemon: Daemon
  /// A name no one else uses: what an escaping write would create.
  var canary: String { "pwned-\(tag)" }
  /// Inbox entries the test itself put there (symlinks, say): not items.
  var planted: Set<String> = []
  /// Paths under the receiver's folder that the test itself creates after the start.
  var ignored: [URL] = []
  private var baseline: Set<String> = []
  private var sends = 0

  init(malloryIsContact: Bool = true, daemonArguments: [String] = []) throws {
    tag = String(UUID().uuidString.prefix(8)).lowercased()
    receiver = try ShareHome(name: "adv-bob-\(tag)")
    contact = try ShareHome(name: "adv-alice-\(tag)")
    mallory = try ThrowawayIdentity(name: "mallory-\(tag)")
    if malloryIsContact {
      let trusted = try receiver.share("trust", "add", mallory.id, "--name", "mallory-\(tag)")
      guard trusted.exited(with: 0) else { throw HarnessError("'share trust add' failed:\n\(trusted)") }
    }
    daemon = try receiver.startDaemon(trusting: [contact], arguments: daemonArguments)
    try contactSends()
    baseline = snapshot()
  }

  deinit { if daemon.isRunning { _ = daemon.stop() } }

  /// A raw connection as mallory, from 127.0.0.1 or another loopback address.
  func peer(from source: String? = nil) throws -> RawPeer {
    try RawPeer(port: daemon.port, identity: mallory.identity, from: source)
  }

  /// The asks waiting for the receiver's owner (`share requests --json`).
  func pendingAsks() throws -> [[String: Any]] {
    let result = try receiver.share("requests", "--json")
    guard result.exited(with: 0) else { throw HarnessError("'share requests' failed:\n\(result)") }
    return try parseJSONLines(result.stdoutText)
  }

  /// Waits (bounded) for an ask to wait for the owner; returns its number.
  func waitForPendingAsk(timeout: Duration = .seconds(20)) throws -> Int? {
    let deadline = ContinuousClock.now + timeout
    repeat {
      if let id = try pendingAsks().first?["id"] as? Int { return id }
      usleep(100_000)
    } while ContinuousClock.now < deadline
    return nil
  }

  /// The contact sends a small file by address; throws unless it is stored.
  private func contactSends() throws {
    sends += 1
    let name = "alice-\(sends).txt"
    let sent = try contact.share("send", try contact.file(name, "from alice \(sends)\n").path, "--to", daemon.address)
    guard sent.exited(with: 0), receiver.inboxNames().contains(name) else {
      throw HarnessError("the contact's send failed:\n\(sent)\n--- daemon log:\n\(daemon.log)")
    }
  }

  /// What must hold after any attack: the daemon runs; a contact's send still works; nothing new
  /// exists outside the Inbox and staging (nor in /tmp under the canary's name); everything in
  /// the Inbox is a whole item, listed with its metadata and its SHA-256 right.
  func expectIntact(sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(daemon.isRunning, "the daemon died:\n\(daemon.log)", sourceLocation: sourceLocation)
    guard daemon.isRunning else { return }
    #expect(throws: Never.self, "a contact can no longer send", sourceLocation: sourceLocation) { try contactSends() }

    let allowed = [receiver.inbox.path + "/", receiver.documents.appendingPathComponent(".share").path + "/"]
    let strays = snapshot().subtracting(baseline).filter { path in !allowed.contains { path.hasPrefix($0) } }
    #expect(strays.isEmpty, "written outside the Inbox and staging: \(strays.sorted())", sourceLocation: sourceLocation)
    let inTmp = ((try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []).filter { $0.contains(canary) }
    #expect(inTmp.isEmpty, "written to /tmp: \(inTmp)", sourceLocation: sourceLocation)

    guard let listed = try? receiver.listedItems() else {
      Issue.record("'share inbox list --json' failed", sourceLocation: sourceLocation)
      return
    }
    let byName = Dictionary(listed.compactMap { item in (item["name"] as? String).map { ($0, item) } }, uniquingKeysWith: { a, _ in a })
    for name in receiver.inboxNames().subtracting(planted) {
      guard let item = byName[name] else {
        Issue.record("\(name.debugDescription) is in the Inbox without metadata (partial?)", sourceLocation: sourceLocation)
        continue
      }
      guard item["kind"] as? String != "folder", let sha256 = item["sha256"] as? String else { continue }
      let actual = try? sha256sum(receiver.inbox.appendingPathComponent(name))
      #expect(actual == sha256, "\(name.debugDescription) does not hold the bytes its metadata records", sourceLocation: sourceLocation)
    }
  }

  /// Every path under the receiver's folder and the contact's home, but for what the test ignores.
  private func snapshot() -> Set<String> {
    let ignoredPrefixes = ignored.map { $0.path }
    return Set(
      (everything(under: receiver.root) + everything(under: contact.home)).map(\.path).filter { path in
        !ignoredPrefixes.contains { path == $0 || path.hasPrefix($0 + "/") }
      })
  }
}
