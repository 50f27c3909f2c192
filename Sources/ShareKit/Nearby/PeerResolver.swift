import Foundation
import TLS
import TextEscaping

/// Finds the receivers a send (or a pairing) means: `HOST:PORT` directly; a device name or an
/// ID prefix through discovery. A peer found by name is pinned: its certificate must be the ID
/// its record advertises, and the ID this home remembers for that name or its contacts give it;
/// a name reached for the first time is remembered with the ID it proved (trust on first use).
///
/// A name is resolved directly (Avahi keeps instance names unique on a link), so a send to it
/// starts as soon as its record answers; a browse runs alongside and decides whatever the
/// direct answer cannot: an ID prefix, a name nobody answers for, a record whose claim this
/// home knows to be otherwise, or no `--to` at all (the one peer nearby, after Avahi has
/// answered for now).
package struct PeerResolver: Sendable {
  package let device: Device
  package let contacts: Contacts
  /// How long discovery may take to answer.
  package var timeout: Duration = .seconds(3)

  package init(device: Device, contacts: Contacts) {
    self.device = device
    self.contacts = contacts
  }

  /// The names and IDs this home knows. For `checking` (a send by name) a damaged
  /// `known_peers.json` is an error; otherwise `warn` gets it and it is read as empty.
  package func knownIdentities(checking: Bool = false, warn: (String) -> Void) throws(ShareError) -> KnownIdentities {
    let trust = try contacts.trusted()
    let known: KnownPeers
    if checking {
      known = try contacts.rememberedForChecking()
    } else {
      let (remembered, warning) = contacts.remembered()
      if let warning { warn(warning) }
      known = remembered
    }
    return KnownIdentities(own: (device.name, device.fingerprint), trust: trust, known: known)
  }

  /// The endpoints for `targets`, in their order; without targets, the one peer nearby.
  ///
  /// `choose` is asked when several peers fit a name, or several are nearby (a person may pick
  /// one; it throws when none can be picked). A target shaped like an address that does not
  /// parse is a caller's mistake and is looked up as a name.
  package func resolve(
    _ targets: [String], warn: (String) -> Void, choose: ([Peer], _ query: String?) throws -> Peer
  ) throws -> [Endpoint] {
    var endpoints: [Endpoint?] = targets.map { Endpoint.parse($0) }
    let named = zip(targets, endpoints).filter { $0.1 == nil }.map(\.0)
    guard !named.isEmpty || targets.isEmpty else { return endpoints.compactMap { $0 } }

    let book = try knownIdentities(checking: true, warn: warn)
    let directory = PeerDirectory(book: book)
    let timeout = self.timeout
    let sightings = try runBlocking { try await Sightings.look(for: named, in: directory, timeout: timeout) }

    func endpoint(for query: String?) throws -> Endpoint {
      if let query, let peer = sightings.direct[query] {
        var endpoint = try PeerResolver.endpoint(for: .byName(peer), query: query, book: book)
        if peer.standing == .known, let id = peer.id {
          endpoint.elsewhere = { PeerResolver.addresses(of: id, in: directory, timeout: timeout) }
        }
        return endpoint
      }
      switch try PeerResolver.choose(query, among: sightings.nearby, book: book) {
      case .chosen(let match):
        return try PeerResolver.endpoint(for: match, query: query, book: book)
      case .ambiguous(let candidates):
        return try PeerResolver.endpoint(for: .byName(try choose(candidates, query)), query: query, book: book)
      }
    }
    if targets.isEmpty { return [try endpoint(for: nil)] }
    for (index, target) in targets.enumerated() where endpoints[index] == nil {
      endpoints[index] = try endpoint(for: target)
    }
    return endpoints.compactMap { $0 }
  }

  /// Every address advertised for the device `id` nearby, from a browse (empty when it fails).
  static func addresses(of id: Fingerprint, in directory: PeerDirectory, timeout: Duration) -> [Endpoint.Candidate] {
    let peers = (try? runBlocking { try await directory.snapshot(timeout: timeout) }) ?? []
    return peers.filter { $0.id == id && !$0.isSelf }.flatMap { $0.endpoint()?.candidates ?? [] }
  }

  /// Trust on first use: each receiver reached by name that proved the ID it advertised is
  /// remembered under that name; one reached by ID prefix, under the name it was advertised as
  /// when its own Hello (which its certificate vouches for) gives the same name. Best effort: a
  /// name not remembered now is learned next time.
  /// Returns a note for each name left pinned to another device.
  @discardableResult
  package func remember(_ endpoints: [Endpoint], _ results: [Result<SendReport, ShareError>]) -> [String] {
    var proven: [(name: String, id: Fingerprint)] = []
    for (endpoint, result) in zip(endpoints, results) {
      guard endpoint.expectedFingerprint != nil, case .success(let report) = result else { continue }
      if let name = endpoint.rememberAs {
        proven.append((name, report.peerFingerprint))
      } else if let advertised = report.advertisedAs, advertised == report.peerName {
        proven.append((advertised.unescaped, report.peerFingerprint))
      }
    }
    // This device's own name (or a look-alike) is never remembered for another device: a send
    // by ID to one advertising it would otherwise make that name its pin (review 14).
    let kept = (try? contacts.remember(proven.filter { !KnownIdentities.looksAlike($0.name, device.name) })) ?? []
    return kept.map { name, id, pinned in
      "\(id.short) calls itself \(PeerText(name)), but this home knows \(PeerText(name)) as \(pinned.short): not remembered "
        + "under that name (run \(ShellWords.suggestion(["share", "trust", "forget", name])) first if it should be)"
    }
  }
}

