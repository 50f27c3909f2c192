import Foundation
import TLS

/// Trust on first use for sending by name: the device ID each peer name had the first time this
/// home sent to it. A name that later comes with another ID is refused, with both IDs named,
/// until the owner forgets the old one. A value: `Contacts` reads and writes it
/// (`known_peers.json`).
package struct KnownPeers: Sendable, Equatable {
  package struct Entry: Codable, Sendable, Equatable {
    package var name: String
    package var id: Fingerprint
    package var firstSeen: Date
    package var lastSeen: Date
  }

  package private(set) var entries: [Entry]

  package init(entries: [Entry] = []) {
    self.entries = entries
  }

  /// The ID remembered for a name. Names are compared as DNS-SD compares them, letter case
  /// aside: `Bob-Dev` is the name `bob-dev` was pinned under (outside review: each case variant
  /// had a pin of its own, so a new one passed unchecked).
  package func id(for name: String) -> Fingerprint? { entries.first { KnownIdentities.sameName($0.name, name) }?.id }

  /// Remembers (or refreshes) a name's ID after a successful exchange.
  package mutating func remember(name: String, id: Fingerprint, at now: Date = Date()) {
    if let index = entries.firstIndex(where: { KnownIdentities.sameName($0.name, name) }) {
      entries[index].id = id
      entries[index].lastSeen = now
    } else {
      entries.append(Entry(name: name, id: id, firstSeen: now, lastSeen: now))
    }
  }

  /// Forgets a name; returns the ID it had.
  @discardableResult
  package mutating func forget(name: String) -> Fingerprint? {
    let id = id(for: name)
    entries.removeAll { KnownIdentities.sameName($0.name, name) }
    return id
  }
}
