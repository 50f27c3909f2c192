import Foundation
import LocalSend
import Testing

@testable import ShareKit

/// What a LocalSend device says of itself (its alias, the fingerprint it claims) is `PeerText`:
/// a failed send names the device escaped, never raw (issue 11, point 2).
@Suite struct LocalSendPeerTextTests {
  static let attack = "\u{1B}]0;owned\u{07}\u{1B}[2J\u{202E}"

  static let peer = LocalSendPeer(
    alias: PeerText("phone\(attack)"), fingerprint: PeerText("AB\(attack)"), address: "127.0.0.1", port: 53317,
    deviceModel: nil, deviceType: nil, heardAt: Date())

  func expectNoRawControls(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let raw = text.unicodeScalars.filter { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E }
    #expect(raw.isEmpty, "\(text.debugDescription)", sourceLocation: sourceLocation)
  }

  @Test func aFailedSendNamesTheDeviceAndQuotesItsAnswerEscaped() {
    let endpoint = Endpoint(localSend: Self.peer)
    let failed = LocalSendDelivery.failure(
      .invalidResponse("\(Self.attack)"), peer: Self.peer, endpoint: endpoint, remembered: nil)
    expectNoRawControls(failed.description)
    #expect(failed.description.hasPrefix(#"LocalSend to phone\u{1B}]0;owned\u{7}"#), "\(failed.description)")
  }

  @Test func aMismatchNamesTheClaimedFingerprintEscaped() throws {
    let actual = try #require(LocalSendFingerprint(hex: String(repeating: "cd", count: 32)))
    let failed = LocalSendDelivery.failure(
      .peerMismatch(expected: nil, actual: actual), peer: Self.peer, endpoint: Endpoint(localSend: Self.peer), remembered: nil)
    expectNoRawControls(failed.description)
    #expect(failed.description.contains(#"AB\u{1B}]0;owned"#), "\(failed.description)")
  }
}
