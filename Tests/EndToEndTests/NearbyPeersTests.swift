import Foundation
import Glibc
import Testing

/// Peers found through the shared loopback Avahi, as a user meets them: records grouped only by
/// what was verified (issue 11.5), every address of a receiver tried at once, no `--to` meaning
/// the one peer nearby or a choice (issue 12.1), one's own daemon named as such.
///
/// Other helpers' daemons may be visible on the same Avahi while these run: every name here
/// carries a random tag, and each test asserts on the peers it started, never on the whole list.
@Suite(.serialized) struct NearbyPeersTests {
  static func tag() -> String { String(UUID().uuidString.prefix(8)).lowercased() }

  /// bob trusts alice; alice's daemon runs; then `np-aaa-spoof-TAG` (sorted before alice, as the
  /// issue's `aaa-spoof`) advertises alice's ID at a port that never answers. Published once
  /// alice is seen, the copy is the record Avahi reports first (a sender that merged records by
  /// their claimed ID then tried the copy's address first and stalled for its handshake).
  final class Spoof {
    let tag = NearbyPeersTests.tag()
    let alice: ShareHome
    let bob: ShareHome
    let daemon: Daemon
    let silent: SilentPort
    let fake: FakeAdvertiser
    let aliceID: String

    init() throws {
      alice = try ShareHome(name: "np-alice-\(tag)")
      bob = try ShareHome(name: "np-bob-\(tag)")
      aliceID = try alice.deviceID()
      silent = try SilentPort()
      daemon = try alice.startDaemon(trusting: [bob])
      let trusted = try bob.share("trust", "add", aliceID, "--name", alice.name)
      guard trusted.exited(with: 0) else { throw HarnessError("'share trust add' failed:\n\(trusted)") }
      _ = try bob.waitToSee([alice.name])
      fake = try FakeAdvertiser(name: "np-aaa-spoof-\(tag)", port: silent.port, txt: ["v=1", "id=\(aliceID)"])
      _ = try bob.waitToSee([alice.name, fake.name])
    }

    deinit { _ = daemon.stop() }
  }

  @Test func aRecordCopyingAContactsIDIsListedApartMarkedUnverifiedAndNeverAsTheContact() throws {
    let spoof = try Spoof()
    let listed = try spoof.bob.waitToSee([spoof.alice.name, spoof.fake.name])
    let contact = try #require(listed.first { $0["name"] as? String == spoof.alice.name })
    let fake = try #require(listed.first { $0["name"] as? String == spoof.fake.name }, "\(listed)")
    #expect(contact["trusted"] as? Bool == true && contact["standing"] as? String == "known", "\(contact)")
    #expect((contact["aliases"] as? [String])?.isEmpty == true, "the contact is shown under another name: \(contact)")
    #expect(fake["trusted"] as? Bool == false && fake["standing"] as? String == "unverified", "\(fake)")
    #expect((fake["unverified"] as? String)?.contains(spoof.alice.name) == true, "\(fake)")
    let ports = (contact["addresses"] as? [[String: Any]] ?? []).compactMap { $0["port"] as? Int }
    #expect(!ports.contains(Int(spoof.silent.port)), "the fake's address was merged into the contact: \(contact)")

    let human = try spoof.bob.share("peers", "--timeout", "3")
    let fakeLine = human.stdoutLines.first { $0.hasPrefix(spoof.fake.name) } ?? ""
    #expect(fakeLine.contains("unverified") && !fakeLine.contains("contact)"), "\(human)")
  }

  @Test func aSendByTheCopysNameIsRefusedNamingBothAndReachesNobody() throws {
    let spoof = try Spoof()
    let sent = try spoof.bob.share("send", try spoof.bob.file("for-spoof.txt", "hi\n").path, "--to", spoof.fake.name)
    #expect(sent.exited(with: 1), "\(sent)")
    #expect(sent.stderrText.contains("\(spoof.fake.name) advertises the device ID"), "\(sent)")
    #expect(sent.stderrText.contains(spoof.alice.name), "\(sent)")
    #expect(!spoof.alice.inboxNames().contains("for-spoof.txt"))
    #expect(spoof.silent.accepted == 0, "the fake's address was contacted")
  }

  @Test func aSendToTheContactByNameNeverTouchesTheCopysAddress() throws {
    let spoof = try Spoof()
    let sent = try spoof.bob.share("send", try spoof.bob.file("for-alice.txt", "hi\n").path, "--to", spoof.alice.name)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(spoof.alice.inboxNames().contains("for-alice.txt"))
    #expect(spoof.silent.accepted == 0, "the fake's address was contacted for a send by the contact's name")
    // Named as what answered: the contact at its own address, never the copy.
    #expect(sent.stderrText.contains("Connected to \(spoof.alice.name) at \(spoof.daemon.address)"), "\(sent)")
    #expect(!sent.stderrText.contains(spoof.fake.name), "\(sent)")
  }

