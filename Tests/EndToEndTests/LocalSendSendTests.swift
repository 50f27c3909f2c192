import Foundation
import Testing

/// `share peers` and `share send` with a LocalSend device: localsend-cli's `receive` (PyPI),
/// announcing itself on loopback, heard by a `share daemon --localsend` on the same port.
@Suite(.serialized) struct LocalSendSendTests {
  /// `a`'s daemon with LocalSend on `localSendPort` (0: any), and localsend-cli receiving into
  /// `received`, announcing itself on a loopback multicast port the daemon hears, ready.
  static func receiving(_ a: ShareHome, localSendPort: UInt16) throws -> (
    daemon: Daemon, cli: LocalsendCLI, receiver: ChildProcess, output: URL, multicast: UInt16
  ) {
    let multicast = try freeLoopbackPort()
    let daemon = try a.startDaemon(arguments: [
      "--localsend", "--localsend-port", String(localSendPort), "--localsend-multicast-port", String(multicast),
    ])
    let cli = try LocalsendCLI(in: a)
    let output = a.root.appendingPathComponent("received")
    let receiver = try cli.start(["receive", "--output", output.path, "--json"], port: multicast)
    #expect(receiver.waitFor(timeout: .seconds(30)) { stdout, _, _ in String(decoding: stdout, as: UTF8.self).contains("\"ready\"") })
    return (daemon, cli, receiver, output, multicast)
  }

