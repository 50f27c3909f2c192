import Foundation
import Glibc
import Testing

/// The daemon confines itself with Landlock: it, and the hooks it runs, can change files only in
/// its own folders; `--hooks-unconfined` lets the hooks out, not the daemon.
@Suite struct ConfinementTests {
  /// A hook that tries to write outside the home, then records inside it that it ran.
  func hook(writingTo outside: URL, home: ShareHome) -> (command: String, ran: URL) {
    let ran = home.home.appendingPathComponent("hook-ran")
    return ("echo escaped > '\(outside.path)'; echo $? >> '\(ran.path)'", ran)
  }

  /// Waits for a whole line in `url`: the shell creates the file before echo writes to it.
  func waitForFile(_ url: URL) -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    func written() -> Bool { (try? String(contentsOf: url, encoding: .utf8))?.hasSuffix("\n") == true }
    while !written() && ContinuousClock.now < deadline { usleep(20_000) }
    return written()
  }

  /// `NoNewPrivs` of a process, which the daemon sets as it confines itself.
  func noNewPrivileges(_ pid: Int32) -> String? {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    return status.split(separator: "\n").first { $0.hasPrefix("NoNewPrivs:") }.map {
      String($0.dropFirst(11)).trimmingCharacters(in: .whitespaces)
    }
  }

  @Test func theConfinedDaemonReceivesFilesAndFoldersButItsHookCannotWriteOutsideTheHome() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let outside = b.root.appendingPathComponent("outside-\(UUID().uuidString.prefix(8))")
    let (command, ran) = hook(writingTo: outside, home: b)
    let daemon = try b.startDaemon(trusting: [a], arguments: ["--on-receive", command])
    defer { _ = daemon.stop() }
    // stderr is read apart from stdout: the note may arrive after the port.
    #expect(daemon.waitForLog("confined with Landlock"), "\(daemon.log)")
    #expect(noNewPrivileges(daemon.process.pid) == "1")
    // Re-executed from /proc/self/exe, it still goes by the name it was started under: ps,
    // pgrep, killall and the scripts' share_stop_pid find it (they found 'exe', and left it running).
    let comm = try String(contentsOfFile: "/proc/\(daemon.process.pid)/comm", encoding: .utf8)
    #expect(comm == "share\n", "\(comm)")

    let folder = a.files.appendingPathComponent("trip")
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("day 1"), withIntermediateDirectories: true)
    try Data("notes\n".utf8).write(to: folder.appendingPathComponent("day 1/notes.txt"))
    let sent = try a.share("send", try a.file("note.txt", "hello\n").path, folder.path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)\n\(daemon.log)")
    #expect(b.inboxNames() == ["note.txt", "trip"])
    #expect(FileManager.default.fileExists(atPath: b.inbox.appendingPathComponent("trip/day 1/notes.txt").path))

    #expect(waitForFile(ran), "the hook did not run:\n\(daemon.log)")
    #expect(!FileManager.default.fileExists(atPath: outside.path), "a hook of the confined daemon wrote outside its home")
    #expect((try? String(contentsOf: ran, encoding: .utf8))?.hasPrefix("0") == false, "the write outside did not fail")
    // The command line is not confined: moving an item out of the Inbox works as ever.
    let moved = try b.share("inbox", "move", "note.txt")
    #expect(moved.exited(with: 0), "\(moved)")
    #expect(FileManager.default.fileExists(atPath: b.documents.appendingPathComponent("note.txt").path))
  }

  /// Review 49: under --home, an Inbox that is a link to another disk was taken for a folder
  /// inside the home, and every item failed with "permission denied".
  @Test func anInboxLinkedOutOfTheHomeReceives() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let elsewhere = b.root.appendingPathComponent("other-disk-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: b.inbox.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: b.inbox, withDestinationURL: elsewhere)
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    #expect(daemon.waitForLog("confined with Landlock"), "\(daemon.log)")
    let sent = try a.share("send", try a.file("note.txt", "hello\n").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)\n\(daemon.log)")
    #expect(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("note.txt").path))
  }

  @Test func withHooksUnconfinedTheHookWritesOutsideWhileTheDaemonStaysConfined() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let outside = b.root.appendingPathComponent("outside-\(UUID().uuidString.prefix(8))")
    let (command, ran) = hook(writingTo: outside, home: b)
    let daemon = try b.startDaemon(trusting: [a], arguments: ["--on-receive", command, "--hooks-unconfined"])
    defer { _ = daemon.stop() }
    #expect(daemon.waitForLog("; hooks run outside it"), "\(daemon.log)")
    #expect(noNewPrivileges(daemon.process.pid) == "1")

    let sent = try a.share("send", try a.file("note.txt", "hello\n").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(waitForFile(ran), "the hook did not run:\n\(daemon.log)")
    #expect(FileManager.default.fileExists(atPath: outside.path), "the unconfined hook could not write outside the home:\n\(daemon.log)")
    // The runner ends with the daemon.
    let stopped = daemon.stop()
    #expect(stopped.exited(with: 0), "\(stopped)")
  }

  /// Review 49: killed, the hook runner left the daemon storing items with no hook run, and
  /// nothing said so.
  @Test func aHookRunnerThatEndsIsSaidInTheLog() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let outside = b.root.appendingPathComponent("outside-\(UUID().uuidString.prefix(8))")
    let (command, _) = hook(writingTo: outside, home: b)
    let daemon = try b.startDaemon(trusting: [a], arguments: ["--on-receive", command, "--hooks-unconfined"])
    defer { _ = daemon.stop() }
    #expect(daemon.waitForLog("; hooks run outside it"), "\(daemon.log)")
    let pid = daemon.process.pid
    let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
    let runner = try #require(children.split(separator: " ").compactMap { Int32($0) }.first, "no hook runner: \(children)")
    kill(runner, SIGKILL)
    #expect(daemon.waitForLog("the hook runner (--hooks-unconfined) ended"), "\(daemon.log)")
    #expect(daemon.isRunning)
  }
}
