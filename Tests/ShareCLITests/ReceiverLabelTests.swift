import Foundation
import Testing

@testable import ShareCLI
@testable import ShareKit

/// Review 36: a device this home knows as `lab-b`, renamed `lab` while another `lab` is nearby,
/// reached by `--to lab-b`, was "Connected to lab … stored in lab's Inbox": the other peer's
/// name. It is named as this home knows it, with what it calls itself.
@Suite struct ReceiverLabelTests {
  static let id = Fingerprint(bytes: Array(repeating: 0x9b, count: 32))!

  func connected(rememberAs: String?, calling name: String) -> String {
    let console = CapturedConsole()
    let terminal = Terminal(environment: [:], verbose: false, console: console)
    let endpoint = Endpoint(
      candidates: [Endpoint.Candidate(host: "127.0.0.1", port: 40123, advertisedAs: PeerText(name))], label: PeerText(name),
      expectedFingerprint: Self.id, rememberAs: rememberAs)
    let reporter = SendReporter(terminal: terminal, json: false, quiet: false, endpoints: [endpoint])
    reporter.event(.connected(peerName: PeerText(name), fingerprint: Self.id, address: "127.0.0.1:40123"), recipient: 0)
    return console.err + console.out
  }

  @Test func aDeviceKnownByAnotherNameIsNamedAsThisHomeKnowsIt() {
    #expect(connected(rememberAs: "lab-b", calling: "lab").contains("Connected to lab-b (calls itself lab) at"))
    #expect(connected(rememberAs: "Lab-B", calling: "lab-b").contains("Connected to lab-b at"), "letter case aside")
    #expect(connected(rememberAs: nil, calling: "lab").contains("Connected to lab at"), "by ID prefix or address")
  }

  /// Review 36: two `--to` that are one device (a name and its ID prefix) gave one send, and the
  /// second was dropped without the warning the README promises.
  @Test func aSecondToForTheSameDeviceIsDroppedWithAWarning() {
    let console = CapturedConsole()
    let terminal = Terminal(environment: [:], verbose: false, console: console)
    func endpoint(_ target: String, _ id: Fingerprint?) -> Endpoint {
      var endpoint = Endpoint(
        candidates: [Endpoint.Candidate(host: "127.0.0.1", port: 40123, advertisedAs: "lab-b")], label: "lab-b",
        expectedFingerprint: id)
      endpoint.target = target
      return endpoint
    }
    let other = Fingerprint(bytes: Array(repeating: 0x11, count: 32))!
    let kept = SendCommand.onePerDevice(
      [endpoint("lab-b", Self.id), endpoint("9b9b9b9b", Self.id), endpoint("lab", other), endpoint("127.0.0.1:1", nil)], terminal: terminal)
    #expect(kept.map(\.target) == ["lab-b", "lab", "127.0.0.1:1"])
    #expect(console.err.contains("--to 9b9b9b9b is the same device as --to lab-b (9b9b"), "\(console.err)")
  }
}

/// Review 36 L8: `share receive everyone --for 90s` said "until 12:02", minutes only.
@Suite struct ReceiveUntilTests {
  @Test func aTimeWithinTheHourIsShownToTheSecond() {
    let now = Date(timeIntervalSince1970: 1_764_460_800)
    let soon = ReceiveCommand.until(now.addingTimeInterval(90), now: now)
    #expect(soon.split(separator: ":").count == 3, "\(soon)")
    let later = ReceiveCommand.until(now.addingTimeInterval(7200), now: now)
    #expect(later.split(separator: ":").count == 2, "\(later)")
    #expect(ReceiveCommand.until(nil).isEmpty)
  }
}

/// Review 36 L8: "stored in lab-b (calls itself lab)'s Inbox".
@Suite struct InboxOfTests {
  @Test func aLabelEndingInAParenthesisTakesNoPossessive() {
    #expect(SendSummary.inbox(of: "bob") == "bob's Inbox")
    #expect(SendSummary.inbox(of: "lab-b (calls itself lab)") == "the Inbox of lab-b (calls itself lab)")
  }
}