  @Test func aSendByTheContactsIDPrefixRacesPastTheCopyAndClosesIt() throws {
    let spoof = try Spoof()
    let file = try spoof.bob.file("by-id.txt", "hi\n")
    // Run in the background: a sender that waited for the silent address would still be waiting
    // for its handshake long after the contact has answered.
    let child = try spoof.bob.startShare("send", file.path, "--to", String(spoof.aliceID.prefix(12)))
    let finished = child.waitFor(timeout: .seconds(60)) { _, _, exited in exited }
    let sent = child.wait(timeout: .seconds(1))
    #expect(finished && sent.exited(with: 0), "\(sent)")
    #expect(spoof.alice.inboxNames().contains("by-id.txt"))
    let deadline = ContinuousClock.now + .seconds(10)
    while spoof.silent.closedByPeer < spoof.silent.accepted && ContinuousClock.now < deadline { usleep(10_000) }
    #expect(spoof.silent.closedByPeer == spoof.silent.accepted, "the losing address was left open")
  }

  /// Review 18: `--json` named each receiver as it was found (`"to":"server-01"` for `--to srv`
  /// or an ID prefix), and a script could not tell which of its `--to` an event was for.
  @Test func everySendEventCarriesTheToArgumentItWasFoundFor() throws {
    let spoof = try Spoof()
    let prefix = String(spoof.aliceID.prefix(12))
    let sent = try spoof.bob.share("send", try spoof.bob.file("json.txt", "hi\n").path, "--to", prefix, "--json")
    #expect(sent.exited(with: 0), "\(sent)")
    let events = try parseJSONLines(sent.stdoutText).filter { $0["to"] != nil }
    #expect(!events.isEmpty && events.allSatisfy { $0["target"] as? String == prefix }, "\(sent)")
  }

  // MARK: No --to (issue 12.1)

  @Test func withoutToOnANonTerminalSeveralPeersAreListedAndNothingIsSent() throws {
    let tag = Self.tag()
    let sender = try ShareHome(name: "np3-sender-\(tag)")
    let homes = try ["a", "b", "c"].map { try ShareHome(name: "np3-\(tag)-\($0)") }
    let daemons = try homes.map { try $0.startDaemon(trusting: [sender]) }
    defer { daemons.forEach { _ = $0.stop() } }
    _ = try sender.waitToSee(homes.map(\.name))
    let sent = try sender.share("send", try sender.file("who.txt", "?\n").path)
    #expect(sent.exited(with: 1), "\(sent)")
    #expect(sent.stderrText.contains("several peers are nearby"), "\(sent)")
    for home in homes {
      #expect(sent.stderrText.contains(home.name), "\(home.name) is not listed:\n\(sent)")
      #expect(home.inboxNames().isEmpty, "\(home.name) was sent to without being chosen")
    }
  }

  @Test func withoutToTheOnePeerNearbyIsSentTo() throws {
    let tag = Self.tag()
    let sender = try ShareHome(name: "np1-sender-\(tag)")
    let only = try ShareHome(name: "np1-\(tag)")
    let daemon = try only.startDaemon(trusting: [sender])
    defer { _ = daemon.stop() }
    _ = try sender.waitToSee([only.name])
    // Judged by what the send itself saw: other daemons on the shared Avahi (this suite's, which
    // runs serialized, or another helper's) come and go between a listing and the send.
    let sent = try sender.share("send", try sender.file("one.txt", "1\n").path)
    if !sent.stderrText.contains("several peers are nearby") {
      #expect(sent.exited(with: 0), "\(sent)")
      #expect(sent.stderrText.contains("Connected to \(only.name) at \(daemon.address)"), "\(sent)")
      #expect(only.inboxNames() == ["one.txt"])
    } else {
      // Another daemon was visible: then "the one peer" does not exist, and the refusal must
      // list ours among them (interference, not a failure).
      #expect(sent.exited(with: 1) && sent.stderrText.contains(only.name), "\(sent)")
      #expect(only.inboxNames().isEmpty)
    }
  }

