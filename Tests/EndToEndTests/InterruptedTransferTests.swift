import Foundation
import Glibc
import Testing

/// SIGKILL on either side in the middle of a transfer: nothing partial reaches the Inbox, what
/// was stored before stays intact, staging is cleaned up, and the next send works.
@Suite struct InterruptedTransferTests {
  /// Large enough that a transfer over loopback takes seconds, so it is surely caught midway.
  /// A sparse file: no time or disk to make it.
  static let hugeSize = 512 << 20

  /// A receiver home whose declarations accept any item: these tests are about the transport,
  /// and their large files are binary data (`public.data`) that the default declarations refuse.
  func transportReceiver() throws -> ShareHome {
    let b = try ShareHome(name: "bob")
    try b.acceptEverything()
    return b
  }

  /// Waits (bounded) until a staging file has bytes in it: the transfer is under way.
  func waitForBytesInStaging(_ home: ShareHome, sender: ChildProcess) throws -> Int64 {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      if let part = home.stagingEntries().first(where: { $0.name.hasSuffix(".part") && $0.size > 0 }) {
        return part.size
      }
      guard sender.isRunning else {
        throw HarnessError("the send ended before any bytes reached staging:\n\(sender.wait())")
      }
      usleep(2_000)
    }
    throw HarnessError("no bytes reached staging within 60 s; staging holds \(home.stagingEntries())")
  }

  @Test func killingTheDaemonMidTransferLeavesNothingPartialAndARestartCleansStagingAndReceivesAgain() throws {
    let (a, b) = (try ShareHome(name: "alice"), try transportReceiver())
    let daemon = try b.startDaemon()
    defer { _ = daemon.stop() }

    // Something stored before the crash.
    let before = try a.randomFile("before.bin", size: 3 << 20)
    let first = try a.share("send", before.path, "--to", daemon.address)
    #expect(first.exited(with: 0), "\(first)")

    let huge = try a.sparseFile("huge.bin", size: Self.hugeSize)
    let sender = try a.startShare("send", huge.path, "--to", daemon.address)
    let staged = try waitForBytesInStaging(b, sender: sender)
    _ = daemon.kill9()
    #expect(staged < Int64(Self.hugeSize))

    // The sender notices and says so.
    let sent = sender.wait(timeout: .seconds(60))
    #expect(!sent.timedOut && !sent.signalled && sent.status != 0, "\(sent)")
    #expect(sent.stdout.isEmpty, "nothing was stored, so no item line: \(sent)")
    #expect(sent.stderrText.contains("Error: "), "\(sent)")
    #expect(sent.stderrText.lowercased().contains("connection"), "\(sent)")

    // Nothing partial in the Inbox; the earlier item is intact; the partial file is in staging.
    #expect(b.inboxNames() == ["before.bin"])
    #expect(filesAreIdentical(before, b.inbox.appendingPathComponent("before.bin")))
    #expect(b.stagingEntries().contains { $0.name.hasSuffix(".part") }, "the killed daemon left no partial file to clean up")

    // A restarted daemon clears staging before it listens, and receives again.
    let restarted = try b.startDaemon()
    defer { _ = restarted.stop() }
    #expect(b.stagingEntries().isEmpty, "staging after restart: \(b.stagingEntries())")
    let again = try a.share("send", huge.path, "--to", restarted.address, timeout: .seconds(120))
    #expect(again.exited(with: 0), "\(again)")
    #expect(again.stdoutLines == ["stored   huge.bin"], "no partial file took the name: \(again)")
    #expect(fileSize(b.inbox.appendingPathComponent("huge.bin")) == Int64(Self.hugeSize))
    #expect(b.inboxNames() == ["before.bin", "huge.bin"])
    #expect(filesAreIdentical(before, b.inbox.appendingPathComponent("before.bin")))
    let listed = try b.listedItems()
    #expect(listed.first { $0["name"] as? String == "before.bin" }?["sha256"] as? String == (try sha256sum(before)))
    #expect(b.stagingEntries().isEmpty)
  }

  @Test func killingTheSenderMidTransferLeavesNothingPartialAndTheDaemonDiscardsStagingAndKeepsServing() throws {
    let (a, b) = (try ShareHome(name: "alice"), try transportReceiver())
    let daemon = try b.startDaemon()
    defer { _ = daemon.stop() }
    let huge = try a.sparseFile("huge.bin", size: Self.hugeSize)

    let sender = try a.startShare("send", huge.path, "--to", daemon.address)
    let staged = try waitForBytesInStaging(b, sender: sender)
    sender.signal(SIGKILL)
    let killed = sender.wait(timeout: .seconds(20))
    #expect(killed.signalled && killed.status == SIGKILL, "\(killed)")
    #expect(staged < Int64(Self.hugeSize))

    // The daemon sees the connection drop, discards the partial file, and keeps running.
    #expect(daemon.waitForLog("failed"), "the daemon did not log the dropped connection:\n\(daemon.log)")
    let deadline = ContinuousClock.now + .seconds(20)
    while !b.stagingEntries().isEmpty && ContinuousClock.now < deadline { usleep(10_000) }
    #expect(b.stagingEntries().isEmpty, "staging: \(b.stagingEntries())")
    #expect(b.inboxNames().isEmpty)
    #expect(daemon.isRunning)

    // And receives the next send.
    let next = try a.share("send", try a.file("after.txt", "after\n").path, "--to", daemon.address)
    #expect(next.exited(with: 0), "\(next)")
    #expect(b.inboxNames() == ["after.txt"])
  }

  @Test(arguments: [SIGINT, SIGTERM])
  func interruptingASendExits130SayingNothingPartialIsKept(signal: Int32) throws {
    let (a, b) = (try ShareHome(name: "alice"), try transportReceiver())
    let daemon = try b.startDaemon()
    defer { _ = daemon.stop() }
    let huge = try a.sparseFile("huge.bin", size: Self.hugeSize)

    let sender = try a.startShare("send", huge.path, "--to", daemon.address)
    _ = try waitForBytesInStaging(b, sender: sender)
    // Its handler is surely installed by now; make sure (see the known issue in DaemonLifecycleTests).
    let handlerDeadline = ContinuousClock.now + .seconds(10)
    while sender.isRunning && !sender.catches(signal) && ContinuousClock.now < handlerDeadline { usleep(1_000) }
    sender.signal(signal)
    let interrupted = sender.wait(timeout: .seconds(30))
    #expect(interrupted.exited(with: 130), "\(interrupted)")
    #expect(interrupted.stderrText.contains("Error: cancelled"), "\(interrupted)")

    #expect(daemon.waitForLog("failed"), "\(daemon.log)")
    let deadline = ContinuousClock.now + .seconds(20)
    while !b.stagingEntries().isEmpty && ContinuousClock.now < deadline { usleep(10_000) }
    #expect(b.stagingEntries().isEmpty, "staging: \(b.stagingEntries())")
    #expect(b.inboxNames().isEmpty)
    #expect(daemon.isRunning)
  }
}
