import TLS
import TextEscaping
import Wire

/// How a send to one receiver ended.
package struct SendReport: Sendable {
  package var endpoint: Endpoint
  package var peerName: PeerText
  package var peerFingerprint: Fingerprint
  /// The address the receiver was reached at (of the endpoint's candidates, the one that won).
  package var address: String
  /// The name the record of that address advertised (nil for an address the user gave).
  package var advertisedAs: PeerText?
  /// The receiver's verdict on each offered item.
  package var answers: [ItemVerdict]
  /// What became of each item, in the receiver's order.
  package var items: [ItemOutcome]

  /// Every item stored, each folder with all its entries.
  package var allStored: Bool { items.allSatisfy { $0.status == .stored && ($0.entriesRefused ?? 0) == 0 } }
  package var storedCount: Int { items.filter { $0.status == .stored }.count }

  /// How many items were stored, refused and failed.
  package var counts: (stored: Int, refused: Int, failed: Int) {
    var counts = (stored: 0, refused: 0, failed: 0)
    for item in items {
      switch item.status {
      case .stored: counts.stored += 1
      case .rejected: counts.refused += 1
      case .failed: counts.failed += 1
      }
    }
    return counts
  }
}

/// What became of one item at a receiver.
package struct ItemOutcome: Sendable, Equatable {
  package enum Status: String, Sendable {
    /// Durably in the receiver's Inbox under `storedAs`.
    case stored
    /// Refused by the receiver, when offered or on its content; nothing kept.
    case rejected
    /// Accepted but not stored (bad digest, short data, disk full, a source that changed).
    case failed
  }

  /// The item's number in the offer.
  package var id: Int
  /// The name it was offered under.
  package var name: PeerText
  package var status: Status
  /// The name in the receiver's Inbox.
  package var storedAs: PeerText?
  /// Why it was refused or failed: why this side gave up on it, else the receiver's words.
  package var reason: PeerText?
  package var type: String?
  package var size: Int64?
  /// SHA-256 of what was stored, 64 hex digits.
  package var sha256: String?
  /// For a folder: how many entries were stored and how many were not.
  package var entriesStored: Int?
  package var entriesRefused: Int?
  /// For a folder: the entries not stored, each with the receiver's reason (the first few;
  /// `entriesRefused` counts them all).
  package var refusedEntries: [RefusedEntry]
  /// Failed because of this side: its source could not be read as offered (it shrank, a read
  /// failed), not because of the receiver.
  package var failedHere = false

  /// One entry of a folder that the receiver did not store, and why.
  package struct RefusedEntry: Sendable, Equatable {
    package var path: PeerText
    package var reason: PeerText
  }

  init(_ receipt: ItemReceipt, name: PeerText, abandoned: String?) {
    id = receipt.id
    self.name = name
    switch receipt.status {
    case .stored: status = .stored
    case .rejected: status = .rejected
    case .failed: status = .failed
    }
    storedAs = receipt.storedAs
    // This side's own words when it gave the item up ("it shrank while being sent"), where the
    // receiver could only say that the sender gave up on it (review 16); the receiver's own
    // reasons (a full disk, a refusal on content) stand.
    let own = abandoned.map { PeerText($0) }
    let gaveUp = receipt.reason?.unescaped == ItemReceipt.senderGaveUp
    reason = gaveUp ? own ?? receipt.reason : receipt.reason ?? own
    failedHere = status == .failed && gaveUp && own != nil
    // An item this side gave up on for its own reasons (it changed, a read failed) that the
    // receiver could then not judge ("no bytes came"): this side's failure, not a refusal
    // (review 45: exit 4, "the receiver refused every item", for a file deleted after it was
    // offered). A folder stored in part keeps its receipt.
    if let abandoned, !abandoned.contains(Sender.refusedWhileSending), status == .rejected, receipt.storedAs == nil {
      status = .failed
      reason = PeerText(abandoned)
      failedHere = true
    }
    type = receipt.type
    size = receipt.size
    sha256 = receipt.sha256?.hex
    entriesStored = receipt.entriesStored
    entriesRefused = receipt.entriesRefused
    refusedEntries = (receipt.refusedEntries ?? []).map { RefusedEntry(path: $0.path, reason: $0.reason) }
  }
}
