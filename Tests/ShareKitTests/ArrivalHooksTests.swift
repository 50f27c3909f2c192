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
  @Test func atMostMaxWaitingRunsWaitAndShutdownDoesNotWaitForThemForever() throws {
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
    // Shutdown gives up on the waiting runs after its time, and says so.
    #expect(!hooks.drain(timeout: .milliseconds(300)))
    #expect(reports.withLock { $0 }.contains { $0.hasPrefix("stopping without the") })
    // Let them run: the last tells how many items had none.
    FileManager.default.createFile(atPath: go, contents: nil)
    #expect(hooks.drain(timeout: .seconds(120)))
    let lines = (try? String(contentsOfFile: ran, encoding: .utf8))?.split(separator: "\n").count ?? 0
    #expect(lines <= ArrivalHooks.maxWaiting + 1 && lines >= ArrivalHooks.maxWaiting - 1, "\(lines) runs")
    let caughtUp = reports.withLock { $0 }.first { $0.hasPrefix("hook runs caught up") }
    #expect(caughtUp?.contains("\(items - lines) items") == true, "\(reports.withLock { $0 }.suffix(3))")
  }
}
