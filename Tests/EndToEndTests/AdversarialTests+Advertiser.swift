import Foundation
import Testing

/// A fake advertiser: a DNS-SD record that copies a contact's device ID (anyone can put any ID in
/// a TXT record) and points at a port that never answers.
extension AdversarialTests {
  /// bob trusts alice; alice's daemon runs; `adv-spoof-TAG` advertises alice's ID at a silent port.
  final class Spoof {
    let tag = String(UUID().uuidString.prefix(8)).lowercased()
    let alice: ShareHome
    let bob: ShareHome
    let daemon: Daemon
    let hole: SilentPort
    let fake: FakeAdvertiser

    init() throws {
      alice = try ShareHome(name: "adv-alice-\(tag)")
      bob = try ShareHome(name: "adv-bob-\(tag)")
      let trusted = try bob.share("trust", "add", try alice.deviceID(), "--name", alice.name)
      guard trusted.exited(with: 0) else { throw HarnessError("'share trust add' failed:\n\(trusted)") }
      hole = try SilentPort()
      // Published first, so it is in Avahi's cache before the real record.
      fake = try FakeAdvertiser(name: "adv-spoof-\(tag)", port: hole.port, txt: ["v=1", "id=\(try alice.deviceID())"])
      daemon = try alice.startDaemon(trusting: [bob])
      let deadline = ContinuousClock.now + .seconds(20)
      while ContinuousClock.now < deadline {
        let names = Set(try peers().flatMap { [$0["name"] as? String ?? ""] + ($0["aliases"] as? [String] ?? []) })
        if names.isSuperset(of: [alice.name, fake.name]) { return }
      }
      throw HarnessError("share peers never saw both \(alice.name) and \(fake.name):\n\(try peers())")
    }

    deinit { _ = daemon.stop() }

    /// What bob's `share peers --json` lists now (our tag's records only).
    func peers() throws -> [[String: Any]] {
      let result = try bob.share("peers", "--json", "--timeout", "3")
      guard result.exited(with: 0) else { throw HarnessError("'share peers' failed:\n\(result)") }
      return try parseJSONLines(result.stdoutText).filter { peer in
        ([peer["name"] as? String ?? ""] + (peer["aliases"] as? [String] ?? [])).contains { $0.hasSuffix(tag) }
      }
    }
  }

  @Test func aRecordCopyingAContactsIDIsNeverShownAsThatContact() throws {
    let spoof = try Spoof()
    let listed = try spoof.peers()
    for peer in listed {
      let names = [peer["name"] as? String ?? ""] + (peer["aliases"] as? [String] ?? [])
      if names.contains(spoof.fake.name) {
        #expect(peer["trusted"] as? Bool == false, "the impostor is shown as a contact: \(peer)")
      }
      if names.contains(spoof.alice.name) {
        #expect(!names.contains(spoof.fake.name), "the contact is shown under the impostor's name: \(peer)")
      }
    }
  }

  @Test func aSendToTheImpostorsNameNeverReachesTheContact() throws {
    let spoof = try Spoof()
    let sent = try spoof.bob.share(
      "send", try spoof.bob.file("for-spoof.txt", "hi\n").path, "--to", spoof.fake.name, timeout: .seconds(60))
    #expect(!spoof.alice.inboxNames().contains("for-spoof.txt"), "sent to the contact by the impostor's name:\n\(sent)")
  }

  @Test func aSendToTheContactDoesNotWaitForTheImpostorsAddress() throws {
    let spoof = try Spoof()
    let sent = try spoof.bob.share(
      "send", try spoof.bob.file("for-alice.txt", "hi\n").path, "--to", spoof.alice.name, timeout: .seconds(60))
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(spoof.alice.inboxNames().contains("for-alice.txt"))
    // Not a speed test (the delay is measured in the benchmark): a send by name resolves the name
    // itself and never connects to the copy's address, which accepts and then says nothing, so
    // a sender that tried it would wait out its handshake limit there.
    #expect(spoof.hole.accepted == 0, "the send connected \(spoof.hole.accepted) time(s) to the copy's address")
  }
}
