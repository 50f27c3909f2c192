import Foundation
import TLS
import UniformTypes

/// Choosing among the peers nearby, and what may be sent to: pure, the peers are values.
extension PeerResolver {
  /// How choosing among the peers nearby ended.
  package enum Choice: Sendable {
    case chosen(Match)
    /// Several peers fit; the caller may let a person choose.
    case ambiguous([Peer])
  }

  /// What a query matched.
  package enum Match: Sendable {
    /// One peer, by its name (or as the only one nearby).
    case byName(Peer)
    /// Every record claiming one device ID, matched by a prefix of it: all their addresses are
    /// tried at once and the certificate decides, so a copied record costs nothing.
    case byID([Peer])
    /// The records of the device this home knows a name by, under the names it knows it by
    /// (whichever record holds the name itself now): all their addresses tried at once.
    case byKnownName(String, [Peer])
  }

  /// Picks among `peers` by device name or ID prefix (nil: the only peer nearby, this home's own
  /// daemon aside).
  ///
  /// When several devices claim one name, the one whose ID this home knows by it is chosen.
  /// Whether the choice may be sent to is `endpoint(for:query:book:)`'s to say.
  package static func choose(_ query: String?, among peers: [Peer], book: KnownIdentities) throws(ShareError) -> Choice {
    let others = peers.filter { !$0.isSelf && !$0.addresses.isEmpty }
    guard let query else {
      let candidates = others.filter { $0.id != nil }
      guard !candidates.isEmpty else {
        if let own = peers.first(where: \.isSelf) {
          throw .configuration(
            "no other peer is nearby (only this home's own daemon, \(own.name)); start 'share daemon' on the other device, or use --to HOST:PORT"
          )
        }
        throw .configuration("no peer is nearby; start 'share daemon' on the other device, or use --to HOST:PORT")
      }
      return candidates.count == 1 ? .chosen(.byName(candidates[0])) : .ambiguous(candidates)
    }
    // A name this home knows (a contact's, or one sent to before) means that device: its
    // records — every name this home knows it by, `carol #2` too — whatever record holds the
    // name itself now. Another device may have taken `carol` while carol was away, carol
    // coming back as `carol #2` (review 29); the certificate decides among its addresses.
    if let known = book.id(for: query), case let theirs = others.filter({ $0.id == known && $0.standing == .known }),
      !theirs.isEmpty
    {
      return .chosen(.byKnownName(query, theirs))
    }
    // The name as typed, and as `share peers` shows it (`\u{…}` escapes pasted back): a peer
    // called the one and another called the other are both candidates, never one silently.
    var spellings = [query]
    if let pasted = Escaping.unescaped(query), pasted != query { spellings.append(pasted) }
    var byName: [Peer] = []
    for spelling in spellings {
      for peer in called(spelling, among: others, book: book) where !byName.contains(where: { $0.key == peer.key }) {
        byName.append(peer)
      }
    }
    var byID = others.filter { peer in
      matches(peer, prefix: query) && !byName.contains { $0.key == peer.key }
    }
    byID = try onlyKnownDevices(byID, prefix: query, book: book)
    // A contact (or a name sent to) that advertises under another name (`trust add ID --name
    // alice` for a device called alice-laptop): its name goes by its ID, and the certificate
    // decides among the records claiming it (review 16: `--to alice` found no peer).
    if byName.isEmpty, byID.isEmpty, let known = book.id(for: query) { byID = others.filter { $0.id == known } }
    switch (byName.count, byID.isEmpty) {
    case (0, true): throw notNearby(query, peers: peers, own: book.own, known: book.id(for: query))
    case (0, false): return Set(byID.compactMap(\.id)).count == 1 ? .chosen(.byID(byID)) : .ambiguous(byID)
    case (1, true): return .chosen(.byName(byName[0]))
    default: return .ambiguous(byName + byID)
    }
  }

  /// The peers called `name` (exactly, else apart from case); of several, the one whose ID this
  /// home knows by that name, when one is.
  private static func called(_ name: String, among peers: [Peer], book: KnownIdentities) -> [Peer] {
    let exact = peers.filter { $0.isCalled(name) }
    var byName = exact.isEmpty ? peers.filter { $0.isCalled(name, caseInsensitive: true) } : exact
    if !byName.isEmpty, book.id(for: name) == nil {
      // A name this home does not know yet: another device calling itself that too, which Avahi
      // numbered (`laptop #2`), is as much what was meant (review 36: the one that won the name
      // on the network was taken without asking).
      let named = byName
      byName += peers.filter { peer in
        let numbered = ([peer.name] + peer.aliases).contains {
          $0.unescaped != name && KnownIdentities.withoutCollisionNumber($0.unescaped) == name
        }
        return numbered && !named.contains { $0 == peer || (peer.id != nil && $0.id == peer.id) }
      }
    }
    guard byName.count > 1, let expected = book.id(for: name) else { return byName }
    let mine = byName.filter { $0.id == expected }
    return mine.isEmpty ? byName : mine
  }