/// What discovery found for the names of a send: the records resolved directly, by name, and
/// (unless every name was resolved so) the peers a browse found before Avahi answered for now.
struct Sightings: Sendable {
  var direct: [String: Peer] = [:]
  var nearby: [Peer] = []

  private enum Found: Sendable {
    case direct(String, Peer?)
    /// The record Avahi would have renamed a second device of the name to (`NAME #2`), if any
    /// answered within `browseHeadStart`.
    case sibling(String, Peer?)
    case nearby([Peer])
  }

  /// Resolves each name directly and browses at once; returns as soon as every name has a
  /// direct answer this home can act on without seeing the others (see `settlesAlone`), else
  /// when the browse has its answer. A name new to this home settles so only when no second
  /// device of the name answered as `NAME #2` (review 41: `--to dave` went to whichever `dave`
  /// had won the name, `dave #2` unseen); with one, the browse's choice decides.
  static func look(for names: [String], in directory: PeerDirectory, timeout: Duration) async throws -> Sightings {
    let direct = Set(names.filter(resolvesDirectly))
    let everyName = !names.isEmpty && direct.count == Set(names).count
    return try await withThrowingTaskGroup(of: Found.self) { group in
      for name in direct {
        group.addTask { .direct(name, try await directory.resolve(name: name, timeout: timeout)) }
        group.addTask { .sibling(name, try await directory.resolve(name: name + " #2", timeout: browseHeadStart)) }
      }
      group.addTask {
        // When every name is being resolved directly, the browse (a second client of Avahi,
        // which resolves every record nearby) waits a moment to see whether it is needed.
        if everyName { try await Task.sleep(for: browseHeadStart) }
        return .nearby(try await directory.snapshot(timeout: timeout))
      }
      defer { group.cancelAll() }
      var sightings = Sightings()
      var answered: [String: Peer] = [:]
      var siblings: [String: Bool] = [:]
      while let found = try await group.next() {
        switch found {
        case .direct(let name, let peer):
          if let peer, settlesAlone(peer) { answered[name] = peer }
        case .sibling(let name, let peer):
          siblings[name] = peer != nil
        case .nearby(let peers):
          sightings.nearby = peers
          return sightings
        }
        for (name, peer) in answered where peer.standing == .known || siblings[name] == false {
          sightings.direct[name] = peer
        }
        if everyName && direct.allSatisfy({ sightings.direct[$0] != nil }) { return sightings }
      }
      return sightings
    }
  }

  /// How long direct answers have before the browse starts: a name's record answers from
  /// Avahi's cache, or from a host on the link, within tens of milliseconds.
  static let browseHeadStart: Duration = .milliseconds(100)

  /// Whether a target is looked up by name: anything that could not also be an ID prefix
  /// (which needs the browse, to see every record claiming it).
  static func resolvesDirectly(_ target: String) -> Bool {
    guard let prefix = normalizedFingerprintPrefix(target) else { return true }
    return prefix.count < PeerResolver.minimumPrefixLength
  }

  /// Whether a record found by name can be sent to without seeing the others: it advertises an
  /// ID, it is not this home's, and its name and ID are a pair this home knows or both new.
  static func settlesAlone(_ peer: Peer) -> Bool {
    peer.id != nil && !peer.isSelf && !peer.standing.isUnverifiedClaim && !peer.addresses.isEmpty
  }
}
