import TLS

/// What a `--to` names among the LocalSend devices heard: a device is its fingerprint, tried at
/// every address that claims it, since anyone may claim any fingerprint from anywhere and only
/// the certificate at an address proves it (review 31).
package enum LocalSendMatch: Equatable, Sendable {
  /// No device heard has that alias or fingerprint prefix.
  case none
  /// One device: `peer`, the newest claim the target matched, and `claims`, every claim of its
  /// fingerprint from any address, newest first. `pin`: the name its proven fingerprint is
  /// checked against and remembered under — `localsend:ALIAS` when the target was its alias;
  /// nil for a fingerprint prefix, which names the device itself (review 34: a prefix send
  /// pinned the alias of whichever claim of the fingerprint was newest, a stranger's
  /// "alice-phone" too, and later sends to alice-phone went to the stranger).
  case device(LocalSendPeer, claims: [LocalSendPeer], pin: String?)
  /// Several fingerprints claim that alias, none of them the one remembered for it; or, with
  /// `byPrefix`, several start with that prefix.
  case ambiguous(devices: Int, byPrefix: Bool)

  /// The device `target` names in `heard` (newest first): by its exact alias, or a prefix of
  /// at least 8 hex digits of its fingerprint. An alias several fingerprints claim names the one
  /// `remembered` for it (pinned by an earlier send), else none of them.
  /// `contact`: the ID of the contact called `target`; a device heard with that fingerprint is
  /// the one meant (review 34: a phone added with `share trust add` was never reached by its
  /// contact name).
  package static func of(
    _ target: String, in heard: [LocalSendPeer], remembered: Fingerprint?, contact: Fingerprint? = nil
  ) -> LocalSendMatch {
    let peers = heard.sorted { $0.heardAt > $1.heardAt }
    if let contact = contact?.hex.uppercased(), peers.contains(where: { $0.fingerprint.unescaped == contact }) {
      return device(contact, matched: [], in: peers, pin: nil)
    }
    let byAlias = peers.filter { $0.alias.unescaped == target }
    let named = distinctFingerprints(byAlias)
    let pin = LocalSendPeer.pinName(alias: target)
    if named.count == 1 { return device(named[0], matched: byAlias, in: peers, pin: pin) }
    if named.count > 1 {
      guard let pinned = remembered?.hex.uppercased(), named.contains(pinned) else {
        return .ambiguous(devices: named.count, byPrefix: false)
      }
      return device(pinned, matched: byAlias, in: peers, pin: pin)
    }
    guard target.count >= 8, target.allSatisfy(\.isHexDigit) else { return .none }
    let byPrefix = peers.filter { $0.fingerprint.unescaped.hasPrefix(target.uppercased()) }
    let prefixed = distinctFingerprints(byPrefix)
    // Several: said so (review 34: "no nearby peer" was all a prefix of two devices got).
    if prefixed.count > 1 { return .ambiguous(devices: prefixed.count, byPrefix: true) }
    return prefixed.count == 1 ? device(prefixed[0], matched: byPrefix, in: peers, pin: nil) : .none
  }

  /// What each of `targets` names among the LocalSend devices this home's running daemon heard
  /// (none for HOST:PORT), an alias several claim resolved by the fingerprint remembered for it.
  package static func of(_ targets: [String], paths: SharePaths) -> [LocalSendMatch] {
    let heard = targets.isEmpty ? [] : LocalSendPeer.heard(paths: paths, wait: 0)
    guard !heard.isEmpty else { return targets.map { _ in .none } }
    let contacts = Contacts(paths: paths)
    let (known, _) = contacts.remembered()
    let trust = try? contacts.trusted()
    return targets.map { target in
      guard Endpoint.parse(target) == nil else { return .none }
      let contact = trust?.peers.first { KnownIdentities.sameName($0.name.unescaped, target) }
      return of(target, in: heard, remembered: known.id(for: LocalSendPeer.pinName(alias: target)), contact: contact?.id)
    }
  }

  /// The one device matched, if any.
  package var peer: LocalSendPeer? {
    if case .device(let peer, _, _) = self { return peer }
    return nil
  }

  /// Where to send to the one device matched, at every address claiming it; nil if none.
  package var endpoint: Endpoint? {
    guard case .device(let peer, let claims, let pin) = self else { return nil }
    var endpoint = Endpoint(localSend: peer, claims: claims)
    endpoint.rememberAs = pin
    return endpoint
  }

  private static func distinctFingerprints(_ peers: [LocalSendPeer]) -> [String] {
    var seen: Set<String> = []
    return peers.map(\.fingerprint.unescaped).filter { seen.insert($0).inserted }
  }

  private static func device(_ fingerprint: String, matched: [LocalSendPeer], in peers: [LocalSendPeer], pin: String?) -> LocalSendMatch {
    let claims = peers.filter { $0.fingerprint.unescaped == fingerprint }
    let peer = matched.first { $0.fingerprint.unescaped == fingerprint } ?? claims[0]
    return .device(peer, claims: claims, pin: pin)
  }
}

extension LocalSendPeer {
  /// The name the fingerprint of the device called `alias` is remembered under (trust on first
  /// use): apart from share devices' names.
  package static func pinName(alias: String) -> String { "localsend:" + alias }

  /// Why this claim is not the device's own for sure, or nil: the same fingerprint is also
  /// claimed from another address in `heard`. One of them is a stranger's copy; a send tries
  /// each, and the certificate decides.
  package func contested(in heard: [LocalSendPeer]) -> String? {
    let others = heard.filter { $0.fingerprint == fingerprint && ($0.address, $0.port) != (address, port) }
    var seen: Set<String> = []
    let addresses = others.map(\.shownAddress).filter { seen.insert($0).inserted }
    guard !addresses.isEmpty else { return nil }
    return "unverified: its fingerprint is also claimed from " + addresses.joined(separator: ", ")
  }

  /// Why this claim is not the device this home knows by its alias, or nil: a send to that
  /// alias pinned another fingerprint (`localsend:ALIAS`, letter case aside). Review 34: a
  /// stranger's claim of a pinned alias, with a fingerprint made to start as the phone's, was
  /// listed in a row like the phone's, unmarked.
  package func notPinned(book: KnownIdentities) -> String? {
    guard let pinned = book.id(for: LocalSendPeer.pinName(alias: alias.unescaped)),
      pinned.hex != fingerprint.unescaped.lowercased()
    else { return nil }
    return "unverified: not the device this home knows as \(alias) (\(pinned.short))"
  }

  /// Where it says its server is, `host:port` (an IPv6 host in brackets), escaped.
  package var shownAddress: String {
    "\(PeerText(address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"))"
  }
}
