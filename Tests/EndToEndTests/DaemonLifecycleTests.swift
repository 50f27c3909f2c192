import Foundation
import Glibc
import Testing

/// Starting and stopping `share daemon`.
@Suite struct DaemonLifecycleTests {
  @Test func theDaemonPrintsItsPortAndCreatesAnOwnerOnlyInbox() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon()
    defer { _ = daemon.stop() }
    #expect(daemon.port != 0)
    #expect(String(decoding: daemon.process.stdoutSoFar, as: UTF8.self) == "listening on port \(daemon.port)\n")
    #expect(permissions(b.inbox) == 0o700)
    #expect(permissions(b.documents.appendingPathComponent(".share")) == 0o700)
    // The port really is served.
    let connection = try PlainConnection(port: daemon.port)
    _ = connection
  }

  @Test func sigtermStopsTheDaemonWithExitCodeZeroEvenWithAConnectionOpen() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon()
    // A connection that never says anything, so a session is in flight.
    let idle = try PlainConnection(port: daemon.port)
    let stopped = daemon.stop(timeout: .seconds(8))
    withExtendedLifetime(idle) {}
    #expect(stopped.exited(with: 0), "\(stopped)")
    #expect(stopped.stderrText.contains("stopping"), "\(stopped)")
  }

  @Test func aSIGTERMSentTheMomentTheDaemonSaysItIsListeningStopsIt() throws {
    // A supervisor may stop a daemon as soon as it is up. A few tries, since the window is small.
    for _ in 0..<3 {
      let b = try ShareHome(name: "bob")
      let daemon = try b.startDaemon()  // returns as soon as 'listening on port N' is read
      daemon.process.signal(SIGTERM)
      let stoppedAtOnce = daemon.process.waitFor(timeout: .seconds(5)) { _, _, exited in exited }
      // Signals are blocked from the first line of main and taken by a sigwait thread: none is lost.
      #expect(stoppedAtOnce, "a SIGTERM sent right after 'listening' was ignored:\n\(daemon.log)")
      // Whatever became of that signal, the daemon is not wedged: SIGTERM stops it cleanly.
      let stopped = daemon.stop()
      #expect(stopped.exited(with: 0), "\(stopped)")
      #expect(stopped.stderrText.contains("stopping (signal 15)"), "\(stopped)")
    }
  }

  @Test func aSecondDaemonOnATakenPortFailsWithExit1AndAClearError() throws {
    let b = try ShareHome(name: "bob")
    let first = try b.startDaemon()
    defer { _ = first.stop() }
    let other = try ShareHome(name: "carol")
    let second = try other.share("daemon", "--port", String(first.port), "--host", "127.0.0.1", timeout: .seconds(20))
    #expect(second.exited(with: 1), "\(second)")
    #expect(second.stderrText.hasPrefix("Error: "), "\(second)")
    #expect(second.stderrText.contains(String(first.port)) || second.stderrText.lowercased().contains("in use"), "\(second)")
  }

  @Test func daemonJSONPrintsTheListeningEventAndOneParseableObjectPerEvent() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(json: true, trusting: [a])
    defer { _ = daemon.stop() }
    let aliceID = try a.deviceID()
    let sent = try a.share("send", try a.file("j.txt", "json").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(
      daemon.process.waitFor(timeout: .seconds(20)) { stdout, _, _ in
        String(decoding: stdout, as: UTF8.self).contains("\"finished\"")
      })
    let stopped = daemon.stop()
    let events = try parseJSONLines(stopped.stdoutText)
    let kinds = events.compactMap { $0["event"] as? String }
    #expect(kinds.count == events.count, "\(stopped)")
    let listening = try #require(events.first { $0["event"] as? String == "listening" }, "\(kinds)")
    #expect((listening["port"] as? NSNumber)?.uint16Value == daemon.port)
    for kind in ["connected", "asked", "stored", "finished"] {
      #expect(kinds.contains(kind), "no \(kind) event in \(kinds)")
    }
    let stored = try #require(events.first { $0["event"] as? String == "stored" })
    #expect(stored["peer_id"] as? String == aliceID)
    #expect(stored["peer_name"] as? String == "alice")
    #expect(stored["stored_as"] as? String == "j.txt")
  }
}

/// `--on-receive`: the owner's command runs for each stored item with its metadata in the
/// environment, never with a name from the network spliced into a shell line.
@Suite struct ArrivalHookTests {
  @Test func theOnReceiveCommandGetsTheItemInItsEnvironmentAndNamesAreNeverInterpolated() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let log = b.home.appendingPathComponent("hook.log")
    // A hook runs in the daemon's working folder, which is this test process's.
    let canaryName = "share-pwned-\(UUID().uuidString.prefix(8))"
    let canary = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(canaryName)
    defer { try? FileManager.default.removeItem(at: canary) }
    let command =
      "printf '%s|%s|%s|%s|%s|%s\\n' \"$SHARE_ITEM_SHA256\" \"$SHARE_SENDER_VERIFIED\" \"$SHARE_ITEM_NAME\" \"$SHARE_SENDER_NAME\" "
      + "\"$SHARE_ITEM_TYPE\" \"$SHARE_ITEM_PATH\" >> '\(log.path)'"
    // Unconfined, so that the hook could create the canary if the name were run.
    let daemon = try b.startDaemon(trusting: [a], arguments: ["--on-receive", command, "--hooks-unconfined"])
    defer { _ = daemon.stop() }
    let hostile = try a.file("$(touch \(canaryName)).txt", "a name that tries to run a command\n")
    let sent = try a.share("send", hostile.path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    let deadline = ContinuousClock.now + .seconds(20)
    // The shell creates the log before printf writes to it: wait for a whole line.
    var line = ""
    while !line.hasSuffix("\n") && ContinuousClock.now < deadline {
      usleep(10_000)
      line = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    }
    #expect(line.contains("|1|$(touch \(canaryName)).txt|alice|public.plain-text|\(b.inbox.path)/"), "hook log: \(line)")
    #expect(line.hasPrefix(try sha256sum(hostile) + "|"), "SHARE_ITEM_SHA256 is the content's SHA-256: \(line)")
    #expect(!FileManager.default.fileExists(atPath: canary.path), "the name was run as a command")
  }
}
