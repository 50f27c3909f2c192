import LocalSend
import TLS
import TextEscaping

/// A LocalSend sender as share's policy sees it. It is a contact only when the certificate it
/// presented in the TLS handshake proves the fingerprint it claims and that fingerprint is a
/// contact's ID (`share trust add FINGERPRINT`); what it merely says about itself (alias,
/// fingerprint) is recorded, never trusted.
struct LocalSendSender: Sendable {
  /// The ID the gatekeeper knows it by: its proven certificate fingerprint, or, for a sender that
  /// proved nothing (localsend-cli, browsers), a fresh random ID that no contact can have, so it
  /// is always a stranger and `share accept --trust` cannot make a claim a contact.
  let gateID: Fingerprint
  let proven: Bool
  /// The alias it gave itself.
  let alias: PeerText
  /// The fingerprint it claims, as sent.
  let claimedFingerprint: PeerText
  let address: String

  init(_ remote: RemoteSender) {
    alias = PeerText(remote.device.alias)
    claimedFingerprint = PeerText(remote.device.fingerprint)
    address = remote.address
    if remote.claimIsProven, let certificate = remote.certificate, let id = Fingerprint(bytes: certificate.bytes) {
      gateID = id
      proven = true
    } else {
      gateID = Self.stranger()
      proven = false
    }
  }

  /// A random ID, what a sender that proved none is known by (each offer its own).
  static func stranger() -> Fingerprint {
    var generator = SystemRandomNumberGenerator()
    let random = (0..<Fingerprint.byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
    // 32 bytes always make a fingerprint.
    return Fingerprint(bytes: random)!
  }

  /// How the owner sees it in `share requests` and the log.
  var displayName: PeerText { PeerText(alias.unescaped + (proven ? " (LocalSend)" : " (LocalSend, unverified)")) }

  /// The sender as the receiver's events (the log, `--json`, hooks) name it: by the ID the
  /// gatekeeper knows it by, as `share requests` does. A fingerprint it only claims is never
  /// shown as its ID (it may be a contact's): it is in the item's metadata, marked unproven.
  var peer: PeerInfo {
    PeerInfo(fingerprint: gateID, name: displayName, address: address, port: 0, verified: proven)
  }

  /// The ID recorded in an item's metadata: the proven fingerprint, else the claimed one.
  var senderId: String { proven ? gateID.hex : claimedFingerprint.unescaped }
}
