import Foundation
import Testing

/// A flood of asks (AirDoS) neither reaches the person beyond the caps nor stops the daemon.
@Suite struct AskFloodTests {
  @Test func aFloodOfAsksIsCappedAndTheDaemonStaysResponsive() throws {
    let (stranger, friend, b) = (try ShareHome(name: "mallory"), try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [friend])
    defer { _ = daemon.stop() }
    // Twelve asks from a stranger at once, each a different file.
    let senders = try (0..<12).map { i in
      try stranger.startShare("send", try stranger.file("spam-\(i).txt", "spam \(i)\n").path, "--to", daemon.address)
    }
    defer { senders.forEach { $0.signal(SIGKILL) } }
    let deadline = ContinuousClock.now + .seconds(20)
    var waiting: [[String: Any]] = []
    repeat {
      usleep(100_000)
      waiting = try parseJSONLines(try b.share("requests", "--json").stdoutText)
    } while waiting.count < 2 && ContinuousClock.now < deadline
    // At most two asks per peer reach the person; the rest are refused at once, with a reason.
    #expect(waiting.count == 2, "\(waiting)")
    // The other ten are refused (too many asks from this peer, or too many connections from its
    // address) without anyone being asked: they end on their own, with an error.
    while senders.filter({ !$0.isRunning }).count < 10 && ContinuousClock.now < deadline { usleep(50_000) }
    let refused = senders.filter { !$0.isRunning }
    #expect(refused.count == 10, "\(refused.count) of 12 ended")
    for sender in refused {
      let result = sender.wait(timeout: .seconds(5))
      // Refused per item ("too many asks from you…", exit 4) or at the door (more than eight
      // connections from one address: closed before the handshake, exit 1).
      #expect(result.status == 4 || result.status == 1, "\(result)")
      if result.status == 4 { #expect(result.stdoutText.contains("too many asks"), "\(result)") }
    }
    // The daemon answers its owner and receives from a contact meanwhile.
    let status = try b.share("status", "--json")
    #expect(status.exited(with: 0), "\(status)")
    let sent = try friend.share("send", try friend.file("hello.txt", "hi\n").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(b.inboxNames() == ["hello.txt"])
  }
}
