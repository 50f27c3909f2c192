import InboxStore
import UniformTypes
import Wire

/// What became of each item of one Ask: the Receipt's entries for the sender, the counts and an
/// event for this machine's log. Types become strings here, at the wire boundary.
///
/// Thread-confined to its session's thread.
final class ReceiptBook {
  private let peer: PeerInfo
  private let emit: @Sendable (ReceiverEvent) -> Void
  private var receipts: [Int: ItemReceipt] = [:]
  private(set) var counts = (stored: 0, refused: 0, failed: 0)

  /// A folder's entries: how many were stored, and each one that was not, with why.
  struct FolderEntries {
    var stored: Int
    var refused: [ItemReceipt.RefusedEntry]

    /// At most this many refused entries are named (in the Receipt, the Inbox's metadata and
    /// the log); the count says how many there were in all.
    static let named = 100

    var namedRefusals: [ItemReceipt.RefusedEntry]? { refused.isEmpty ? nil : Array(refused.prefix(Self.named)) }
  }

  init(peer: PeerInfo, emit: @escaping @Sendable (ReceiverEvent) -> Void) {
    self.peer = peer
    self.emit = emit
  }

  /// Refused by the receiver, at Ask time or on its content; nothing kept.
  func refused(_ offer: ItemOffer, _ reason: String, type: TypeIdentifier?) {
    receipts[offer.id] = ItemReceipt(id: offer.id, status: .rejected, reason: PeerText(reason), type: type?.rawValue)
    counts.refused += 1
    emit(.refused(peer, item: offer, reason: reason))
  }

  /// Accepted but not stored. `reason` is for the sender (never a local path); `detail`, when
  /// given, is for this machine's log and may name paths.
  func failed(
    _ offer: ItemOffer, _ reason: String, type: TypeIdentifier?, entries: FolderEntries? = nil, detail: String? = nil
  ) {
    receipts[offer.id] = ItemReceipt(
      id: offer.id, status: .failed, reason: PeerText(reason), type: type?.rawValue, entriesStored: entries.map { _ in 0 },
      entriesRefused: entries.map { $0.stored + $0.refused.count }, refusedEntries: entries?.namedRefusals)
    counts.failed += 1
    emit(.failed(peer, item: offer, reason: detail ?? reason))
  }

  /// Durably in the Inbox under `name`.
  func stored(_ offer: ItemOffer, as name: String, metadata: ItemMetadata, entries: FolderEntries?) {
    let refused = entries?.refused.count ?? 0
    receipts[offer.id] = ItemReceipt(
      id: offer.id, status: .stored, storedAs: PeerText(name),
      reason: refused > 0 ? PeerText("\(refused) of its entries were not stored") : nil,
      type: metadata.type?.rawValue, size: metadata.size, sha256: metadata.sha256.flatMap(Digest.init(hex:)),
      entriesStored: entries?.stored, entriesRefused: entries.map { $0.refused.count },
      refusedEntries: entries?.namedRefusals)
    counts.stored += 1
    emit(.stored(peer, item: offer, storedAs: name, size: metadata.size, type: metadata.type))
  }

  /// The Receipt, in the order the items were offered. The book keeps the counts and lets go
  /// of the entries (thousands for a folder of small files: the Receipt holds them now).
  func receipt(for offers: [ItemOffer]) -> Receipt {
    defer { receipts = [:] }
    return Receipt(items: offers.compactMap { receipts[$0.id] })
  }
}
