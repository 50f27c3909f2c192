import Foundation
import System
import TLS
import Testing

@testable import ShareKit

/// `share peers` proves each record it would list as a known device with a TLS handshake at
/// its addresses (review 41, LOW 4): a record that copies a contact's name and ID word for word,
/// at another device's address, is listed on its own and marked, not as the contact.
@Suite struct PeerProofTests {
  static func address(_ port: UInt16, as name: String) -> Peer.Address {
    Peer.Address(address: "127.0.0.1", port: port, interface: "lo", advertisedAs: PeerText(name))
  }

  static func contact(_ id: Fingerprint, at addresses: [Peer.Address]) -> Peer {
    Peer(
      name: PeerText("alice-pc"), id: id, version: "1", addresses: addresses, isSelf: false, trusted: true,
      standing: .known)
  }

  @Test func aCopyOfAContactsRecordAtAnotherDevicesAddressIsListedOnItsOwn() throws {
    let alice = try RunningReceiver(home: TestHome(name: "alice-pc"))
    let mallory = try RunningReceiver(home: TestHome(name: "mallory"))
    let looker = try TestHome()
    let id = alice.home.device.fingerprint
    let listed = Self.contact(id, at: [Self.address(alice.port, as: "alice-pc"), Self.address(mallory.port, as: "alice-pc")])
    let proved = try PeerProof(device: looker.device, timeout: .seconds(10)).prove([listed])
    #expect(proved.count == 2)
    let real = try #require(proved.first { $0.standing == .known })
    #expect(real.trusted && real.proved == true && real.addresses.map(\.port) == [alice.port])
    let copy = try #require(proved.first { $0.standing != .known })
    #expect(copy.standing == .certificateIsNot("alice-pc") && !copy.trusted && copy.standing.isUnverifiedClaim)
    #expect(copy.addresses.map(\.port) == [mallory.port] && copy.id == id && copy.proved == nil)
  }

  @Test func aKnownRecordNoAddressAnswersIsMarkedNotProved() throws {
    let alice = try TestHome(name: "alice-pc")
    let looker = try TestHome()
    // A port that was just free: nothing listens there.
    let closed = try TCPListener(host: "127.0.0.1", port: 0)
    let port = closed.port
    closed.close()
    let proved = try PeerProof(device: looker.device, timeout: .seconds(2)).prove([
      Self.contact(alice.device.fingerprint, at: [Self.address(port, as: "alice-pc")])
    ])
    // Not the contact: nothing proved it (review 48).
    #expect(proved.count == 1 && proved[0].proved == false && !proved[0].trusted && !proved[0].isSelf)
  }

  /// Review 48: an address that accepts and never answers joined the proved contact's row.
  @Test func aSilentAddressBesideAProvedOneIsListedApart() throws {
    let alice = try RunningReceiver(home: TestHome(name: "alice-pc"))
    let silent = try SilentListener()
    let looker = try TestHome()
    let listed = Self.contact(
      alice.home.device.fingerprint, at: [Self.address(alice.port, as: "alice-pc"), Self.address(silent.port, as: "alice-pc")])
    let proved = try PeerProof(device: looker.device, timeout: .seconds(1)).prove([listed])
    let real = try #require(proved.first { $0.proved == true })
    #expect(real.trusted && real.addresses.map(\.port) == [alice.port])
    let apart = try #require(proved.first { $0.proved == false })
    #expect(!apart.trusted && apart.addresses.map(\.port) == [silent.port])
  }

  @Test func recordsNotListedAsKnownAreNotAsked() throws {
    let looker = try TestHome()
    let silent = try SilentListener()
    let stranger = Peer(
      name: PeerText("someone"), id: try TestHome().device.fingerprint, version: "1",
      addresses: [Self.address(silent.port, as: "someone")], isSelf: false, trusted: false, standing: .new)
    let proved = try PeerProof(device: looker.device, timeout: .seconds(2)).prove([stranger])
    #expect(proved == [stranger] && silent.accepted == 0)
  }

  /// The receiver says nothing of a connection that only looked at its certificate (closed
  /// cleanly before a byte), and still logs one that sent something else than a Hello.
  @Test func aLookAtTheCertificateIsNotLoggedAsAFailure() throws {
    let alice = try RunningReceiver(home: TestHome(name: "alice-pc"))
    let looker = try TestHome()
    let listed = Self.contact(alice.home.device.fingerprint, at: [Self.address(alice.port, as: "alice-pc")])
    for _ in 0..<3 {
      #expect(try PeerProof(device: looker.device, timeout: .seconds(10)).prove([listed]).first?.proved == true)
    }
    let context = try TLSContext(identity: looker.device.identity, role: .client)
    let tls = try TLSConnection.connect(
      Socket.connect(host: "127.0.0.1", port: alice.port, timeout: .seconds(10)), context: context, timeout: .seconds(10))
    try [UInt8](repeating: 0xFF, count: 64).withUnsafeBytes { try tls.write($0) }
    tls.shutdown()
    tls.close()
    // Failures from one address are logged once per burst: the first logged is the one that
    // counts, and it must be the garbage, not a look (a connection closed before the Hello).
    #expect(alice.waitFor { if case .connectionFailed = $0 { true } else { false } })
    let failures = alice.recorded.compactMap { event -> ShareError? in
      if case .connectionFailed(_, _, let error) = event { error } else { nil }
    }
    #expect(failures.count == 1 && !"\(failures)".contains("closed before"), "\(failures)")
  }
}
