import Discovery
import Foundation
import TLS
import TextEscaping

/// A nearby device as discovery sees it: the records of one advertised name with one device
/// ID, however many interfaces and addresses they were seen on — or, for a device whose name
/// and ID this home knows, every name it knows it by. Everything here came from the network: a
/// routing hint only. The TLS certificate must match `id` before any item metadata is sent.
package struct Peer: Sendable, Equatable {
  /// Where the peer can be reached.
  package struct Address: Sendable, Hashable, Codable {
    /// Numeric; an IPv6 link-local address keeps its scope (`fe80::1%eth0`).
    package var address: String
    package var port: UInt16
    package var interface: String
    /// The instance name of the record that gave this address (not encoded: `Peer.name` and
    /// `aliases` say it).
    package var advertisedAs: PeerText? = nil

    enum CodingKeys: String, CodingKey { case address, port, interface }
  }

  /// What this home can say of a record's name and claimed ID (`KnownIdentities.standing`).
  package enum Standing: Sendable, Equatable {
    /// Its name is one this home knows for its ID (a contact's, one it sent to before, its
    /// own): the pair was proved by a certificate before.
    case known
    /// Neither its name nor its ID is known here (or it advertises no ID): a device not met
    /// before. Its certificate is checked against the ID before anything is sent.
    case new
    /// Its ID is one this home knows by other names (listed): a claim nothing has checked —
    /// a spoof, or the device renamed. Never shown as, or merged with, the device it claims.
    case claimsIDOf([String])
    /// Its name is one this home knows with another ID: another device, or the same re-keyed.
    case nameKnownWith(Fingerprint)
    /// Its name is not one this home knows, but looks like one (`bob‐dev` with U+2010 for
    /// `bob-dev`, a Cyrillic `о`), and its ID is not that device's: a look-alike.
    case looksLike(String)
    /// Its name is this home's own (or looks like it), and its ID is not this home's: another
    /// device, which a send to this device's name must never reach.
    case takesOwnName
    /// Its ID is not one this home knows, but starts with the same 12 digits share shows of the
    /// ID of a device it knows (named): made to be taken for that device in a listing (review 41).
    case idLooksLike(String)
    /// Its name and ID are a pair this home knows, but the certificate at its address is not
    /// that ID (`PeerProof`): a copy of the record of the device named (empty: this device).
    case certificateIsNot(String)

    /// Whether the record says something this home knows to be otherwise.
    package var isUnverifiedClaim: Bool {
      switch self {
      case .known, .new: false
      case .claimsIDOf, .nameKnownWith, .looksLike, .takesOwnName, .idLooksLike, .certificateIsNot: true
      }
    }
  }

  /// The advertised instance name: the device name, as anyone on the network may write it.
  package var name: PeerText
  /// Other names this home knows the same device by, advertised at the same time (after a
  /// rename, say). Only names whose pairing with the ID was proved before are merged here.
  package var aliases: [PeerText]
  /// The device ID from the TXT record; nil when the record has none or a malformed one.
  package var id: Fingerprint?
  /// The protocol version it advertises.
  package var version: String?
  package var addresses: [Address]
  /// It claims this home's own device ID (this home's daemon, when `standing` is `.known`).
  package var isSelf: Bool
  /// A contact of this home, known by this name: never true for an unverified claim.
  package var trusted: Bool
  /// A contact's name in this home, when it is not among the names it advertises (review 18:
  /// `share peers` showed the contact `srv` only as `server-01 (contact)`).
  package var contactName: PeerText?
  package var standing: Standing
  /// Whether a TLS handshake at one of its addresses proved the ID it advertises (`PeerProof`):
  /// nil when nothing was asked.
  package var proved: Bool? = nil

  package init(
    name: PeerText, aliases: [PeerText] = [], id: Fingerprint?, version: String?, addresses: [Address], isSelf: Bool,
    trusted: Bool, standing: Standing = .new
  ) {
    self.name = name
    self.aliases = aliases
    self.id = id
    self.version = version
    self.addresses = addresses
    self.isSelf = isSelf
    self.trusted = trusted
    self.standing = standing
  }

  /// A stable key: the device ID for a device known by its name(s), else the name with the ID
  /// it claims, so an unverified record never joins another's entry.
  var key: String { Peer.key(name: name.unescaped, id: id, standing: standing) }

  static func key(name: String, id: Fingerprint?, standing: Standing) -> String {
    if standing == .known, let id { return "id:\(id.hex)" }
    return "record:\(name.lowercased())/\(id?.hex ?? "-")"
  }

  /// Whether it is advertised as `name` (its own name or an alias).
  package func isCalled(_ name: String, caseInsensitive: Bool = false) -> Bool {
    let names = ([self.name] + aliases).map(\.unescaped)
    if caseInsensitive { return names.contains { KnownIdentities.sameName($0, name) } }
    return names.contains(name)
  }

  /// Whether it is advertised as `name` or a look-alike of it (`KnownIdentities.looksAlike`).
  package func looksCalled(_ name: String) -> Bool {
    ([self.name] + aliases).contains { KnownIdentities.looksAlike($0.unescaped, name) }
  }

  /// Addresses in the order to list them: IPv4, then global IPv6, then link-local IPv6.
  package var preferredAddresses: [Address] {
    addresses.sorted { rank($0) < rank($1) }
  }

  private func rank(_ address: Address) -> Int {
    if !address.address.contains(":") { return 0 }
    return address.address.lowercased().hasPrefix("fe80") ? 2 : 1
  }

  /// The endpoint to send to: every address (tried at once), and the certificate it must
  /// present; `rememberAs` is the name to remember the proved ID under.
  package func endpoint(label: PeerText? = nil, rememberAs: String? = nil) -> Endpoint? {
    var seen = Set<String>()
    let candidates = preferredAddresses.compactMap { address -> Endpoint.Candidate? in
      let candidate = Endpoint.Candidate(host: address.address, port: address.port, advertisedAs: address.advertisedAs ?? name)
      return seen.insert(candidate.address).inserted ? candidate : nil
    }
    guard !candidates.isEmpty else { return nil }
    var endpoint = Endpoint(candidates: candidates, label: label ?? name, expectedFingerprint: id, rememberAs: rememberAs)
    endpoint.expectedOnlyAsAdvertised = standing == .new
    return endpoint
  }
}

/// The TXT keys share advertises (at most 9 characters each, nothing that identifies a person).
package enum AdvertisedKeys {
  /// Protocol version.
  package static let version = "v"
  /// Device ID: the 64 hex digits of the certificate's public-key fingerprint.
  package static let id = "id"

  /// The TXT record for a device.
  package static func record(for device: Device) -> [String: String] {
    [version: String(protocolVersionString), id: device.fingerprint.hex]
  }

  static let protocolVersionString = "1"
}
