import Foundation
import Synchronization
import Testing

@testable import ShareKit

/// What `--notify` shows of peer text.
@Suite struct ArrivalHooksTests {
  /// Found by an outside review: a peer's name reached notify-send raw, markup and escapes
  /// included (notification servers make `<a href>` a link).
  @Test func notificationsShowPeerTextEscapedWithoutMarkup() {
    let shown = ArrivalHooks.shown("dave <a href=\"https://evil.example\">Click</a> <b>URGENT</b> & co\u{1B}[31m\u{2028}x")
    #expect(!shown.contains("<") && !shown.contains(">") && !shown.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" })
    #expect(shown.hasPrefix("dave &lt;a href=") && shown.contains("&amp; co"), "\(shown)")
    #expect(ArrivalHooks.shown("photo.jpg") == "photo.jpg")
  }

  /// Review 17: a stranger's name that starts with `--` became an option of notify-send.
  @Test func peerTextNeverReachesNotifySendAsAnOption() {
    let arguments = ArrivalHooks.notification("--urgency=low wants to send 1 item(s)", "Run 'share accept 1'")
    let end = arguments.firstIndex(of: "--")
    #expect(end != nil && arguments.firstIndex { $0.hasPrefix("--urgency") } ?? 0 > end ?? Int.max, "\(arguments)")
    #expect(arguments.suffix(2) == ["--urgency=low wants to send 1 item(s)", "Run 'share accept 1'"])
  }

  /// Review 19: a contact's 30,000 small files queued 30,000 runs of `--on-receive 'sleep 5'`
  /// (42 hours), and SIGTERM then waited for all of them with the home locked.
  @Test func atMostMaxWaitingRunsWaitAndTheLastTellsOfTheItemsThatHadNone() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let go = folder.appendingPathComponent("go").path
    let ran = folder.appendingPathComponent("ran").path
    // Each run waits until `go` exists, then notes that it ran.
    let command = "while [ ! -e '\(go)' ]; do sleep 0.05; done; echo x >> '\(ran)'"
    let reports = Mutex<[String]>([])
    let hooks = ArrivalHooks(command: command, notify: false) { line in reports.withLock { $0.append(line) } }
    let items = ArrivalHooks.maxWaiting + 20
    for index in 0..<items { hooks.stored(["SHARE_ITEM_NAME": "f\(index)"]) }
    #expect(reports.withLock { $0 }.filter { $0.contains("hook runs are waiting") }.count == 1)
    // Let them run: the last tells how many items had none.
    FileManager.default.createFile(atPath: go, contents: nil)
    #expect(hooks.drain(timeout: .seconds(120)))
    let lines = (try? String(contentsOfFile: ran, encoding: .utf8))?.split(separator: "\n").count ?? 0
    #expect(lines <= ArrivalHooks.maxWaiting + 1 && lines >= ArrivalHooks.maxWaiting - 1, "\(lines) runs")
    let caughtUp = reports.withLock { $0 }.first { $0.hasPrefix("hook runs caught up") }
    #expect(caughtUp?.contains("\(items - lines) items") == true, "\(reports.withLock { $0 }.suffix(3))")
  }

  /// Review 38: shutdown gave up waiting after its time but left the run under way running
  /// (and what it started), re-parented to init, and called it "waiting". Now it ends the run's
  /// process group and drops the runs still waiting, and says so.
  @Test func shutdownEndsTheRunUnderWayAndWhatItStartedAndDropsTheRest() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let child = folder.appendingPathComponent("child").path
    let ran = folder.appendingPathComponent("ran").path
    let command = "echo x >> '\(ran)'; sleep 60 & echo $! > '\(child).tmp'; mv '\(child).tmp' '\(child)'; wait"
    let reports = Mutex<[String]>([])
    let hooks = ArrivalHooks(command: command, notify: false) { line in reports.withLock { $0.append(line) } }
    for index in 0..<3 { hooks.stored(["SHARE_ITEM_NAME": "f\(index)"]) }
    var pid: Int32?
    for _ in 0..<600 where pid == nil {
      pid = (try? String(contentsOfFile: child, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
      if pid == nil { usleep(50_000) }
    }
    let started = try #require(pid, "the first run never started its child")
    #expect(!hooks.drain(timeout: .milliseconds(300)))
    let said = reports.withLock { $0 }.last ?? ""
    #expect(said.contains("the hook run under way") && said.contains("ended with SIGTERM"), "\(said)")
    #expect(said.contains("2 run(s) still waiting not run"), "\(said)")
    // The command's own child went with it (init reaps it).
    var gone = false
    for _ in 0..<200 where !gone {
      gone = kill(started, 0) != 0
      if !gone { usleep(50_000) }
    }
    #expect(gone, "the hook's child \(started) outlived the shutdown")
    if !gone { kill(started, SIGKILL) }
    let runs = (try? String(contentsOfFile: ran, encoding: .utf8))?.split(separator: "\n").count ?? 0
    #expect(runs == 1, "\(runs) runs")
  }

  /// Review 49: a hook's output went into the daemon's own (between the events of `--json`) and
  /// raw into its log, where a peer's text printed by the hook could pose as an event or hold
  /// a terminal's controls. It is the log's now: escaped, "hook: " first, 20 lines a run.
  @Test func aHooksOutputIsLoggedEscapedAndBounded() throws {
    let command = #"printf '{"event":"ask","id":7}\033[2J\n' ; echo oops >&2 ; for i in $(seq 1 30); do echo line $i; done"#
    let reports = Mutex<[String]>([])
    let hooks = ArrivalHooks(command: command, notify: false) { line in reports.withLock { $0.append(line) } }
    hooks.stored(["SHARE_ITEM_NAME": "a.txt"])
    #expect(hooks.drain(timeout: .seconds(60)))
    let said = reports.withLock { $0 }
    #expect(said.first == #"hook: {"event":"ask","id":7}\u{1B}[2J"#, "\(said.prefix(3))")
    #expect(said.contains("hook: oops"), "\(said)")
    #expect(said.filter { $0.hasPrefix("hook: line") }.count == 18, "\(said)")
    #expect(said.last == "hook: … 12 more line(s) of its output not shown", "\(said.suffix(2))")
    #expect(!said.contains { $0.contains("\u{1B}") })
  }
}
