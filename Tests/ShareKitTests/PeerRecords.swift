import Discovery
import Foundation
import TLS

@testable import ShareKit

/// Discovery records as values, for the tests of grouping and choosing peers without Avahi.
enum PeerRecords {
  static let labB = Fingerprint(bytes: Array(repeating: 0xb0, count: 32))!
  static let laptop = Fingerprint(bytes: Array(repeating: 0xc0, count: 32))!
  static let mallory = Fingerprint(bytes: Array(repeating: 0x66, count: 32))!
  static let me = Fingerprint(bytes: Array(repeating: 0xaa, count: 32))!

  /// A resolved record: `name` on `interface` (IPv4), at 192.0.2.x:`port`, claiming `id`.
  static func record(
    _ name: String, _ id: Fingerprint?, port: UInt16 = 40123, address: String? = nil, interface: Int32 = 1
  ) -> ResolvedService {
    let instance = ServiceInstance(
      name: name, type: "_share._tcp", domain: "local", interfaceIndex: interface, interfaceName: "if\(interface)",
      ipProtocol: .ipv4)
    var txt = ["v": "1"]
    if let id { txt["id"] = id.hex }
    return ResolvedService(
      instance: instance, hostName: "host.local", address: address ?? "192.0.2.\(port % 200)", port: port, txt: txt,
      rawTXT: [], isLocal: false)
  }

  /// What this home knows: its contacts (name → ID), the names it sent to, and itself ("me").
  static func book(contacts: [String: Fingerprint] = [:], sentTo: [String: Fingerprint] = [:]) -> KnownIdentities {
    var known = KnownPeers()
    for (name, id) in sentTo { known.remember(name: name, id: id) }
    let trust = TrustStore(peers: contacts.map { TrustedPeer(id: $0.value, name: PeerText($0.key)) })
    return KnownIdentities(own: ("me", me), trust: trust, known: known)
  }

  /// The peers these records make, as `share peers` would list them.
  static func peers(_ records: [ResolvedService], book: KnownIdentities) -> [Peer] {
    var table = PeerTable(book: book)
    for record in records { _ = table.add(record) }
    return table.peers.values.sorted { $0.name.unescaped < $1.name.unescaped }
  }

  /// Choose and check as `PeerResolver.resolve` does after browsing, with no person to ask.
  static func endpoint(for query: String?, among peers: [Peer], book: KnownIdentities) throws -> Endpoint {
    switch try PeerResolver.choose(query, among: peers, book: book) {
    case .chosen(let match): return try PeerResolver.endpoint(for: match, query: query, book: book)
    case .ambiguous(let peers): throw Ambiguous(peers: peers)
    }
  }

  struct Ambiguous: Error {
    var peers: [Peer]
  }
}
