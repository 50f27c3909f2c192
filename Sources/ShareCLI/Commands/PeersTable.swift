import ShareKit

extension PeersCommand {
  /// Nearby peers for people on a terminal: aligned columns under a header, each share peer
  /// with its other verified names and its marks (this home, a contact, or what an unverified
  /// record claims), then the LocalSend devices this home's daemon heard.
  static func table(_ peers: [Peer], localSend: [(LocalSendPeer, unverified: String?)] = []) -> Table {
    var table = Table("NAME", "ID", "ADDRESSES", "")
    for peer in peers {
      let marks = marks(peer)
      let addresses = peer.preferredAddresses.map { "\($0.address.contains(":") ? "[\($0.address)]" : $0.address):\($0.port)" }
      table.add(
        ([peer.name] + peer.aliases).map(\.description).joined(separator: ", "), peer.id?.short ?? "(no ID)",
        addresses.map(escape).joined(separator: " "), marks.isEmpty ? "" : "(" + marks.joined(separator: ", ") + ")")
    }
    for (peer, unverified) in localSend {
      table.add(
        peer.alias.description, peer.fingerprint.prefix(12).description, shownAddress(peer), localSendMarks(unverified))
    }
    return table
  }
}
