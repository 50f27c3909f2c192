import Foundation
import TLS

/// Finds the receivers a send (or a pairing) means: `HOST:PORT` directly; a device name or an
/// ID prefix through discovery. A peer found by name is pinned: its certificate must be the ID
/// its record advertises, and the ID this home remembers for that name or its contacts give it;
/// a name reached for the first time is remembered with the ID it proved (trust on first use).
public struct PeerResolver: Sendable {
  public let device: Device
  public let contacts: Contacts
  /// How long discovery may take to answer.
  public var timeout: Duration = .seconds(3)

  public init(device: Device, contacts: Contacts) {
    self.device = device
    self.contacts = contacts
  }

  /// The endpoints for `targets`, in their order; without targets, the one peer nearby.
  ///
  /// `warn` gets what the user should know (a damaged `known_peers.json`); `choose` is asked
  /// when several peers fit a name, or several are nearby (a person may pick one; it throws
  /// when none can be picked). A target shaped like an address that does not parse is a
  /// caller's mistake and is looked up as a name.
  public func resolve(
    _ targets: [String], warn: (String) -> Void, choose: ([Peer], _ query: String?) throws -> Peer
  ) throws -> [Endpoint] {
    var endpoints: [Endpoint?] = targets.map { Endpoint.parse($0) }
    let named = zip(targets, endpoints).filter { $0.1 == nil }.map(\.0)
    guard !named.isEmpty || targets.isEmpty else { return endpoints.compactMap { $0 } }

    let trust = try contacts.trusted()
    let (known, warning) = contacts.remembered()
    if let warning { warn(warning) }
    let peers = try browse(for: named, known: known, trust: trust)

    func endpoint(for query: String?) throws -> Endpoint {
      switch try PeerResolver.choose(query, among: peers, known: known, trust: trust) {
      case .chosen(let peer):
        guard var endpoint = peer.endpoint else { throw ShareError.configuration("\(peer.name) has no address") }
        // Remembered (trust on first use) under the name the user gave.
        if let query, peer.isCalled(query) { endpoint.label = query }
        return endpoint
      case .ambiguous(let candidates):
        let peer = try choose(candidates, query)
        guard let endpoint = peer.endpoint else { throw ShareError.configuration("\(peer.name) has no address") }
        return endpoint
      }
    }
    if targets.isEmpty { return [try endpoint(for: nil)] }
    for (index, target) in targets.enumerated() where endpoints[index] == nil {
      endpoints[index] = try endpoint(for: target)
    }
    return endpoints.compactMap { $0 }
  }

  /// The peers nearby. A name this home has sent to before needs no "all for now" from
  /// Avahi: its known ID settles it as soon as it is seen.
  private func browse(for named: [String], known: KnownPeers, trust: TrustStore) throws -> [Peer] {
    let directory = PeerDirectory(own: device.fingerprint, trust: trust)
    let expected = named.map { name in known.id(for: name) ?? trust.peer(named: name)?.id }
    let allKnown = expected.allSatisfy { $0 != nil }
    let timeout = self.timeout
    return try runBlocking {
      try await directory.snapshot(timeout: timeout) { seen in
        allKnown && zip(named, expected).allSatisfy { name, id in seen.contains { $0.isCalled(name) && $0.id == id } }
      }
    }
  }

  /// Trust on first use: each receiver reached by name that proved the ID it advertised is
  /// remembered under that name. Best effort: a name not remembered now is learned next time.
  public func remember(_ endpoints: [Endpoint], _ results: [Result<SendReport, ShareError>]) {
    var proven: [(name: String, id: Fingerprint)] = []
    for (endpoint, result) in zip(endpoints, results) {
      guard endpoint.expectedFingerprint != nil, let name = endpoint.label, case .success(let report) = result else { continue }
      proven.append((name, report.peerFingerprint))
    }
    try? contacts.remember(proven)
  }

  /// How choosing among the peers nearby ended.
  public enum Choice: Sendable {
    case chosen(Peer)
    /// Several peers fit; the caller may let a person choose.
    case ambiguous([Peer])
  }

  /// Picks among `peers` by device name or ID prefix (nil: the only peer nearby).
  ///
  /// A peer's ID is checked against what this home remembers for its name and what its
  /// contacts say: a name that comes with another ID is refused, naming both. When several
  /// devices claim one name, the one whose ID this home knows for it is chosen.
  public static func choose(_ query: String?, among peers: [Peer], known: KnownPeers, trust: TrustStore) throws(ShareError) -> Choice {
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
      let expected = known.id(for: query) ?? trust.peer(named: query)?.id
      if let expected, let known = matches.first(where: { $0.id == expected }) { matches = [known] }
    }
    guard matches.count == 1 else { return .ambiguous(matches) }
    let peer = matches[0]
    guard let id = peer.id else {
      throw .configuration("\(peer.name) advertises no device ID; send to it with --to HOST:PORT")
    }
    let name = query ?? peer.name.unescaped
    if let remembered = known.id(for: name), remembered != id {
      throw .identityMismatch(expected: remembered.hex, actual: id.hex, peer: name)
    }
    if let contact = trust.peer(named: name), contact.id != id {
      throw .identityMismatch(expected: contact.id.hex, actual: id.hex, peer: name)
    }
    return .chosen(peer)
  }
}
