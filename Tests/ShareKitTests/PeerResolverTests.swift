import Foundation
import Testing
import TLS
@testable import ShareKit

/// Choosing the peer a `--to` means, with pinning, without Avahi: the peers are values.
@Suite struct PeerResolverTests {
  static let labB = Fingerprint(bytes: Array(repeating: 0xb0, count: 32))!
  static let laptop = Fingerprint(bytes: Array(repeating: 0xc0, count: 32))!
  static let mallory = Fingerprint(bytes: Array(repeating: 0x66, count: 32))!

  static func peer(_ name: String, _ id: Fingerprint?, port: UInt16 = 40123, isSelf: Bool = false) -> Peer {
    Peer(
      name: PeerText(name), id: id, version: "1", addresses: [Peer.Address(address: "192.0.2.\(port % 200)", port: port, interface: "lo")],
      isSelf: isSelf, trusted: false)
  }

  static func chosen(_ choice: PeerResolver.Choice) -> Peer? {
    if case .chosen(let peer) = choice { return peer }
    return nil
  }

  @Test func aNameOrAnIDPrefixChoosesThePeer() throws {
    let peers = [Self.peer("lab-b", Self.labB), Self.peer("laptop", Self.laptop, port: 2)]
    #expect(Self.chosen(try PeerResolver.choose("lab-b", among: peers, known: KnownPeers(), trust: TrustStore()))?.id == Self.labB)
    #expect(Self.chosen(try PeerResolver.choose("LAPTOP", among: peers, known: KnownPeers(), trust: TrustStore()))?.id == Self.laptop)
    #expect(Self.chosen(try PeerResolver.choose("c0c0-c0", among: peers, known: KnownPeers(), trust: TrustStore()))?.id == Self.laptop)
  }

  @Test func aNameRememberedWithAnotherIDIsRefusedNamingBoth() {
    var known = KnownPeers()
    known.remember(name: "lab-b", id: Self.labB)
    let impostor = [Self.peer("lab-b", Self.mallory)]
    #expect {
      try PeerResolver.choose("lab-b", among: impostor, known: known, trust: TrustStore())
    } throws: { error in
      guard case ShareError.identityMismatch(let expected, let actual, let name) = error else { return false }
      return expected == Self.labB.hex && actual == Self.mallory.hex && name == "lab-b"
    }
  }

  @Test func aContactsNameWithAnotherIDIsRefused() {
    let trust = TrustStore(peers: [TrustedPeer(id: Self.labB, name: "lab-b")])
    #expect(throws: ShareError.self) {
      try PeerResolver.choose("lab-b", among: [Self.peer("lab-b", Self.mallory)], known: KnownPeers(), trust: trust)
    }
  }

  @Test func whenSeveralClaimANameTheOneKnownByItIsChosen() throws {
    var known = KnownPeers()
    known.remember(name: "lab-b", id: Self.labB)
    let peers = [Self.peer("lab-b", Self.mallory, port: 1), Self.peer("lab-b", Self.labB, port: 2)]
    #expect(Self.chosen(try PeerResolver.choose("lab-b", among: peers, known: known, trust: TrustStore()))?.id == Self.labB)
    guard case .ambiguous(let both) = try PeerResolver.choose("lab-b", among: peers, known: KnownPeers(), trust: TrustStore()) else {
      Issue.record("two unknown devices with one name must be left to a person")
      return
    }
    #expect(both.count == 2)
  }

  @Test func withoutANameTheOnePeerNearbyIsChosenAndThisHomeNever() throws {
    let peers = [Self.peer("me", Self.laptop, isSelf: true), Self.peer("lab-b", Self.labB, port: 2)]
    #expect(Self.chosen(try PeerResolver.choose(nil, among: peers, known: KnownPeers(), trust: TrustStore()))?.id == Self.labB)
    #expect(throws: ShareError.self) {
      try PeerResolver.choose(nil, among: [Self.peer("me", Self.laptop, isSelf: true)], known: KnownPeers(), trust: TrustStore())
    }
    #expect(throws: ShareError.self) {
      try PeerResolver.choose("nobody", among: peers, known: KnownPeers(), trust: TrustStore())
    }
  }

  @Test func addressesNeedNoDiscoveryAndAreNotRemembered() throws {
    let home = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-resolver-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: home) }
    let paths = SharePaths(home: home)
    let device = try Device.load(paths: paths, name: "alice")
    let resolver = PeerResolver(device: device, contacts: Contacts(paths: paths))
    let endpoints = try resolver.resolve(
      ["127.0.0.1:4000", "[::1]:4001"], warn: { _ in }, choose: { _, _ in throw ShareError.cancelled("no choice") })
    #expect(endpoints.map(\.address) == ["127.0.0.1:4000", "[::1]:4001"])
    #expect(endpoints.allSatisfy { $0.expectedFingerprint == nil })
  }
}
