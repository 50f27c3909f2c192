import Foundation
import System
import TLS

/// A home's contacts (`trust.json`) and the names it remembers by trust on first use
/// (`known_peers.json`): the one type that reads and writes those files.
///
/// Several processes change them at once — `share trust`, `share pair`, `share send`
/// remembering a name, the daemon accepting with `--trust` or pairing — so every change is a
/// load-modify-save under one exclusive advisory lock (`flock` on `contacts.lock` beside them):
/// no writer loses another's update. Each file is replaced atomically and durably, owner-only,
/// so a reader needs no lock: it sees the old file or the new one, never a mix.
///
/// Two files, not one: they fail differently (a damaged contacts file is an error, since it
/// decides who may send; a damaged `known_peers.json` is an error where a send checks a name
/// against it, and reported and ignored where it only decorates a listing), and scripts and the
/// README name them. A damaged `known_peers.json` is never written over: the pins in it would be
/// lost without a word.
package struct Contacts: Sendable {
  package let trustFile: URL
  package let knownPeersFile: URL
  /// The lock file every writer takes; it is never removed.
  package let lockFile: URL

  package init(paths: SharePaths) {
    trustFile = paths.trustStore
    knownPeersFile = paths.knownPeers
    lockFile = paths.config.appendingPathComponent("contacts.lock")
  }

  // MARK: Reading

  /// The contacts; a missing file is none, a damaged one an error.
  package func trusted() throws(ShareError) -> TrustStore {
    guard let data = FileManager.default.contents(atPath: trustFile.path) else { return TrustStore() }
    do {
      return TrustStore(peers: try Contacts.decoder.decode(File<TrustedPeer>.self, from: data).peers)
    } catch {
      throw .configuration("\(trustFile.path) is not a valid trust store: \(error.localizedDescription)")
    }
  }

  /// The remembered names for a listing; a missing file is none, a damaged one is reported and
  /// read as none.
  package func remembered() -> (KnownPeers, warning: String?) {
    switch readKnownPeers() {
    case .success(let known): return (known, nil)
    case .failure(let damage): return (KnownPeers(), "\(knownPeersFile.path) is damaged and was ignored: \(damage.reason)")
    }
  }

  /// The remembered names for checking a peer against them (a send by name, a LocalSend pin);
  /// a damaged file is an error: read as none, it would let any device answer under a name.
  package func rememberedForChecking() throws(ShareError) -> KnownPeers {
    switch readKnownPeers() {
    case .success(let known): return known
    case .failure(let damage): throw damaged(damage)
    }
  }

  private struct Damage: Error { var reason: String }

  private func damaged(_ damage: Damage) -> ShareError {
    .configuration(
      "\(knownPeersFile.path) is damaged (\(damage.reason)), so share cannot check that a name still belongs to the "
        + "device it sent to before; repair the file, or remove it to remember names afresh (each is learned again "
        + "at its next send)")
  }

  private func readKnownPeers() -> Result<KnownPeers, Damage> {
    guard let data = FileManager.default.contents(atPath: knownPeersFile.path) else { return .success(KnownPeers()) }
    do {
      return .success(KnownPeers(entries: try Contacts.decoder.decode(File<KnownPeers.Entry>.self, from: data).peers))
    } catch {
      return .failure(Damage(reason: error.localizedDescription))
    }
  }

  // MARK: Changing (each under the lock)

  /// Adds or updates a contact; returns the contacts as they are now.
  @discardableResult
  package func trust(_ peer: TrustedPeer) throws(ShareError) -> TrustStore {
    try withExclusiveLock(on: lockFile) { () throws(ShareError) in try changeTrust { $0.add(peer) }.store }
  }

  /// Adds or updates a contact a person named (`share trust add`), unless another contact has
  /// that name or one that looks like it: two contacts of one name would defeat the name's pin
  /// (a send by it, the warning about a stranger using it). Returns that contact, or nil.
  /// `keepingExisting`: a contact `peer` is already stays as it is (its name, its asking first).
  package func trustUnlessNameTaken(_ peer: TrustedPeer, keepingExisting: Bool = false) throws(ShareError) -> TrustedPeer? {
    try withExclusiveLock(on: lockFile) { () throws(ShareError) in
      try changeTrust { store -> TrustedPeer? in
        if keepingExisting, store.peer(peer.id) != nil { return nil }
        if let other = store.contact(sharingNameWith: peer.name, other: peer.id) { return other }
        store.add(peer)
        return nil
      }.result
    }
  }

  /// What `untrust` did.
  package enum Removal: Sendable, Equatable {
    case removed(TrustedPeer)
    /// No contact matches; nothing changed.
    case noMatch
    /// Several contacts match; nothing changed.
    case ambiguous([TrustedPeer])
  }

  /// Removes the one contact whose name is `query` or whose ID starts with it.
  package func untrust(matching query: String) throws(ShareError) -> Removal {
    try withExclusiveLock(on: lockFile) { () throws(ShareError) in
      try changeTrust { store -> Removal in
        let matches = store.matches(query)
        guard matches.count == 1 else { return matches.isEmpty ? .noMatch : .ambiguous(matches) }
        store.remove(matching: query)
        return .removed(matches[0])
      }.result
    }
  }

  /// Remembers the ID each name proved (trust on first use) — never a contact's name (or one
  /// like it) for another device: review 17 sent once by ID prefix to a stranger advertising
  /// the contact `bob`'s name, which then became the pin of `bob`, and every later send to the
  /// contact went to the stranger.
  /// A name pinned to another ID keeps its pin ('share trust forget' changes it): returned, with
  /// that ID (review 32: one send by ID prefix to a device advertising a pinned name moved the
  /// pin to it, and `--to NAME` then went there without a word).
  @discardableResult
  package func remember(_ bindings: [(name: String, id: Fingerprint)]) throws(ShareError) -> [(
    name: String, id: Fingerprint, pinned: Fingerprint
  )] {
    guard !bindings.isEmpty else { return [] }
    return try withExclusiveLock(on: lockFile) { () throws(ShareError) in
      let trust = try trusted()
      return try changeKnownPeers { known in
        var kept: [(name: String, id: Fingerprint, pinned: Fingerprint)] = []
        for binding in bindings where trust.contact(sharingNameWith: PeerText(binding.name), other: binding.id) == nil {
          if let pinned = known.id(for: binding.name), pinned != binding.id {
            kept.append((binding.name, binding.id, pinned))
          } else {
            known.remember(name: binding.name, id: binding.id)
          }
        }
        return kept
      }
    }
  }

  /// Forgets the ID remembered for a name; returns it, or nil when none was.
  package func forget(name: String) throws(ShareError) -> Fingerprint? {
    try withExclusiveLock(on: lockFile) { () throws(ShareError) in
      try changeKnownPeers { $0.forget(name: name) }
    }
  }

  /// After pairing: the peer becomes a contact and its name is remembered with its ID, unless
  /// the name is pinned to another ID already (it stays so). Remembering is best effort (a name
  /// not remembered is learned at the next send).
  /// A device whose name is (or looks like) another contact's is not added (review 27).
  @discardableResult
  package func pair(with peer: TrustedPeer) throws(ShareError) -> TrustStore {
    try withExclusiveLock(on: lockFile) { () throws(ShareError) in
      if let other = try trusted().contact(sharingNameWith: peer.name, other: peer.id) {
        throw .configuration("not trusted: your contact \(other.name) (\(other.id.short)) is called \(peer.name) or something like it")
      }
      let store = try changeTrust { $0.add(peer) }.store
      // A name pinned to another device keeps its pin ('share trust forget' changes it).
      _ = try? changeKnownPeers { known in
        if known.id(for: peer.name.unescaped).map({ $0 == peer.id }) ?? true { known.remember(name: peer.name.unescaped, id: peer.id) }
      }
      return store
    }
  }

  // MARK: Load-modify-save (called with the lock held)

  private func changeTrust<T>(_ change: (inout TrustStore) -> T) throws(ShareError) -> (result: T, store: TrustStore) {
    var store = try trusted()
    let before = store
    let result = change(&store)
    if store != before { try save(store.peers, to: trustFile) }
    return (result, store)
  }

  private func changeKnownPeers<T>(_ change: (inout KnownPeers) -> T) throws(ShareError) -> T {
    var known = try rememberedForChecking()
    let before = known
    let result = change(&known)
    if known != before { try save(known.entries, to: knownPeersFile) }
    return result
  }

  private func save<Entry: Codable>(_ entries: [Entry], to url: URL) throws(ShareError) {
    let data: Data
    do {
      data = try Contacts.encoder.encode(File(peers: entries))
    } catch {
      throw .configuration("cannot write \(url.path): \(error.localizedDescription)")
    }
    do {
      try writeDurably(data, to: url.path)
    } catch {
      throw .configuration("cannot write \(url.path): \(error)")
    }
  }

  /// Both files' shape: `{"peers": [...]}`.
  private struct File<Entry: Codable>: Codable {
    var peers: [Entry]
  }

  private static let encoder = JSONCoding.encoder(pretty: true)
  private static let decoder = JSONCoding.decoder()
}
