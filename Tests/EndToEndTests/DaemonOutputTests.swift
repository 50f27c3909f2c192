import Foundation
import Glibc
import Testing

/// What a daemon says (and what `--json` streams carry): a second daemon names the first one's
/// PID and says nothing of receiving; an ask is an event with its number, sender and items;
/// an error before anything is sent is a JSON line too; no event has an empty `to`.
@Suite struct DaemonOutputTests {
  @Test func aSecondDaemonInTheSameHomeNamesTheRunningOnesPIDAndSaysNothingOfReceiving() throws {
    let b = try ShareHome(name: "bob")
    let first = try b.startDaemon()
    defer { _ = first.stop() }
    let second = try b.share("daemon", "--port", "0", "--host", "127.0.0.1", timeout: .seconds(20))
    #expect(second.exited(with: 1), "\(second)")
    #expect(second.stderrText.contains("already running for this home (pid \(first.process.pid))"), "\(second)")
    #expect(!second.stderrText.contains("receiving as") && !second.stderrText.contains("type declarations"), "\(second)")
    #expect(second.stdout.isEmpty, "\(second)")
    #expect(first.isRunning)
    // On the first one's own port: the same, not that the port is in use (review 18).
    let samePort = try b.share("daemon", "--port", String(first.port), "--host", "127.0.0.1", timeout: .seconds(20))
    #expect(samePort.exited(with: 1) && samePort.stderrText.contains("already running for this home"), "\(samePort)")
  }

  /// Review 45: without --home, a daemon started with $XDG_RUNTIME_DIR (the systemd user unit)
  /// and one started without it (cron, su) both ran on one identity and one Inbox.
  @Test func aSecondDaemonOfTheDefaultHomeIsRefusedWhateverItsRuntimeFolder() throws {
    let b = try ShareHome(name: "bob")
    let runtime = b.root.appendingPathComponent("xdg-runtime")
    try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let arguments = ["daemon", "--port", "0", "--host", "127.0.0.1", "--name", "bob"]
    let first = try b.start(arguments, environment: ["XDG_RUNTIME_DIR": runtime.path])
    defer {
      first.signal(SIGTERM)
      _ = first.wait(timeout: .seconds(20))
    }
    let listening = first.waitFor(timeout: .seconds(30)) { stdout, _, exited in
      exited || String(decoding: stdout, as: UTF8.self).contains("listening on port")
    }
    #expect(listening && first.isRunning, "the first daemon did not start")
    let second = try b.run(arguments, timeout: .seconds(20))
    #expect(second.exited(with: 1) && second.stderrText.contains("already running for this home (pid \(first.pid))"), "\(second)")
  }

  @Test func daemonJSONReportsAnAskWithItsNumberSenderAndItems() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(json: true, arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let sender = try a.startShare("send", try a.file("a.txt", "a\n").path, try a.pngFile("p.png").path, "--to", daemon.address)
    defer { sender.signal(SIGKILL) }
    var ask: [String: Any]? = nil
    daemon.process.waitFor(timeout: .seconds(20)) { stdout, _, _ in
      ask = (try? parseJSONLines(String(decoding: stdout, as: UTF8.self)))?.first { $0["event"] as? String == "ask" }
      return ask != nil
    }
    let event = try #require(ask, "no ask event:\n\(String(decoding: daemon.process.stdoutSoFar, as: UTF8.self))")
    #expect(event["ask"] as? Int == 1, "\(event)")
    #expect(event["peer_name"] as? String == "alice")
    #expect(event["peer_id"] as? String == (try a.deviceID()))
    let items = try #require(event["items"] as? [[String: Any]])
    #expect(items.compactMap { $0["name"] as? String } == ["a.txt", "p.png"], "\(items)")
    #expect(items.first?["size"] as? Int == 2, "\(items)")
  }

