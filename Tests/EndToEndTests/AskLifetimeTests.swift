import Foundation
import Glibc
import Testing

/// An ask lives only as long as its sender waits for it (issue 12, bug 3): a sender that presses
/// Ctrl-C withdraws it from `share requests`, and accepting it afterwards says it is gone and
/// trusts nobody.
@Suite struct AskLifetimeTests {
  /// Polls `share requests --json` (bounded) until `done` holds for the asks it lists.
  func requests(_ home: ShareHome, until done: ([[String: Any]]) -> Bool) throws -> [[String: Any]] {
    let deadline = ContinuousClock.now + .seconds(20)
    var asks: [[String: Any]] = []
    repeat {
      asks = try parseJSONLines(try home.share("requests", "--json").stdoutText)
      if done(asks) { break }
      usleep(50_000)
    } while ContinuousClock.now < deadline
    return asks
  }

  @Test func anAskWhoseSenderPressedCtrlCIsWithdrawnAndAcceptingItTrustsNobody() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let sender = try a.startShare("send", try a.file("a.txt", "a\n").path, "--to", daemon.address)
    let ask = try ExitCodeTests.waitingAsk(b)

    sender.signal(SIGINT)
    let cancelled = sender.wait(timeout: .seconds(20))
    #expect(cancelled.exited(with: 130), "\(cancelled)")
    let left = try requests(b) { $0.isEmpty }
    #expect(left.isEmpty, "the ask outlived its sender: \(left)")
    #expect(daemon.waitForLog("ask \(ask) from alice"), "\(daemon.log)")
    #expect(daemon.log.contains("withdrawn: the sender went away"), "\(daemon.log)")

    let accepted = try b.share("accept", String(ask), "--trust")
    #expect(accepted.exited(with: 1), "\(accepted)")
    #expect(accepted.stderrText.contains("ask \(ask) from alice is gone"), "\(accepted)")
    let contacts = try b.share("trust", "list", "--json")
    #expect(contacts.exited(with: 0) && contacts.stdoutLines.isEmpty, "\(contacts)")
    #expect(b.inboxNames().isEmpty)
  }

  @Test func anAskTwoSendersWaitOnStaysUntilTheLastOneLeaves() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let file = try a.file("a.txt", "a\n")
    let first = try a.startShare("send", file.path, "--to", daemon.address)
    _ = try ExitCodeTests.waitingAsk(b)
    let second = try a.startShare("send", file.path, "--to", daemon.address)
    let folded = try requests(b) { ($0.first?["connections"] as? Int) == 2 }
    #expect((folded.first?["connections"] as? Int) == 2, "\(folded)")

    first.signal(SIGINT)
    _ = first.wait(timeout: .seconds(20))
    let one = try requests(b) { ($0.first?["connections"] as? Int) == 1 }
    #expect(one.count == 1 && (one.first?["connections"] as? Int) == 1, "\(one)")
    // The one still waiting is accepted and receives.
    let ask = try #require(one.first?["id"] as? Int)
    #expect(try b.share("accept", String(ask)).exited(with: 0))
    let sent = second.wait(timeout: .seconds(20))
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(b.inboxNames() == ["a.txt"])
  }
}
