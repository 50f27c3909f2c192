import Foundation
import Testing

/// Sending to this home's own daemon by HOST:PORT, as the refusal of a send by its own name
/// suggests to try it out: the sender proves this device's own ID, so it is no stranger
/// (review 16: the ask waited two minutes for the owner, and `--mode contacts` refused it).
@Suite struct OwnDaemonTests {
  @Test(arguments: ["everyone", "contacts"])
  func aSendToThisHomesOwnDaemonIsStoredWithoutAnAsk(mode: String) throws {
    let home = try ShareHome(name: "solo")
    let daemon = try home.startDaemon(arguments: ["--mode", mode])
    defer { _ = daemon.stop() }
    let sent = try home.share("send", try home.file("try.txt", "trying it out\n").path, "--to", daemon.address, timeout: .seconds(20))
    #expect(sent.exited(with: 0), "\(sent)\n\(daemon.log)")
    #expect(home.inboxNames() == ["try.txt"])
    #expect(!daemon.log.contains("asks to send"), "\(daemon.log)")
  }
}