  /// The first LocalSend device `share peers --json` lists for `a`, polled for up to 20 s.
  static func firstHeard(by a: ShareHome) throws -> [String: Any]? {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
      let listed = try parseJSONLines(try a.share("peers", "--json", "--timeout", "1").stdoutText)
      if let peer = listed.first(where: { $0["protocol"] as? String == "localsend" }) { return peer }
    }
    return nil
  }

  @Test func sharePeersListsALocalsendReceiverAndShareSendsItAFilePinningItsFingerprint() throws {
    let a = try ShareHome(name: "lab-a")
    let (daemon, cli, receiver, output, multicast) = try Self.receiving(a, localSendPort: 0)
    defer { _ = daemon.stop() }
    defer { receiver.signal(SIGKILL) }

    // It announces every 5 s; the daemon hears it and share peers shows it, marked.
    let peer = try #require(try Self.firstHeard(by: a), "daemon log:\n\(daemon.log)")
    let alias = try #require(peer["name"] as? String)
    #expect(alias.hasPrefix("localsend-cli@"))
    #expect(peer["address"] as? String == "127.0.0.1")
    #expect(peer["port"] as? Int == Int(multicast))
    let text = try a.share("peers", "--timeout", "1")
    #expect(text.stdoutText.contains("(LocalSend)"), "\(text)")

    let notes = try a.file("notes.txt", "to a LocalSend receiver\n")
    let sent = try a.share("send", notes.path, "--to", alias, "--json")
    #expect(sent.exited(with: 0), "\(sent)")
    let events = try parseJSONLines(sent.stdoutText)
    #expect(events.contains { $0["event"] as? String == "stored" }, "\(sent)")
    #expect(filesAreIdentical(output.appendingPathComponent("notes.txt"), notes))
    // Its fingerprint is pinned under localsend:ALIAS.
    let known = try String(contentsOf: a.home.appendingPathComponent("known_peers.json"), encoding: .utf8)
    #expect(known.contains("localsend:\(alias)"), "\(known)")
    // Its owner answers on the device: the waiting line offers none of share's commands.
    let again = try a.file("again.txt", "once more\n")
    let plain = try a.share("send", again.path, "--to", alias)
    #expect(plain.exited(with: 0), "\(plain)")
    #expect(plain.stderrText.contains("waiting for its owner to accept on the LocalSend device"), "\(plain)")
    #expect(!plain.stderrText.contains("share requests"), "\(plain)")

    // Another device under the same alias (another certificate) is refused, naming both, and
    // gets nothing.
    let impostorCLI = try LocalsendCLI(in: try ShareHome(name: "impostor"))
    let impostorOutput = a.root.appendingPathComponent("impostor")
    let impostor = try impostorCLI.start(["receive", "--output", impostorOutput.path, "--json"], port: multicast)
    defer { impostor.signal(SIGKILL) }
    receiver.signal(SIGKILL)
    var other: [String: Any]? = nil
    let later = ContinuousClock.now + .seconds(20)
    while other == nil && ContinuousClock.now < later {
      other = try parseJSONLines(try a.share("peers", "--json", "--timeout", "1").stdoutText)
        .first { $0["protocol"] as? String == "localsend" && $0["fingerprint"] as? String != peer["fingerprint"] as? String }
    }
    let fingerprint = try #require(other?["fingerprint"] as? String, "daemon log:\n\(daemon.log)")
    #expect(other?["name"] as? String == alias)
    let refused = try a.share("send", notes.path, "--to", String(fingerprint.prefix(16)))
    #expect(refused.exited(with: 1), "\(refused)")
    #expect(refused.stderrText.contains("share trust forget localsend:\(alias)"), "\(refused)")
    #expect(refused.stderrText.contains(fingerprint), "\(refused)")
    #expect(!FileManager.default.fileExists(atPath: impostorOutput.appendingPathComponent("notes.txt").path))
  }

  /// Review 31: a stranger claiming a LocalSend device's fingerprint from its own address (with
  /// nothing listening at the port it gives) owned the device's entry; the device's own claim was
  /// ignored and `share send` went to the stranger's address. Both claims are listed, marked
  /// unverified, and the send tries each address until the certificate proves the fingerprint.
  @Test func aStrangerClaimingAReceiversFingerprintFromElsewhereIsMarkedAndTheFileStillReachesTheReceiver() throws {
    let a = try ShareHome(name: "lab-a")
    let port = try freeLoopbackPort()
    let (daemon, _, receiver, output, multicast) = try Self.receiving(a, localSendPort: port)
    defer { _ = daemon.stop() }
    defer { receiver.signal(SIGKILL) }
    func heard() throws -> [[String: Any]] {
      try parseJSONLines(try a.share("peers", "--json", "--timeout", "1").stdoutText).filter { $0["protocol"] as? String == "localsend" }
    }
    var listed: [[String: Any]] = []
    let deadline = ContinuousClock.now + .seconds(20)
    while listed.isEmpty && ContinuousClock.now < deadline { listed = try heard() }
    let phone = try #require(listed.first, "daemon log:\n\(daemon.log)")
    let alias = try #require(phone["name"] as? String)
    let fingerprint = try #require(phone["fingerprint"] as? String)

    // The stranger registers the phone's alias and fingerprint from 127.0.0.5, at a closed port.
    let closed = try freeLoopbackPort()
    let claim =
      #"{"alias":"\#(alias)","version":"2.1","deviceType":"mobile","fingerprint":"\#(fingerprint)","port":\#(closed),"#
      + #""protocol":"https","download":false}"#
    let registered = try ChildProcess(
      executable: URL(fileURLWithPath: "/usr/bin/curl"),
      arguments: [
        "-sk", "-w", "\n%{http_code}", "--interface", "127.0.0.5", "-H", "Content-Type: application/json", "--data", claim,
        "https://127.0.0.1:\(port)/api/localsend/v2/register",
      ], environment: ProcessInfo.processInfo.environment
    ).wait(timeout: .seconds(30))
    #expect(registered.stdoutText.hasSuffix("\n200"), "\(registered)")
    // Polled: under load a `share peers` may come back before the daemon lists both claims.
    var claims: [[String: Any]] = []
    let listedBoth = ContinuousClock.now + .seconds(20)
    repeat {
      claims = try heard().filter { $0["fingerprint"] as? String == fingerprint }
    } while Set(claims.compactMap { $0["address"] as? String }).count < 2 && ContinuousClock.now < listedBoth
    #expect(Set(claims.compactMap { $0["address"] as? String }) == ["127.0.0.1", "127.0.0.5"], "\(claims)")
    let squatter = try #require(claims.first { $0["address"] as? String == "127.0.0.5" })
    #expect(squatter["unverified"] as? String == "unverified: its fingerprint is also claimed from 127.0.0.1:\(multicast)", "\(claims)")

    let notes = try a.file("notes.txt", "to the real receiver\n")
    let sent = try a.share("send", notes.path, "--to", alias)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(filesAreIdentical(output.appendingPathComponent("notes.txt"), notes))
  }

  /// Review 34: a LocalSend device made a contact with `share trust add ITS-FINGERPRINT --name
  /// phone` was looked for among share devices only: `--to phone` found no nearby peer.
  @Test func aContactWhoseIDIsALocalsendDevicesFingerprintIsReachedByItsContactName() throws {
    let a = try ShareHome(name: "lab-a")
    let (daemon, _, receiver, output, _) = try Self.receiving(a, localSendPort: 0)
    defer { _ = daemon.stop() }
    defer { receiver.signal(SIGKILL) }
    let fingerprint = try #require(try Self.firstHeard(by: a)?["fingerprint"] as? String, "daemon log:\n\(daemon.log)")
    #expect(try a.share("trust", "add", fingerprint, "--name", "phone").exited(with: 0))
    let notes = try a.file("notes.txt", "to a contact's phone\n")
    let sent = try a.share("send", notes.path, "--to", "phone")
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(filesAreIdentical(output.appendingPathComponent("notes.txt"), notes))
  }
}