  /// Review 18: the daemon's own refusal was logged as "the peer refused"; its events did not
  /// say who a peer is here (a contact named otherwise, a stranger using a contact's name), and
  /// `asked` told what was accepted as `stored`.
  @Test func theDaemonSaysItRefusedAndWhoEachPeerIsHere() throws {
    let (a, b, c) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"), try ShareHome(name: "carol"))
    #expect(try b.share("trust", "add", try a.deviceID(), "--name", "lab-alice").exited(with: 0))
    let daemon = try b.startDaemon(json: true, arguments: ["--mode", "contacts"])
    defer { _ = daemon.stop() }
    let stranger = try c.share("send", try c.file("c.txt", "c\n").path, "--to", daemon.address)
    #expect(stranger.exited(with: 4), "\(stranger)")
    #expect(try a.share("send", try a.file("a.txt", "a\n").path, "--to", daemon.address).exited(with: 0))
    var events: [[String: Any]] = []
    daemon.process.waitFor(timeout: .seconds(20)) { stdout, _, _ in
      events = (try? parseJSONLines(String(decoding: stdout, as: UTF8.self))) ?? []
      return events.contains { $0["event"] as? String == "finished" }
    }
    let refused = events.first { $0["event"] as? String == "connection_failed" }
    #expect((refused?["reason"] as? String)?.hasPrefix("refused: the receiver accepts only its contacts") == true, "\(events)")
    let asked = events.first { $0["event"] as? String == "asked" }
    #expect(asked?["offered"] as? Int == 1 && asked?["accepted"] as? Int == 1, "\(String(describing: asked))")
    let stored = events.first { $0["event"] as? String == "stored" }
    #expect(
      stored?["contact_name"] as? String == "lab-alice" && stored?["peer_name"] as? String == "alice", "\(String(describing: stored))")
  }

  /// Review 23: a connection that failed after its peer proved who it is was logged by address
  /// only.
  @Test func aFailedConnectionNamesThePeerThatProvedItself() throws {
    let (b, c) = (try ShareHome(name: "bob"), try ShareHome(name: "carol"))
    let daemon = try b.startDaemon(arguments: ["--mode", "contacts"])
    defer { _ = daemon.stop() }
    let stranger = try c.share("send", try c.file("c.txt", "c\n").path, "--to", daemon.address)
    #expect(stranger.exited(with: 4), "\(stranger)")
    let short = String(try c.deviceID().prefix(12))
    #expect(daemon.waitForLog("connection from carol (\(short)) at 127.0.0.1 failed: refused"), "\(daemon.log)")
  }

  @Test func sendJSONReportsAnErrorBeforeConnectingAsAnEvent() throws {
    let a = try ShareHome(name: "alice")
    let missing = try a.share("send", a.files.appendingPathComponent("missing.txt").path, "--to", "127.0.0.1:9", "--json")
    #expect(missing.exited(with: 1), "\(missing)")
    let event = try #require(try parseJSONLines(missing.stdoutText).first, "\(missing)")
    #expect(event["event"] as? String == "error" && event["exit_code"] as? Int == 1, "\(event)")
    #expect((event["message"] as? String)?.contains("missing.txt") == true, "\(event)")
    #expect(missing.stderrText.hasPrefix("Error: "), "\(missing)")

    let usage = try a.share("send", try a.file("x.txt", "x").path, "--to", "127.0.0.1:99999", "--json")
    #expect(usage.exited(with: 64), "\(usage)")
    #expect(try parseJSONLines(usage.stdoutText).first?["exit_code"] as? Int == 64, "\(usage)")
  }

  /// Found by an outside review: a send whose connection failed ended its --json stream with a
  /// `failed` event and no `error`.
  @Test func sendJSONEndsWithAnErrorEventWhenTheConnectionFails() throws {
    let a = try ShareHome(name: "alice")
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    let refused = try a.share("send", try a.file("x.txt", "x").path, "--to", "127.0.0.1:9", "--json")
    #expect(refused.exited(with: 1), "\(refused)")
    let last = try #require(try parseJSONLines(refused.stdoutText).last, "\(refused)")
    #expect(last["event"] as? String == "error" && last["exit_code"] as? Int == 1, "\(last)")
    #expect((last["message"] as? String)?.isEmpty == false, "\(last)")
  }

  /// Review 17: an ask of 81,000 items, withdrawn, wrote a log line per item (per connection
  /// folded into it): 648,000 lines. An ask's refusals past the first 100 are one line.
  @Test func anAsksRefusalsPastTheFirstHundredAreCountedInOneLine() throws {
    try expectRefusalsFolded(250, named: "run-", ".sh", holding: "#!/bin/sh\n")
  }

  /// Review 34: refusals on content (after the bytes came) were a line each, folded nowhere.
  @Test func refusalsOnContentPastTheFirstHundredAreCountedInOneLine() throws {
    try expectRefusalsFolded(130, named: "note-", ".txt", holding: "#!/bin/sh\necho hello\n")
  }

  /// The daemon's log escaped its own reasons again: a name's backslash, escaped once in the
  /// reason, was shown as four (the name before it, as two). Shown as made, raw characters
  /// still escaped.
  @Test func theLogShowsARefusalsReasonEscapedOnce() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let file = try a.file("Q3\\draft.txt", "#!/bin/sh\necho hello\n").path
    let sent = try a.run(["--home", a.home.path, "send", file, "--to", daemon.address, "--quiet"])
    #expect(sent.exited(with: 4), "\(sent)")
    #expect(daemon.waitForLog("1 refused"), "\(daemon.log.suffix(2000))")
    let line = daemon.log.split(separator: "\n").first { $0.hasPrefix("share: refused ") } ?? ""
    #expect(line.hasPrefix(#"share: refused Q3\\draft.txt from alice"#), "\(line)")
    #expect(line.contains(#": Q3\\draft.txt is a shell script"#), "\(line)")
  }

  /// Sends `count` shell scripts under these names from a trusted sender; the daemon's log names
  /// the first 100 refusals and counts the rest in one line.
  private func expectRefusalsFolded(_ count: Int, named prefix: String, _ suffix: String, holding content: String) throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let files = try (0..<count).map { try a.file("\(prefix)\($0)\(suffix)", content).path }
    let sent = try a.run(["--home", a.home.path, "send"] + files + ["--to", daemon.address, "--quiet"])
    #expect(sent.exited(with: 4), "\(sent)")
    #expect(daemon.waitForLog("\(count) refused"), "\(daemon.log.suffix(2000))")
    let lines = daemon.log.split(separator: "\n")
    #expect(lines.filter { $0.hasPrefix("share: refused \(prefix)") }.count == 100, "\(lines.count) lines")
    #expect(
      lines.contains { $0.hasPrefix("share: refused \(count - 100) more items from alice") && $0.contains("shell script") },
      "\(daemon.log.suffix(2000))")
  }

  /// Review 38: a receiver in mode off (or contacts only, for a stranger) refuses the
  /// connection; the --json stream ended with neither `done` nor `error`.
  @Test func aSendRefusedByTheReceiversModeEndsItsJSONWithAnError() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(arguments: ["--mode", "off"])
    defer { _ = daemon.stop() }
    let sent = try a.share("send", try a.file("a.txt", "a\n").path, "--to", daemon.address, "--json")
    #expect(sent.exited(with: 4), "\(sent)")
    let last = try #require(try parseJSONLines(sent.stdoutText).last, "\(sent)")
    #expect(last["event"] as? String == "error" && last["exit_code"] as? Int == 4, "\(last)")
    #expect((last["message"] as? String)?.contains("not receiving") == true, "\(last)")
  }

  @Test func noSendEventHasAnEmptyTo() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let folder = a.files.appendingPathComponent("trip")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("x\n".utf8).write(to: folder.appendingPathComponent("x.txt"))
    try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path, withDestinationPath: "/etc/hostname")
    let sent = try a.share("send", folder.path, "--to", daemon.address, "--json")
    #expect(sent.exited(with: 3), "the link was left out: \(sent)")
    let events = try parseJSONLines(sent.stdoutText)
    #expect(events.contains { $0["event"] as? String == "warning" && $0["to"] == nil }, "\(events)")
    #expect(events.allSatisfy { ($0["to"] as? String).map { !$0.isEmpty } ?? ($0["event"] as? String == "warning") }, "\(events)")
    #expect(events.contains { $0["event"] as? String == "sending" && $0["item"] as? String == "trip/x.txt" }, "\(events)")
  }
}
