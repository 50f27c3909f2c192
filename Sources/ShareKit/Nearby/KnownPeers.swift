import Foundation
import TLS

/// Trust on first use for sending by name: the device ID each peer name had the first time this
/// home sent to it. A name that later comes with another ID is refused, with both IDs named,
/// until the owner forgets the old one. A value: `Contacts` reads and writes it
/// (`known_peers.json`).
public struct KnownPeers: Sendable, Equatable {
  public struct Entry: Codable, Sendable, Equatable {
    public var name: String
    public var id: Fingerprint
    public var firstSeen: Date
    public var lastSeen: Date
  }

  public private(set) var entries: [Entry]

  public init(entries: [Entry] = []) {
    self.entries = entries
  }

  /// The ID remembered for a name.
  public func id(for name: String) -> Fingerprint? { entries.first { $0.name == name }?.id }

  /// Remembers (or refreshes) a name's ID after a successful exchange.
  public mutating func remember(name: String, id: Fingerprint, at now: Date = Date()) {
    if let index = entries.firstIndex(where: { $0.name == name }) {
      entries[index].id = id
      entries[index].lastSeen = now
    } else {
      entries.append(Entry(name: name, id: id, firstSeen: now, lastSeen: now))
    }
  }

  /// Forgets a name; returns the ID it had.
  @discardableResult
  public mutating func forget(name: String) -> Fingerprint? {
    let id = id(for: name)
    entries.removeAll { $0.name == name }
    return id
  }
}

/// Chooses the peer a `--to NAME` (or no `--to`) means.
public enum PeerSelection {
  /// The outcome of choosing.
  public enum Outcome: Sendable {
    case chosen(Peer)
    /// Several peers fit; the caller may let a person choose.
    case ambiguous([Peer])
  }

  /// Picks among `peers` by device name or ID prefix (nil: the only peer nearby).
  ///
  /// A peer's ID is checked against what this home remembers for its name and what its
  /// contacts say: a name that comes with another ID is refused, naming both. When several
  /// devices claim one name, the one whose ID this home knows for it is chosen.
  public static func choose(_ query: String?, among peers: [Peer], known: KnownPeers, trust: TrustStore) throws(ShareError) -> Outcome {
    let candidates = peers.filter { !$0.isSelf && !$0.addresses.isEmpty }
    var matches: [Peer]
    if let query {
      let exact = candidates.filter { $0.isCalled(query) }
      let folded = exact.isEmpty ? candidates.filter { $0.isCalled(query, caseInsensitive: true) } : exact
      let byID = normalizedFingerprintPrefix(query).map { prefix in
        prefix.count >= Fingerprint.minimumPrefixLength ? candidates.filter { $0.id?.matches(prefix: prefix) == true } : []
      } ?? []
      matches = folded + byID.filter { peer in !folded.contains { $0.key == peer.key } }
      if matches.isEmpty {
        let seen = candidates.map { "\($0.name) (\($0.id?.short ?? "no ID"))" }
        throw .configuration(
          "no nearby peer is called \(query)" + (seen.isEmpty ? " (none is nearby)" : "; nearby: " + seen.joined(separator: ", ")))
      }
    } else {
      matches = candidates.filter { $0.id != nil }
      if matches.isEmpty { throw .configuration("no peer is nearby; start 'share daemon' on the other device, or use --to HOST:PORT") }
    }
    if matches.count > 1, let query {
      // Several devices claim this name: prefer the one this home knows by it.
      let expected = known.id(for: query) ?? trust.peers.first { $0.name == query }?.id
      if let expected, let known = matches.first(where: { $0.id == expected }) { matches = [known] }
    }
    guard matches.count == 1 else { return .ambiguous(matches) }
    let peer = matches[0]
    guard let id = peer.id else {
      throw .configuration("\(peer.name) advertises no device ID; send to it with --to HOST:PORT")
    }
    let name = query ?? peer.name
    if let remembered = known.id(for: name), remembered != id {
      throw .identityMismatch(expected: remembered.hex, actual: id.hex, peer: name)
    }
    if let contact = trust.peers.first(where: { $0.name == name }), contact.id != id {
      throw .identityMismatch(expected: contact.id.hex, actual: id.hex, peer: name)
    }
    return .chosen(peer)
  }
}
