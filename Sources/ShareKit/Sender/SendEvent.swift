import TLS
import TextEscaping
import Wire

/// What a send reports as it goes, for progress bars and `--json` events.
package enum SendEvent: Sendable {
  /// The receiver proved its identity at `address` (the one of its addresses that answered).
  case connected(peerName: PeerText, fingerprint: Fingerprint, address: String)
  /// The receiver turned the connection away: it said it is busy (what it `said`, without
  /// the "busy: " and "try again" around it), or closed the connection before it was set up
  /// (`said` nil). It is tried again after `retryIn`.
  case busy(said: PeerText?, retryIn: Duration)
  /// The receiver is asking its person before it answers (its message); this side gives up
  /// when `timeLeft` has passed.
  case waiting(PeerText, timeLeft: Duration)
  /// The receiver's verdict on each offered item.
  case answered([ItemVerdict])
  /// Streaming of one accepted item (or one file of an accepted folder) begins.
  case sending(SendingPayload)
  /// Bytes sent so far out of the total of accepted items.
  case progress(sent: Int64, total: Int64)
}

/// An item (or a folder's file) as its bytes start to go.
package struct SendingPayload: Sendable, Equatable {
  /// The name it was offered under; for a folder's file, `folder/path/in/it`.
  package var name: PeerText
  /// Its size, when known (nil: a stream such as standard input).
  package var size: Int64?
  /// The bytes the receiver already holds (an interrupted send resuming): not sent again.
  package var resumeFrom: Int64
  /// Whether the receiver keeps the bytes it has received if the send is interrupted, so that
  /// the next send of it resumes (a file of known size, large enough: see `resumableBytes`).
  package var resumable: Bool
}

/// The receiver's verdict on one offered item.
package struct ItemVerdict: Sendable, Equatable {
  /// The item's number in the offer.
  package var id: Int
  /// The name it was offered under.
  package var name: PeerText
  package var accepted: Bool
  /// Why, in the receiver's words.
  package var reason: PeerText?
  /// The type the receiver decided on from the name.
  package var type: String?
  /// When the receiver already holds the first bytes of it (an interrupted send): where
  /// sending resumes; nil when it starts from the beginning.
  package var resumeFrom: Int64?

  init(_ answer: ItemAnswer, name: PeerText) {
    id = answer.id
    self.name = name
    accepted = answer.accepted
    reason = answer.reason
    type = answer.type
    resumeFrom = answer.offset.flatMap { $0 > 0 ? $0 : nil }
  }
}
