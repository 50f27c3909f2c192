import Foundation
import TLS
import TextEscaping
import UniformTypes
import Wire

/// A peer as the receiver knows it on one connection.
package struct PeerInfo: Sendable, Equatable {
  /// The fingerprint of the certificate it presented: its device ID. For a LocalSend sender that
  /// proved none, the random ID the gatekeeper knows it by for this session.
  package var fingerprint: Fingerprint
  /// The name from its Hello.
  package var name: PeerText
  package var address: String
  package var port: UInt16
  /// Whether `fingerprint` is proven by the certificate it presented (always, but for a LocalSend
  /// sender without one): hooks are given no sender ID otherwise.
  package var verified = true
  /// Its name as a contact of this home, if it is one (`Gatekeeper.identify`).
  package var contactName: PeerText? = nil
  /// For a stranger: the contact whose name, or one like it, it uses.
  package var posedAs: PeerText? = nil
}

extension PeerInfo {
  /// `metadata` with who this sender is to this home (a contact's name, or the contact it posed as).
  func identified(_ metadata: ItemMetadata) -> ItemMetadata {
    var metadata = metadata
    metadata.contactName = contactName
    metadata.posedAs = posedAs
    return metadata
  }
}

/// What a receiver reports as it works, for logs and `--json` output.
package enum ReceiverEvent: Sendable {
  case listening(port: UInt16)
  case connected(PeerInfo)
  case asked(PeerInfo, items: [ItemOffer], answers: [ItemAnswer])
  case stored(PeerInfo, item: ItemOffer, storedAs: String, size: Int64, type: TypeIdentifier?, sha256: String?)
  case refused(PeerInfo, item: ItemOffer, reason: String)
  /// The refusals of one Ask past the first `ReceiptBook.loggedRefusals` logged, counted in one
  /// event, with the reason of the first of them.
  case refusedMore(PeerInfo, count: Int, reason: String)
  case failed(PeerInfo, item: ItemOffer, reason: String)
  /// The failures of one Ask past those logged, as `refusedMore`.
  case failedMore(PeerInfo, count: Int, reason: String)
  /// A connection ended with an error (before or during the exchange).
  case connectionFailed(address: String, peer: PeerInfo?, error: ShareError)
  case finished(PeerInfo, stored: Int, refused: Int, failed: Int)
  /// The owner accepted a pairing request: the peer is now a contact.
  case paired(PeerInfo)
}
