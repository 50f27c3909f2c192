import Foundation
import Glibc
import Testing

/// SIGKILL on either side in the middle of a transfer: nothing partial reaches the Inbox, what
/// was stored before stays intact, the partial file waits in staging, and the next send
/// resumes from it.
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
    let daemon = try b.startDaemon(trusting: [a])
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

    // A restarted daemon keeps the resumable part (and nothing else), and the next send resumes.
    let restarted = try b.startDaemon(trusting: [a])
    defer { _ = restarted.stop() }
    #expect(b.stagingEntries().allSatisfy { $0.name.hasPrefix("r-") }, "staging after restart: \(b.stagingEntries())")
    let again = try a.share("send", huge.path, "--to", restarted.address, "--json", timeout: .seconds(120))
    #expect(again.exited(with: 0), "\(again)")
    let answered = try parseJSONLines(again.stdoutText).first { $0["event"] as? String == "answered" }
    let resumedFrom = (answered?["resume_from"] as? NSNumber)?.int64Value ?? 0
    #expect(resumedFrom > 0, "the second send did not resume: \(again)")
    #expect(fileSize(b.inbox.appendingPathComponent("huge.bin")) == Int64(Self.hugeSize))
    #expect(filesAreIdentical(huge, b.inbox.appendingPathComponent("huge.bin")))
    #expect(b.inboxNames() == ["before.bin", "huge.bin"])
    #expect(b.stagingEntries().isEmpty, "staging after the resumed send: \(b.stagingEntries())")
    #expect(filesAreIdentical(before, b.inbox.appendingPathComponent("before.bin")))
    let listed = try b.listedItems()
    #expect(listed.first { $0["name"] as? String == "before.bin" }?["sha256"] as? String == (try sha256sum(before)))
    #expect(b.stagingEntries().isEmpty)
  }

  @Test func killingTheSenderMidTransferLeavesNothingPartialAndTheNextSendResumes() throws {
    let (a, b) = (try ShareHome(name: "alice"), try transportReceiver())
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let huge = try a.sparseFile("huge.bin", size: Self.hugeSize)

    let sender = try a.startShare("send", huge.path, "--to", daemon.address)
    let staged = try waitForBytesInStaging(b, sender: sender)
    sender.signal(SIGKILL)
    let killed = sender.wait(timeout: .seconds(20))
    #expect(killed.signalled && killed.status == SIGKILL, "\(killed)")
    #expect(staged < Int64(Self.hugeSize))

    // The daemon sees the connection drop, keeps the partial file for resuming, and keeps running.
    #expect(daemon.waitForLog("failed"), "the daemon did not log the dropped connection:\n\(daemon.log)")
    #expect(b.inboxNames().isEmpty)
    #expect(daemon.isRunning)
    try expectResumes(a, b, huge, daemon)
  }

  /// Review 16: a file that shrank while it was sent failed with the receiver's words, "the
  /// sender gave up on it", as if the person sending had; the sender knows why, and says so.
  @Test func aFileThatShrinksWhileSentFailsWithTheSendersOwnReason() throws {
    let (a, b) = (try ShareHome(name: "alice"), try transportReceiver())
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    // Large enough that it is still being sent when cut, however fast this machine is today.
    let huge = try a.sparseFile("shrinking.bin", size: 4 * Self.hugeSize)
    let sender = try a.startShare("send", huge.path, "--to", daemon.address, "--json")
    _ = try waitForBytesInStaging(b, sender: sender)
    #expect(truncate(huge.path, 1 << 20) == 0)
    let sent = sender.wait(timeout: .seconds(60))
    let failed = try parseJSONLines(sent.stdoutText).first { $0["event"] as? String == "failed" }
    #expect(failed?["reason"] as? String == "it shrank while being sent", "\(sent)")
    // An error of this side, not a receiver that took nothing (review 18: exit 4).
    #expect(sent.exited(with: 1), "\(sent)")
    #expect(b.inboxNames().isEmpty)
  }

  /// The next send of `file` resumes from the staged part: it sends far fewer bytes than the
  /// file, and the stored file is whole.
  func expectResumes(_ a: ShareHome, _ b: ShareHome, _ file: URL, _ daemon: Daemon) throws {
    let parts = b.stagingEntries().filter { $0.name.hasSuffix(".part") }
    #expect(parts.count == 1 && parts.allSatisfy { $0.name.hasPrefix("r-") }, "staging: \(b.stagingEntries())")
    let again = try a.share("send", file.path, "--to", daemon.address, "--json", timeout: .seconds(120))
    #expect(again.exited(with: 0), "\(again)")
    let events = try parseJSONLines(again.stdoutText)
    let resumedFrom = (events.first { $0["event"] as? String == "answered" }?["resume_from"] as? NSNumber)?.int64Value ?? 0
    #expect(resumedFrom > 0, "the second send did not resume: \(again)")
    let total = (events.last { $0["event"] as? String == "progress" }?["total"] as? NSNumber)?.int64Value ?? Int64.max
    #expect(total == Int64(Self.hugeSize) - resumedFrom, "bytes sent the second time: \(total)")
    #expect(filesAreIdentical(file, b.inbox.appendingPathComponent(file.lastPathComponent)))
    #expect(b.stagingEntries().isEmpty, "staging after the resumed send: \(b.stagingEntries())")
  }

  @Test(arguments: [SIGINT, SIGTERM])
  func interruptingASendExits130SayingWhatTheReceiverKeepsAndHowToResume(signal: Int32) throws {
    let (a, b) = (try ShareHome(name: "alice"), try transportReceiver())
    let daemon = try b.startDaemon(trusting: [a])
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
    #expect(interrupted.stderrText.contains("Error: cancelled; bob keeps the "), "\(interrupted)")
    #expect(interrupted.stderrText.contains(" of huge.bin it received (not in its Inbox); to resume, run:"), "\(interrupted)")
    #expect(!interrupted.stderrText.contains("nothing partial is kept"), "\(interrupted)")
    // The command that resumes: the same send.
    let again = (["share", "--home", a.home.path, "send", huge.path, "--to", daemon.address]).joined(separator: " ")
    #expect(interrupted.stderrLines.last == "  " + again, "\(interrupted)")

    #expect(daemon.waitForLog("failed"), "\(daemon.log)")
    #expect(b.inboxNames().isEmpty)
    #expect(daemon.isRunning)
    // Review 19: what staging keeps for resuming was nowhere to be seen.
    let status = try b.share("status")
    #expect(
      status.stdoutText.contains("Kept:        ") && status.stdoutText.contains("of 1 interrupted item, for their senders"), "\(status)")
    let json = try parseJSONLines(try b.share("status", "--json").stdoutText).first
    #expect(json?["parts_kept"] as? Int == 1 && (json?["parts_kept_bytes"] as? Int ?? 0) > 0, "\(String(describing: json))")
    try expectResumes(a, b, huge, daemon)
  }

  /// Review 38: `share send -` stopped with Ctrl-C (or SIGTERM) while the command before `|`
  /// wrote nothing went on until it wrote more or ended.
  @Test(arguments: [SIGINT, SIGTERM])
  func aSendOfStandardInputWaitingForItsNextBytesStopsAtOnce(signal number: Int32) throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let stream = try StreamingSend(from: a, to: daemon, first: "first bytes\n")
    defer { stream.close() }
    // Under way: the daemon shows the transfer; then the writer goes quiet and the signal comes.
    _ = try StreamingSend.statusUnderWay(of: b)
    let sender = stream.sender
    sender.signal(number)
    let result = sender.wait(timeout: .seconds(30))
    #expect(result.exited(with: 130), "\(result)")
    #expect(b.inboxNames().isEmpty)
  }

  @Test func stoppingTheDaemonMidTransferKeepsAResumableFileAndARestartedDaemonResumes() throws {
    let (a, b) = (try ShareHome(name: "alice"), try transportReceiver())
    let daemon = try b.startDaemon(trusting: [a], arguments: ["--grace", "0"])
    let huge = try a.sparseFile("huge.bin", size: Self.hugeSize)
    let sender = try a.startShare("send", huge.path, "--to", daemon.address)
    _ = try waitForBytesInStaging(b, sender: sender)
    let stopped = daemon.stop()
    #expect(stopped.exited(with: 0), "\(stopped)")
    #expect(stopped.stderrText.contains("is kept for resuming"), "\(stopped)")
    let sent = sender.wait(timeout: .seconds(60))
    #expect(sent.status != 0, "\(sent)")
    #expect(b.inboxNames().isEmpty)
    let restarted = try b.startDaemon()
    defer { _ = restarted.stop() }
    try expectResumes(a, b, huge, restarted)
  }
}
