import TLS
import Wire

/// What a send reports as it goes, for progress bars and `--json` events.
public enum SendEvent: Sendable {
  /// The receiver proved its identity at `address` (the one of its addresses that answered).
  case connected(peerName: String, fingerprint: Fingerprint, address: String)
  /// The receiver is asking its person before it answers (its message, untrusted); this side
  /// gives up when `timeLeft` has passed.
  case waiting(String, timeLeft: Duration)
  /// The receiver's verdict on each offered item.
  case answered([ItemVerdict])
  /// Bytes sent so far out of the total of accepted items.
  case progress(sent: Int64, total: Int64)
}

/// The receiver's verdict on one offered item.
public struct ItemVerdict: Sendable, Equatable {
  /// The item's number in the offer.
  public var id: Int
  /// The name it was offered under.
  public var name: String
  public var accepted: Bool
  /// Why, in the receiver's words (untrusted: escape before display).
  public var reason: String?
  /// The type the receiver decided on from the name.
  public var type: String?
  /// When the receiver already holds the first bytes of it (an interrupted send): where
  /// sending resumes; nil when it starts from the beginning.
  public var resumeFrom: Int64?

  init(_ answer: ItemAnswer, name: String) {
    id = answer.id
    self.name = name
    accepted = answer.accepted
    reason = answer.reason
    type = answer.type
    resumeFrom = answer.offset.flatMap { $0 > 0 ? $0 : nil }
  }
}
