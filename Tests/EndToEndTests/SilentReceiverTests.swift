import Foundation
import Glibc
import Testing

/// A receiver that says it is asking its owner (`Wait`) and then says nothing more holds the
/// sender no longer than the time it announced (issue 11, point 7): the user is told it is
/// waiting, for how long and how to stop, and Ctrl-C stops it at once. The silent receiver is a
/// real daemon frozen with SIGSTOP once it has sent its `Wait`: its connection stays open and
/// nothing more ever comes.
@Suite struct SilentReceiverTests {
  /// bob's daemon, which asks its owner about alice's sends (alice is no contact).
  func strangers(askTimeout: String) throws -> (alice: ShareHome, bob: ShareHome, daemon: Daemon) {
    let (alice, bob) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try bob.startDaemon(arguments: ["--ask-timeout", askTimeout])
    return (alice, bob, daemon)
  }

  @Test func aReceiverSilentAfterItsWaitIsGivenUpOnOnceItsAnnouncedTimeIsOver() throws {
    let (alice, bob, daemon) = try strangers(askTimeout: "2")
    defer {
      daemon.process.signal(SIGCONT)
      _ = daemon.stop()
    }
    let sender = try alice.startShare("send", try alice.file("note.txt", "hi\n").path, "--to", daemon.address)
    #expect(sender.waitForStderr(containing: "waiting for the receiver's owner"), "\(sender.stderrTextSoFar)")
    daemon.process.signal(SIGSTOP)

    // Before: 300 s per read. Now: the 2 s it announced, and a few seconds' grace.
    let sent = sender.wait(timeout: .seconds(60))
    #expect(!sent.timedOut, "the sender was still waiting for a silent receiver after 60 s")
    #expect(sent.exited(with: 1), "\(sent)")
    #expect(sent.stderrText.contains("giving up in"), "the user was not told how long it waits:\n\(sent)")
    #expect(sent.stderrText.contains("Ctrl-C"), "\(sent)")
    #expect(sent.stderrText.contains("Error: \(bob.name) at \(daemon.address) did not reply"), "\(sent)")
    #expect(bob.inboxNames().isEmpty)
  }

  @Test func theWaitIsReportedWithTheSecondsLeftInJSON() throws {
    let (alice, _, daemon) = try strangers(askTimeout: "30")
    defer {
      daemon.process.signal(SIGCONT)
      _ = daemon.stop()
    }
    let sender = try alice.startShare("send", try alice.file("note.txt", "hi\n").path, "--to", daemon.address, "--json")
    #expect(sender.waitFor(timeout: .seconds(20)) { stdout, _, _ in String(decoding: stdout, as: UTF8.self).contains("\"waiting\"") })
    sender.signal(SIGINT)
    let sent = sender.wait(timeout: .seconds(20))
    let waiting = try parseJSONLines(sent.stdoutText).first { $0["event"] as? String == "waiting" }
    let left = (waiting?["seconds_left"] as? NSNumber)?.intValue ?? -1
    // 30 s announced, and the grace for the reply to arrive.
    #expect((30...40).contains(left), "\(sent)")
  }

  @Test func ctrlCDuringTheWaitStopsTheSendAtOnce() throws {
    let (alice, bob, daemon) = try strangers(askTimeout: "120")
    defer {
      daemon.process.signal(SIGCONT)
      _ = daemon.stop()
    }
    let sender = try alice.startShare("send", try alice.file("note.txt", "hi\n").path, "--to", daemon.address)
    #expect(sender.waitForStderr(containing: "waiting for the receiver's owner"), "\(sender.stderrTextSoFar)")
    daemon.process.signal(SIGSTOP)
    sender.signal(SIGINT)
    let sent = sender.wait(timeout: .seconds(20))
    #expect(!sent.timedOut, "Ctrl-C did not end the wait")
    #expect(sent.exited(with: 130), "\(sent)")
    #expect(!sent.stderrText.contains("did not reply"), "\(sent)")
    #expect(bob.inboxNames().isEmpty)
  }
}