  @Test func withoutToOnATerminalAPersonChoosesByNumber() throws {
    let tag = Self.tag()
    let sender = try ShareHome(name: "npt-sender-\(tag)")
    let homes = try ["a", "b"].map { try ShareHome(name: "npt-\(tag)-\($0)") }
    let daemons = try homes.map { try $0.startDaemon(trusting: [sender]) }
    defer { daemons.forEach { _ = $0.stop() } }
    _ = try sender.waitToSee(homes.map(\.name))
    let file = try sender.file("chosen.txt", "me\n")
    let shell =
      ([try ShareBinary.require().path, "--home", sender.home.path, "send", file.path]).map(shellQuoted).joined(separator: " ")
      + "; echo share-exit=$?; exec sleep 600"
    var environment = sender.environment()
    environment["TMUX"] = nil
    let session = try TmuxSession(command: shell, width: 160, height: 40, environment: environment)
    let asked = try session.waitForScreen {
      $0.contains { $0.contains("Send to which one?") } || $0.contains { $0.hasPrefix("share-exit=") }
    }
    let line = try #require(
      asked.screen.first { $0.contains(homes[1].name) }, "no choice offered:\n\(asked.screen.joined(separator: "\n"))")
    let number = try #require(line.split(separator: ".").first.map { $0.trimmingCharacters(in: .whitespaces) })
    try session.type(number, "Enter")
    let after = try session.waitForScreen { $0.contains { $0.hasPrefix("share-exit=") } }
    #expect(after.screen.contains("share-exit=0"), "\(after.screen.joined(separator: "\n"))")
    #expect(homes[1].inboxNames() == ["chosen.txt"] && homes[0].inboxNames().isEmpty)
  }

  // MARK: This home's own daemon (issue 12)

  @Test func sendingToThisHomesOwnDaemonSaysSo() throws {
    let home = try ShareHome(name: "np-self-\(Self.tag())")
    let daemon = try home.startDaemon()
    defer { _ = daemon.stop() }
    _ = try home.waitToSee([home.name])
    let sent = try home.share("send", try home.file("me.txt", "me\n").path, "--to", home.name)
    #expect(sent.exited(with: 1), "\(sent)")
    #expect(sent.stderrText.contains("'\(home.name)' is this device (\(home.name)"), "\(sent)")
    #expect(!sent.stderrText.contains("no nearby peer is called"), "\(sent)")
  }

  // MARK: --watch (issue 12)

  @Test func watchReportsEachAppearanceAndDisappearanceOnce() throws {
    let tag = Self.tag()
    let watcher = try ShareHome(name: "npw-watcher-\(tag)")
    let watched = try ShareHome(name: "npw-\(tag)")
    let watch = try watcher.startShare("peers", "--watch", "--json")
    defer { watch.signal(SIGTERM) }
    func events(_ kind: String, in stdout: Data? = nil) -> Int {
      String(decoding: stdout ?? watch.stdoutSoFar, as: UTF8.self).split(separator: "\n").filter { line in
        line.contains("\"name\":\"\(watched.name)\"") && line.contains("\"event\":\"\(kind)\"")
      }.count
    }
    let daemon = try watched.startDaemon()
    #expect(watch.waitFor(timeout: .seconds(30)) { stdout, _, _ in events("appeared", in: stdout) >= 1 }, "never appeared")
    // A second browse of the same records (another client asking Avahi) re-announces nothing.
    _ = try watcher.nearbyPeers()
    _ = daemon.stop()
    #expect(watch.waitFor(timeout: .seconds(30)) { stdout, _, _ in events("disappeared", in: stdout) >= 1 }, "never disappeared")
    #expect(events("appeared") == 1 && events("disappeared") == 1, "\(String(decoding: watch.stdoutSoFar, as: UTF8.self))")
  }

  /// Review 16: `--watch --timeout` was taken and ignored (it watched until interrupted).
  @Test func watchWithATimeoutEndsAfterIt() throws {
    let watcher = try ShareHome(name: "npw-timeout-\(Self.tag())")
    let watched = try watcher.share("peers", "--watch", "--timeout", "1", "--json", timeout: .seconds(20))
    #expect(watched.exited(with: 0), "\(watched)")
  }

  /// Review 16: `share peers --watch | head -1` never ended: SIGPIPE is ignored, and the write's
  /// EPIPE was too. The watch ends at its first write after its reader is gone.
  @Test func watchEndsWhenItsReaderIsGone() throws {
    let tag = Self.tag()
    let watcher = try ShareHome(name: "npw-gone-\(tag)")
    let pipeline = Process()
    pipeline.executableURL = URL(fileURLWithPath: "/bin/sh")
    pipeline.arguments = [
      "-c", #""$0" --home "$1" peers --watch --json 2>/dev/null | head -c 1 >/dev/null"#, try ShareBinary.require().path,
      watcher.home.path,
    ]
    try pipeline.run()
    defer {
      // A watch that went on would keep this test's output open (and the test run waiting).
      if pipeline.isRunning { _ = try? Process.run(URL(fileURLWithPath: "/usr/bin/pkill"), arguments: ["-f", watcher.home.path]) }
    }
    // Appearing gives `head` its byte, and it leaves; disappearing is the write that finds no reader.
    let daemon = try ShareHome(name: "npw-gone-peer-\(tag)").startDaemon()
    usleep(2_000_000)
    _ = daemon.stop()
    let deadline = ContinuousClock.now + .seconds(30)
    while pipeline.isRunning && ContinuousClock.now < deadline { usleep(100_000) }
    #expect(!pipeline.isRunning, "share peers --watch went on writing into a closed pipe")
  }
}
