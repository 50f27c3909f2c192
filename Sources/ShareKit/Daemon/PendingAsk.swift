import Foundation
import TextEscaping

/// One item of an ask, as `share requests` shows it.
package struct AskedItem: Codable, Sendable, Equatable {
  /// The name the sender offered.
  package var name: PeerText
  package var kind: String
  /// The bytes it will bring: a folder's the sum of what its accepted entries declare (not the
  /// size the sender gave it: review 19's "1 byte" folder brought 60 MiB).
  package var size: Int64?
  /// How many files of a folder will come.
  package var files: Int? = nil
  package var type: String?
  /// The type rules' verdict (an ask only decides about items the rules accept).
  package var accepted: Bool
  /// The type rules' reason, which may quote what the sender offered.
  package var reason: PeerText?
  /// The type's description ("ISO disk image"), for people; `type` is its identifier.
  package var typeDescription: String? = nil
  /// For a refused item, the command that would accept it (`share types accept .iso`).
  package var acceptWith: String? = nil
}

/// An ask waiting for the person, as `share requests` lists it.
package struct PendingAsk: Codable, Sendable, Equatable {
  /// The most items a waiting ask lists. An ask may offer 100,000 (Wire's limit); the owner needs
  /// the first ones and the count to decide, and the control socket's answer, which lists every
  /// waiting ask, stays a few hundred KiB whatever strangers ask.
  package static let listedItems = 100

  package var id: Int
  /// The name from the sender's Hello.
  package var peerName: PeerText
  package var peerId: String
  package var address: String
  /// The first `listedItems` items, in offer order.
  package var items: [AskedItem]
  /// How many items the ask offers in all.
  package var itemCount: Int
  package var askedAt: Date
  package var expiresAt: Date
  /// How many connections wait on this ask (duplicates are folded into one).
  package var connections: Int
  /// For a pairing request: the code both people compare.
  package var pairingCode: String?
  /// The sender's name here when it is a contact (one set to be asked), as `contact_name` means
  /// in every `--json` output: this sender is your contact, named so.
  package var contactName: PeerText? = nil
  /// The contact whose name this sender gave, or one like it, when the sender is another device:
  /// that contact's own name (`posed_as`, as in `share inbox list --json`) and its ID. Review 22:
  /// these were `contact_name` and `contact_with_name`, which read as "the sender is a contact".
  package var posedAs: PeerText? = nil
  package var posedAsId: String? = nil
  /// This device's own name, when the sender (another device) gave itself that name or one like
  /// it (review 29: `alice\u{200B}` asked `alice` unmarked).
  package var posesAsThisDevice: PeerText? = nil
  /// True when the sender proved no ID (a LocalSend sender without a certificate): `peerId` is
  /// then a random one for this ask, and it cannot become a contact.
  package var unverified: Bool? = nil
  /// What such a sender says its ID is: the Inbox records its items under it, marked unverified
  /// (review 22: the owner could not match the ask to what arrived).
  package var claimedId: String? = nil

  /// What the person should know about who asks before answering (`share requests`, the log, a
  /// notification): a stranger using a contact's name, or a sender that proved no identity.
  package var warning: String? {
    let claim = claimedId.map { "; claims ID \(PeerText(String($0.prefix(12))))" } ?? ""
    let unproven = unverified == true ? "unverified: it proved no identity (LocalSend without a certificate\(claim))" : nil
    let ownName = posesAsThisDevice.map { "warning: NOT this device (\($0)): another device using its name, or one like it" }
    guard let posedAsId else { return [ownName, unproven].compactMap { $0 }.joined(separator: "; ").nilIfEmpty }
    let impostor =
      "warning: NOT your contact \(posedAs ?? peerName) (\(posedAsId.prefix(12))): another device using "
      + (posedAs.map { $0 == peerName } ?? true ? "that name" : "a name like it (\(peerName))")
    return [impostor, ownName, unproven].compactMap { $0 }.joined(separator: "; ")
  }

  /// Why `share accept --trust` must not make this sender a contact, or nil.
  package var whyNotTrusted: String? {
    if unverified == true {
      return "\(peerName) proved no identity (LocalSend without a certificate), so it cannot be a contact"
    }
    if let problem = DeviceName.problem(peerName.unescaped) {
      // What `share trust add --name` and `share name` refuse (review 21: `alice\u{0}` and the
      // empty name became contacts, the first beside `alice`).
      return "its name \(peerName) \(problem), so it cannot be a contact by it. To trust it all the same, give it one: "
        + "'share trust add \(peerId) --name NAME'"
    }
    if let own = posesAsThisDevice {
      return "its name is this device's own (\(own)), or looks like it; this is another device (ID \(peerId.prefix(12))). "
        + "To trust it all the same, give it another name: 'share trust add \(peerId) --name OTHER'"
    }
    if let posedAsId {
      return "your contact named \(posedAs ?? peerName) has ID \(posedAsId.prefix(12)); this is another device "
        + "(ID \(peerId.prefix(12))) using that name or one like it. To trust it all the same, give it another name: "
        + "'share trust add \(peerId) --name OTHER'"
    }
    return nil
  }
}

extension String {
  /// nil for the empty string.
  fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
