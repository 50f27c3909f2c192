import InboxStore
import Synchronization
import UniformTypes
import Wire

/// What became of each item of one Ask: the Receipt's entries for the sender, the counts and an
/// event for this machine's log. Types become strings here, at the wire boundary.
///
/// Its session's thread writes it, and so does its placement queue (the fates of a placed batch),
/// under one lock.
final class ReceiptBook: Sendable {
  private let peer: PeerInfo
  private let emit: @Sendable (ReceiverEvent) -> Void
  private let book = Mutex<Entries>(Entries())

  private struct Entries {
    /// In the order they were recorded (a dictionary by ID was twice the memory for 5,000 small
    /// files, at the Receipt, where the receiving daemon's memory peaks).
    var receipts: [ItemReceipt] = []
    var counts = (stored: 0, refused: 0, failed: 0)
    var log = ItemLogFold(limit: ReceiptBook.loggedRefusals)
  }
  /// Each offered ID's place in the offer order, which is the Receipt's; nil when the IDs were
  /// offered in increasing order (a share sender numbers them 0, 1, 2, ...): then the IDs' own
  /// order is the offer order.
  private let places: [Int: Int]?

  /// Refusals and failures of one Ask logged one by one; past them, the rest are counted and
  /// told in one event each when the Receipt is made (review 17: a withdrawn ask of 81,000 items
  /// wrote a line per item, per connection folded into it: 648,000 lines; review 34: refusals on
  /// content were a line each, 40,980 lines a minute from one sender).
  static let loggedRefusals = 100

  var counts: (stored: Int, refused: Int, failed: Int) { book.withLock { $0.counts } }

  /// A folder's entries: how many were stored, and each one that was not, with why.
  struct FolderEntries: Sendable {
    var stored: Int
    var refused: [ItemReceipt.RefusedEntry]

    /// At most this many refused entries are named (in the Receipt, the Inbox's metadata and
    /// the log); the count says how many there were in all.
    static let named = 100

    var namedRefusals: [ItemReceipt.RefusedEntry]? { refused.isEmpty ? nil : Array(refused.prefix(Self.named)) }
  }

  /// `offered`: the IDs of the Ask's items, in the order offered.
  init(peer: PeerInfo, offered: [Int], emit: @escaping @Sendable (ReceiverEvent) -> Void) {
    self.peer = peer
    self.emit = emit
    let increasing = zip(offered, offered.dropFirst()).allSatisfy { $0 < $1 }
    places = increasing ? nil : Dictionary(offered.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Refused by the receiver, at Ask time or on its content; nothing kept.
  func refused(_ offer: ItemOffer, _ reason: String, type: TypeIdentifier?, entries: FolderEntries? = nil) {
    let receipt = Self.notStored(offer, .rejected, reason, type: type, entries: entries)
    if record(receipt, logging: .refused, reason, counting: { $0.refused += 1 }) { emit(.refused(peer, item: offer, reason: reason)) }
  }

  /// The receipt of an item not stored: a folder's entries all counted as not stored.
  private static func notStored(
    _ offer: ItemOffer, _ status: ItemReceipt.Status, _ reason: String, type: TypeIdentifier?, entries: FolderEntries?
  ) -> ItemReceipt {
    ItemReceipt(
      id: offer.id, status: status, reason: PeerText(reason), type: type?.rawValue, entriesStored: entries.map { _ in 0 },
      entriesRefused: entries.map { $0.stored + $0.refused.count }, refusedEntries: entries?.namedRefusals)
  }

  /// Refuses these items together (an Ask's refusals, or a declined ask's items).
  func refusedAll(_ refusals: [(offer: ItemOffer, reason: String, type: TypeIdentifier?)]) {
    for refusal in refusals { refused(refusal.offer, refusal.reason, type: refusal.type) }
  }

  /// Accepted but not stored. `reason` is for the sender (never a local path); `detail`, when
  /// given, is for this machine's log and may name paths.
  func failed(
    _ offer: ItemOffer, _ reason: String, type: TypeIdentifier?, entries: FolderEntries? = nil, detail: String? = nil
  ) {
    let receipt = Self.notStored(offer, .failed, reason, type: type, entries: entries)
    if record(receipt, logging: .failed, detail ?? reason, counting: { $0.failed += 1 }) {
      emit(.failed(peer, item: offer, reason: detail ?? reason))
    }
  }

  /// Durably in the Inbox under `name`.
  func stored(_ offer: ItemOffer, as name: String, metadata: ItemMetadata, entries: FolderEntries?) {
    let refused = entries?.refused.count ?? 0
    let receipt = ItemReceipt(
      id: offer.id, status: .stored, storedAs: PeerText(name),
      reason: refused > 0 ? PeerText("\(refused) of its entries were not stored") : nil,
      type: metadata.type?.rawValue, size: metadata.size, sha256: metadata.sha256.flatMap(Digest.init(hex:)),
      entriesStored: entries?.stored, entriesRefused: entries.map { $0.refused.count },
      refusedEntries: entries?.namedRefusals)
    record(receipt, counting: { $0.stored += 1 })
    emit(.stored(peer, item: offer, storedAs: name, size: metadata.size, type: metadata.type, sha256: metadata.sha256))
  }

  /// The Receipt, in the order the items were offered; an item recorded twice has its last
  /// fate. The book keeps the counts and hands its entries over (thousands for a folder of small
  /// files: the Receipt holds them now, sorted where they were, not copied).
  func receipt() -> Receipt {
    logFolded()
    var receipts: [ItemReceipt] = []
    book.withLock { swap(&receipts, &$0.receipts) }
    // Stable: an item's fates stay in the order recorded, the last one last.
    if let places {
      receipts.sort { places[$0.id, default: Int.max] < places[$1.id, default: Int.max] }
    } else {
      receipts.sort { $0.id < $1.id }
    }
    var kept = 0
    for index in receipts.indices {
      if index + 1 < receipts.count, receipts[index + 1].id == receipts[index].id { continue }
      receipts.swapAt(kept, index)
      kept += 1
    }
    receipts.removeLast(receipts.count - kept)
    return Receipt(items: receipts)
  }

  deinit { logFolded() }

  /// The refusals and failures not logged one by one, each kind in one event, once.
  private func logFolded() {
    let folded = book.withLock { $0.log.take() }
    if let refused = folded.refused { emit(.refusedMore(peer, count: refused.count, reason: refused.first)) }
    if let failed = folded.failed { emit(.failedMore(peer, count: failed.count, reason: failed.first)) }
  }

  /// Records an item's fate; returns whether it is logged on its own (a refusal or failure
  /// `logging` names may be folded, `ItemLogFold`).
  @discardableResult
  private func record(
    _ receipt: ItemReceipt, logging kind: ItemLogFold.Kind? = nil, _ reason: String = "",
    counting: (inout (stored: Int, refused: Int, failed: Int)) -> Void
  ) -> Bool {
    book.withLock { entries in
      entries.receipts.append(receipt)
      counting(&entries.counts)
      return kind.map { entries.log.admit($0, reason: reason) } ?? true
    }
  }
}
