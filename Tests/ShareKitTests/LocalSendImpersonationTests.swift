import Foundation
import LocalSend
import TLS
import Testing

@testable import ShareKit

/// A LocalSend announcement proves nothing: one unauthenticated `/register` can claim any alias
/// and any fingerprint. Review 15 found it took a send meant for a share device nearby (one this
/// home had not sent to yet), for this device's own name, and for a share ID's prefix.
@Suite struct LocalSendImpersonationTests {
  typealias R = PeerRecords

  func announced(_ alias: String, _ fingerprint: String, from address: String = "192.0.2.66") -> LocalSendPeer {
    LocalSendPeer(
      alias: PeerText(alias), fingerprint: PeerText(fingerprint.uppercased()), address: address, port: 53317, deviceModel: nil,
      deviceType: nil, heardAt: Date())
  }

  @Test func aNameOrIDPrefixOfAShareDeviceNearbyOrOfThisDeviceIsNeverALocalSendDevices() {
    let book = R.book()
    let nearby = R.peers([R.record("peer-c", R.labB)], book: book)
    let mallory = R.mallory.hex
    // The alias of a share device nearby (or a look-alike of it), a prefix of its ID, this
    // device's own name: share's protocol, where the name's owner proves its ID.
    for target in ["peer-c", "PEER-C", "peer-\u{0441}", String(R.labB.hex.prefix(12)), "me"] {
      #expect(LocalSendPeer.namesShareDevice(target, nearby: nearby, book: book), "\(target)")
    }
    // Only the LocalSend device has these.
    for target in ["Pixel 7", String(mallory.prefix(12))] {
      #expect(!LocalSendPeer.namesShareDevice(target, nearby: nearby, book: book), "\(target)")
    }
  }

  @Test func anAnnouncementUsingAShareDevicesNameOrIDIsMarked() throws {
    let book = R.book(contacts: ["laptop": R.laptop])
    let nearby = R.peers([R.record("peer-c", R.labB)], book: book)
    #expect(announced("peer-c", R.mallory.hex).impersonation(of: nearby, book: book)?.contains("peer-c, a share device nearby") == true)
    #expect(announced("Pixel", R.labB.hex).impersonation(of: nearby, book: book) != nil, "a nearby device's ID")
    #expect(announced("Pixel", R.laptop.hex).impersonation(of: nearby, book: book)?.contains("this home knows") == true, "a contact's ID")
    #expect(announced("me", R.mallory.hex).impersonation(of: nearby, book: book) != nil, "this device's own name")
    #expect(announced("Pixel", R.mallory.hex).impersonation(of: nearby, book: book) == nil)
  }

  @Test func oneAddressCannotFillTheHeardDevicesNorMoveAnotherDevicesClaim() {
    let nearby = LocalSendNearby()
    func device(_ alias: String, _ fingerprint: String) -> LocalSendDevice {
      LocalSendDevice(alias: alias, deviceModel: nil, deviceType: .mobile, fingerprint: fingerprint, port: 53317)
    }
    for index in 0..<300 {
      nearby.heard(device("flood-\(index)", String(format: "%064x", index)), from: "192.0.2.66")
    }
    let phone = String(repeating: "ab", count: 32)
    nearby.heard(device("Real Phone", phone), from: "192.0.2.10")
    #expect(nearby.current().count == LocalSendNearby.maxPeersPerAddress + 1)
    #expect(nearby.current().contains { $0.alias == "Real Phone" })
    nearby.heard(device("Real Phone", phone), from: "192.0.2.66")
    #expect(nearby.current().first { $0.alias == "Real Phone" }?.address == "192.0.2.10", "the claim did not move it")
  }
}
