import Foundation
import TLS
import TextEscaping
import Wire

/// A peer this home trusts (a contact): identified by its certificate fingerprint.
package struct TrustedPeer: Codable, Sendable, Equatable {
  package var id: Fingerprint
  /// A name the owner gave it, or the device name it said in its Hello when added (someone
  /// else's text, so shown only escaped).
  package var name: PeerText
  package var addedAt: Date
  /// Whether an ask from this peer still waits for the person (false: accepted without asking).
  package var ask: Bool

  package init(id: Fingerprint, name: PeerText, addedAt: Date = Date(), ask: Bool = false) {
    self.id = id
    self.name = name
    self.addedAt = addedAt
    self.ask = ask
  }
}

/// The home's contacts: a value. `Contacts` reads it from and writes it to `trust.json`.
package struct TrustStore: Sendable, Equatable {
  package private(set) var peers: [TrustedPeer]

  package init(peers: [TrustedPeer] = []) {
    self.peers = peers
  }

  /// The entry for a fingerprint.
  package func peer(_ id: Fingerprint) -> TrustedPeer? { peers.first { $0.id == id } }

  /// Whether a fingerprint is a contact.
  package func trusts(_ id: Fingerprint) -> Bool { peer(id) != nil }

  /// The contact by this name.
  package func peer(named name: String) -> TrustedPeer? { peers.first { $0.name.unescaped == name } }

  /// A contact other than `other` whose name looks like `name` (letter case, look-alike
  /// characters and invisible ones aside: `KnownIdentities.appearance`): the contact a stranger
  /// giving that name would pass for.
  package func contact(sharingNameWith name: PeerText, other: Fingerprint) -> TrustedPeer? {
    peers.first { $0.id != other && KnownIdentities.looksAlike($0.name.unescaped, name.unescaped) }
  }

  /// Who a device proving `id` and giving `name` is to this home: a contact, by its name here
  /// (which may not be the one it gives), or a stranger and the contact it would pass for (one
  /// whose name its own looks like). Both ends ask: the receiver of a sender's Hello, the sender
  /// of a receiver's.
  package func identify(_ id: Fingerprint, calling name: PeerText) -> (contactName: PeerText?, posedAs: PeerText?) {
    if let contact = peer(id) { return (contact.name, nil) }
    return (nil, contact(sharingNameWith: name, other: id)?.name)
  }

  /// Adds or updates a contact.
  package mutating func add(_ peer: TrustedPeer) {
    if let index = peers.firstIndex(where: { $0.id == peer.id }) {
      peers[index] = peer
    } else {
      peers.append(peer)
    }
  }

  /// Removes the contacts matching an ID prefix (at least 4 hex digits) or a name; returns them.
  @discardableResult
  package mutating func remove(matching query: String) -> [TrustedPeer] {
    let matches = self.matches(query)
    peers.removeAll { peer in matches.contains { $0.id == peer.id } }
    return matches
  }

  /// Contacts whose name equals `query` or whose ID starts with it.
  package func matches(_ query: String) -> [TrustedPeer] {
    peers.filter { $0.name.unescaped == query || $0.id.matches(prefix: query) }
  }
}

/// The short code two people compare to pair their devices: six digits derived from both
/// fingerprints (in a fixed order) and both sides' nonces (`PairingNonces`), so each side
/// computes the same code only when each saw the other's real certificate and nonce. Like
/// Bluetooth's numeric comparison, whose commitment makes a device in the middle unable to
/// choose its two codes (review 39: a code of the fingerprints alone was).
package func verificationCode(_ a: Fingerprint, _ b: Fingerprint, nonces: PairingNonces) -> String {
  let (low, high) = a < b ? (a, b) : (b, a)
  let digest = SHA256Hasher.hash(
    Array("share-pair-v2".utf8) + low.bytes + high.bytes + nonces.sender.bytes + nonces.receiver.bytes)
  let number = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000
  let digits = String(number)
  let padded = String(repeating: "0", count: 6 - digits.count) + digits
  return "\(padded.prefix(3)) \(padded.suffix(3))"
}

/// The two nonces of a pairing: the sender's, and the receiver's, which it committed to
/// (`commitment(to:)`) before it saw the sender's.
package struct PairingNonces: Sendable, Equatable {
  package var sender: Digest
  package var receiver: Digest

  package init(sender: Digest, receiver: Digest) {
    self.sender = sender
    self.receiver = receiver
  }

  /// 32 random bytes.
  package static func random() -> Digest {
    var generator = SystemRandomNumberGenerator()
    return Digest(bytes: (0..<Digest.size).map { _ in UInt8.random(in: 0...255, using: &generator) })!
  }

  /// What the receiver sends first: a SHA-256 of its nonce, which it cannot change afterwards.
  package static func commitment(to nonce: Digest) -> Digest {
    Digest(bytes: SHA256Hasher.hash(Array("share-pair-commit-v2".utf8) + nonce.bytes))!
  }
}