  /// The records matched by an ID prefix, less those that are not the device this home knows
  /// by that prefix: a prefix of a contact's (or a device sent to) means that device, and a
  /// record whose ID only starts the same — a key made to match it, a few seconds' work for a
  /// short prefix (review 22) — is not sent to in its place; when only such records are
  /// nearby, the send stops, naming both.
  private static func onlyKnownDevices(_ byID: [Peer], prefix query: String, book: KnownIdentities) throws(ShareError)
    -> [Peer]
  {
    guard !byID.isEmpty, case let known = book.devices(withIDPrefix: query), !known.isEmpty else { return byID }
    let theirs = byID.filter { peer in known.contains { $0.id == peer.id } }
    guard theirs.isEmpty, let other = byID.first, let otherID = other.id else { return theirs }
    let names = known.map { "\(PeerText($0.name)) (\($0.id.short))" }.joined(separator: ", ")
    throw .configuration(
      "\(Escaping.escaped(query)) starts the ID of \(names), a device this home knows, which is not nearby; "
        + "\(other.name) (\(otherID.short)) has an ID that only starts the same: not sending to it. "
        + "If it is really the device you mean, send to it by more of its ID: --to \(otherID.short)")
  }

  /// The smallest number of hex digits that chooses a device nearby by its ID: eight, as for
  /// LocalSend devices. A key whose ID starts with four given digits takes about 65,000 tries,
  /// a second's work (review 22 made one to catch `--to 9708`); eight take about four billion.
  /// (A contact is still named by four in `share trust remove`: this home's own list.)
  package static let minimumPrefixLength = 8

  /// Whether `query` is an ID prefix (long enough to mean something) of the peer's ID.
  static func matches(_ peer: Peer, prefix query: String) -> Bool {
    guard let prefix = normalizedFingerprintPrefix(query), prefix.count >= minimumPrefixLength else { return false }
    return peer.id?.matches(prefix: prefix) == true
  }

  /// Nothing else nearby fits `query`: this device (seen nearby or not: its own name or ID), a
  /// record that advertises this device's ID, or nobody.
  private static func notNearby(
    _ query: String, peers: [Peer], own: (name: String, id: Fingerprint)?, known: Fingerprint? = nil
  ) -> ShareError {
    // Quoted when a blank at an end would not show (review 36: "is called  lab-b").
    let blankAtEnd = query.first?.isWhitespace == true || query.last?.isWhitespace == true
    let shown = blankAtEnd ? Escaping.quoted(query) : Escaping.escaped(query)
    let ownRecord = peers.first { $0.isSelf && ($0.isCalled(query, caseInsensitive: true) || matches($0, prefix: query)) }
    if let ownRecord, ownRecord.standing != .known {
      return .configuration(
        "\(ownRecord.name) advertises this home's own device ID: share does not send to itself; name another device (see 'share peers')")
    }
    if let own, ownRecord != nil || query.caseInsensitiveCompare(own.name) == .orderedSame || own.id.matches(prefix: query) {
      return .configuration(
        "'\(shown)' is this device (\(Escaping.escaped(own.name)), \(own.id.short)): its own daemon receives what other devices send; "
          + "send to another peer, or to this daemon's HOST:PORT to try it out")
    }
    // A record that claims what this home knows otherwise is marked, and never suggested
    // (review 23: `alice (60a2fb7ce8a2)` was listed as if it were the contact alice).
    let seen = peers.filter { !$0.isSelf }.map {
      "\($0.name) (\($0.id?.short ?? "no ID"))" + ($0.standing.isUnverifiedClaim ? " (unverified)" : "")
    }
    // A few hex digits were probably meant as an ID prefix (review 16: `--to af` said only that
    // nobody is called af).
    let short = normalizedFingerprintPrefix(query).map { $0.count < minimumPrefixLength } ?? false
    let hint = short ? " (an ID prefix needs at least \(minimumPrefixLength) hex digits)" : ""
    let nearby = seen.isEmpty ? " (none is nearby)" : "; nearby: " + seen.joined(separator: ", ")
    // A device this home knows by that name is away: said so, and no other name is suggested
    // for it (review 32: "did you mean 'lab-b'?", a device it did not know).
    if let known { return .configuration("\(shown) (\(known.short)), which this home knows, is not nearby\(nearby)") }
    let guess = Suggestions.closest(to: query, among: peers.filter { !$0.isSelf && !$0.standing.isUnverifiedClaim }.map(\.name.unescaped))
    let suggestion = guess.map { " (did you mean '\(Escaping.escaped($0))'?)" } ?? ""
    // One hint: a name nearby that is close is likelier what was meant (review 36: `--to cafe`
    // was told both that an ID prefix needs 8 hex digits and "did you mean 'café'?").
    return .configuration("no nearby peer is called \(shown)\(guess == nil ? hint : suggestion)\(nearby)")
  }

