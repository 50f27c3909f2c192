import Foundation
import Testing

/// What `share send` prints: results on stdout, the rest on stderr, or JSON events with `--json`.
@Suite struct SendOutputTests {
  @Test func sendPrintsOneLinePerItemOnStdoutAndTheReceiverIDOnStderr() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let bobID = try b.deviceID()
    let grouped = stride(from: 0, to: 64, by: 4).map { offset -> String in
      let start = bobID.index(bobID.startIndex, offsetBy: offset)
      return String(bobID[start..<bobID.index(start, offsetBy: 4)])
    }.joined(separator: "-")

    let result = try a.share("send", try a.file("one.txt", "one\n").path, try a.file("two.txt", "two\n").path, "--to", daemon.address)
    #expect(result.exited(with: 0), "\(result)")
    #expect(result.stdoutLines == ["stored   one.txt", "stored   two.txt"], "\(result)")
    // On a pipe: no progress bar, just the connection, the receiver's ID and the summary.
    #expect(
      result.stderrLines.dropLast() == [
        "Connected to bob at \(daemon.address)",
        "  receiver ID: \(grouped)",
      ], "\(result)")
    // The summary: items, bytes and time (and the average rate, when it took a second or more).
    let summary = try #require(result.stderrLines.last)
    #expect(summary.hasPrefix("2 of 2 stored in bob's Inbox: 8 bytes in "), "\(result)")
  }

  @Test func sendJSONPrintsParseableEventsFromConnectedToDone() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let bobID = try b.deviceID()
    let file = try a.file("notes.txt", "hello\n")

    let result = try a.share("send", file.path, "--to", daemon.address, "--json")
    #expect(result.exited(with: 0), "\(result)")
    let events = try parseJSONLines(result.stdoutText)
    let kinds = events.compactMap { $0["event"] as? String }
    #expect(kinds.count == events.count, "every line has an event: \(result.stdoutText)")
    #expect(kinds.first == "connected" && kinds.last == "done", "\(kinds)")
    #expect(kinds.contains("stored"))

    let connected = try #require(events.first { $0["event"] as? String == "connected" })
    #expect(connected["peer_id"] as? String == bobID)
    #expect(connected["peer_name"] as? String == "bob")
    let stored = try #require(events.first { $0["event"] as? String == "stored" })
    #expect(stored["item"] as? String == "notes.txt")
    #expect(stored["stored_as"] as? String == "notes.txt")
    #expect(stored["sha256"] as? String == (try sha256sum(file)))
    let done = try #require(events.last)
    #expect((done["stored"] as? NSNumber)?.intValue == 1)
    #expect((done["failed"] as? NSNumber)?.intValue == 0)
    #expect((done["refused"] as? NSNumber)?.intValue == 0)
    #expect(done["seconds"] is NSNumber, "\(done)")
    #expect(b.inboxNames() == ["notes.txt"])
    // Review 20: a send that streamed nothing (all refused) had no `seconds` in `done`.
    let refused = try a.share("send", try a.file("tool.exe", "MZ\u{0}\u{0}").path, "--to", daemon.address, "--json")
    let last = try #require(try parseJSONLines(refused.stdoutText).last)
    #expect(last["event"] as? String == "done" && (last["seconds"] as? NSNumber)?.doubleValue == 0, "\(refused)")
  }

  @Test func quietSendPrintsNothingWhenAllIsStored() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let result = try a.share("send", try a.file("q.txt", "quiet\n").path, "--to", daemon.address, "--quiet")
    #expect(result.exited(with: 0), "\(result)")
    #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
    #expect(b.inboxNames() == ["q.txt"])
    // Found by an outside review: what was refused went unsaid under --quiet (exit 4 alone).
    let refused = try a.share("send", try a.file("tool.exe", "MZ\u{0}\u{0}").path, "--to", daemon.address, "--quiet")
    #expect(refused.exited(with: 4), "\(refused)")
    #expect(refused.stdout.isEmpty && refused.stderrText.contains("refused tool.exe: "), "\(refused)")
    // Review 20: nor the refused entries of a folder stored in part.
    let folder = a.files.appendingPathComponent("proj")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try a.file("proj/readme.txt", "read me\n")
    try a.file("proj/run.exe", "MZ\u{0}\u{0}")
    let part = try a.share("send", folder.path, "--to", daemon.address, "--quiet")
    #expect(part.exited(with: 3), "\(part)")
    #expect(part.stdout.isEmpty && part.stderrText.contains("proj: not stored: run.exe: "), "\(part)")
    // One device named twice gets one send.
    let twice = try a.share("send", try a.file("t.txt", "t\n").path, "--to", daemon.address, "--to", daemon.address, "--quiet")
    #expect(twice.exited(with: 0), "\(twice)")
    #expect(b.inboxNames().filter { $0.hasPrefix("t") } == ["t.txt"], "\(b.inboxNames())")
  }

  @Test func sendingToAPortWithNothingListeningFailsSayingTheConnectionWasRefused() throws {
    let a = try ShareHome(name: "alice")
    let port = try unusedLoopbackPort()
    let result = try a.share("send", try a.file("x.txt", "x").path, "--to", "127.0.0.1:\(port)")
    #expect(result.exited(with: 1), "\(result)")
    #expect(result.stdout.isEmpty, "\(result)")
    #expect(result.stderrText.hasPrefix("Error: "), "\(result)")
    #expect(result.stderrText.lowercased().contains("refused"), "\(result)")
  }
}
