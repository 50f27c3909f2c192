import Discovery
import TLS

/// The peers a browse has shown so far, built from its records, and what each record added or
/// removed changes for them: the state behind `PeerDirectory.watch`. A value, fed browse
/// results; no Avahi.
///
/// A peer is whatever its records say now, rebuilt after every change, and an event is
/// reported only when that differs from what was last reported for it: a record seen again
/// (resolved anew, or on a second interface with the same address) reports nothing, so one
/// appearance is never reported twice, and a peer disappears only with the last of its records.
struct PeerTable {
  let book: KnownIdentities
  /// The current records, each under its instance (name, interface, IP version), in the order
  /// they were first seen.
  private var records: [ServiceInstance: Record] = [:]
  private var order: [ServiceInstance] = []
  /// The peers as last reported, by key.
  private(set) var peers: [String: Peer] = [:]

  /// What one record says.
  private struct Record: Equatable {
    var key: String
    var name: String
    var id: Fingerprint?
    var version: String?
    var address: Peer.Address
    var standing: Peer.Standing
  }

  init(book: KnownIdentities) {
    self.book = book
  }

  /// A record was resolved (for the first time, or again).
  mutating func add(_ service: ResolvedService) -> [PeerEvent] {
    let id = service.txt[AdvertisedKeys.id].flatMap(Fingerprint.init(hex:))
    let name = service.instance.name
    let standing = book.standing(name: name, id: id)
    let record = Record(
      key: Peer.key(name: name, id: id, standing: standing), name: name, id: id,
      version: service.txt[AdvertisedKeys.version],
      address: Peer.Address(
        address: service.address, port: service.port, interface: service.instance.interfaceName, advertisedAs: PeerText(name)),
      standing: standing)
    let previous = records.updateValue(record, forKey: service.instance)
    if previous == nil { order.append(service.instance) }
    guard previous != record else { return [] }
    var events: [PeerEvent] = []
    for key in [previous?.key, record.key].compactMap({ $0 }).uniqued() {
      if let event = refresh(key) { events.append(event) }
    }
    return events
  }

  /// A record went away.
  mutating func remove(_ instance: ServiceInstance) -> [PeerEvent] {
    guard let record = records.removeValue(forKey: instance) else { return [] }
    order.removeAll { $0 == instance }
    return [refresh(record.key)].compactMap { $0 }
  }

  /// Rebuilds the peer under `key` from its records; the event to report, if it changed.
  private mutating func refresh(_ key: String) -> PeerEvent? {
    let before = peers[key]
    let after = peer(for: key)
    peers[key] = after
    switch (before, after) {
    case (nil, let peer?): return .appeared(peer)
    case (let peer?, nil): return .disappeared(peer)
    case (let old?, let new?) where old != new: return .changed(new)
    default: return nil
    }
  }

  /// The peer the records under `key` make, or nil when none is left.
  private func peer(for key: String) -> Peer? {
    let mine = order.compactMap { records[$0] }.filter { $0.key == key }
    guard let first = mine.first else { return nil }
    var names: [String] = []
    var addresses: [Peer.Address] = []
    for record in mine {
      if !names.contains(where: { KnownIdentities.sameName($0, record.name) }) { names.append(record.name) }
      if !addresses.contains(where: { $0.address == record.address.address && $0.port == record.address.port }) {
        addresses.append(record.address)
      }
    }
    let trusted = first.standing == .known && first.id.map { book.trust.trusts($0) } == true
    var peer = Peer(
      name: PeerText(names[0]), aliases: names.dropFirst().map { PeerText($0) }, id: first.id, version: first.version,
      addresses: addresses, isSelf: first.id != nil && first.id == book.own?.id, trusted: trusted,
      standing: first.standing)
    if trusted, let contact = first.id.flatMap({ book.trust.peer($0) }),
      !names.contains(where: { KnownIdentities.sameName($0, contact.name.unescaped) })
    {
      peer.contactName = contact.name
    }
    return peer
  }
}

extension Array where Element: Hashable {
  /// The elements without repeats, in their first order.
  func uniqued() -> [Element] {
    var seen = Set<Element>()
    return filter { seen.insert($0).inserted }
  }
}