  /// The endpoint for what was chosen, once it is clear it may be sent to: a record is sent to
  /// by its name only when its name and ID are a pair this home knows, or both are new to it;
  /// its certificate must then be that ID (the pin). A record claiming an ID this home knows by
  /// another name is refused (it may be a copy made to impersonate); the device it claims to
  /// be is reached by its ID prefix, which tries every record claiming it and lets the
  /// certificate decide.
  static func endpoint(for match: Match, query: String?, book: KnownIdentities) throws(ShareError) -> Endpoint {
    switch match {
    case .byID(let peers):
      return try merged(peers, label: peers.count == 1 ? peers[0].name.unescaped : (query ?? peers[0].name.unescaped))
    case .byKnownName(let name, let peers):
      return try merged(peers, label: name, rememberAs: name)
    case .byName(let peer):
      let name = query.flatMap { peer.isCalled($0) ? $0 : nil } ?? peer.name.unescaped
      let shown = PeerText(name)
      guard let id = peer.id else { throw .configuration("\(shown) advertises no device ID; send to it with --to HOST:PORT") }
      if peer.isSelf { throw notNearby(name, peers: [peer], own: book.own) }
      switch peer.standing {
      case .known, .new: break
      case .nameKnownWith(let expected):
        // Only a record's claim: nothing was connected to (review 29).
        let words = ShellWords.suggestion(["share", "trust", "forget", name])
        let remove = ShellWords.suggestion(["share", "trust", "remove", name])
        throw .configuration(
          "the record called \(shown) nearby claims the device ID \(id.hex), but this home knows \(shown) as \(expected.hex), which is not advertised nearby: not sending to it (another device may have taken the name while \(shown) was away). If \(shown) really has a new identity, check its ID with its owner, then run \(words) (or, for a contact, \(remove) and pair again)"
        )
      case .looksLike(let similar) where KnownIdentities.withoutCollisionNumber(name) == similar:
        // Review 32: a name with Avahi's number for a taken name was "look-alike characters".
        throw .configuration(
          "\(shown) is \(PeerText(similar)) with the number Avahi adds when a name is already taken on the network, and its ID (\(id.short)) is not the one this home knows for \(PeerText(similar)): not sending to it. If it is really another device, send to it by its ID: --to \(id.short)"
        )
      case .looksLike(let similar):
        throw .configuration(
          "\(shown) only looks like \(PeerText(similar)), a device this home knows (the names differ only in letter case, punctuation, blanks or characters drawn alike), and its ID (\(id.short)) is not that device's; not sending to it. If it is really another device, send to it by its ID: --to \(id.short), or give it a name of its own here: 'share trust add \(id.hex) --name OTHER'"
        )
      case .takesOwnName:
        throw .configuration(
          "\(shown) is this device's own name (or looks like it), and the device advertising it there (\(id.short)) is another: not sending to it. If it is really another device, send to it by its ID: --to \(id.short)"
        )
      case .idLooksLike(let similar):
        throw .configuration(
          "\(shown) advertises a device ID that starts as \(PeerText(similar))'s does (\(id.short)) and is not it: not sending to it (a record made to be taken for \(PeerText(similar))). If it is really another device, send to it by its whole ID: --to \(id.hex)"
        )
      case .certificateIsNot:
        throw .configuration(
          "the record called \(shown) nearby advertises the device ID \(id.short), but the certificate at its address is another device's: not sending to it (a copy of the record, made to impersonate)"
        )
      case .claimsIDOf(let names):
        let known = names.map { Escaping.escaped($0) }.joined(separator: " or ")
        throw .configuration(
          "\(shown) advertises the device ID \(id.short) of \(known), which this home knows by that name: not sending to it (the record may be a copy made to impersonate \(known)). If \(known) was renamed \(shown), send to it once by its ID: --to \(id.short)"
        )
      }
      guard let endpoint = peer.endpoint(label: shown, rememberAs: name) else { throw .configuration("\(shown) has no address") }
      return endpoint
    }
  }

  /// One endpoint for every address of `peers`, records claiming one ID: the certificate decides.
  private static func merged(_ peers: [Peer], label: String, rememberAs: String? = nil) throws(ShareError) -> Endpoint {
    let merged = Peer(
      name: PeerText(label), id: peers[0].id, version: peers[0].version, addresses: peers.flatMap(\.addresses), isSelf: false,
      trusted: false, standing: .new)
    guard let endpoint = merged.endpoint(label: PeerText(label), rememberAs: rememberAs) else {
      throw .configuration("\(PeerText(label)) has no address")
    }
    return endpoint
  }
}
