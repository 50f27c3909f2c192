import Foundation
import InboxStore
import UniformTypes
import Wire

/// Receives the accepted items of one Ask, in offer order: a file, URL or text into staging and,
/// verified, into the placement batch; a folder entry by entry into a staged tree, sealed
/// read-only and placed whole. What becomes of each goes into the receipt book.
///
/// Thread-confined to its session's thread.
final class ItemReceiver {
  private let channel: PayloadChannel
  private let peer: PeerInfo
  private let book: ReceiptBook
  private let batch: PlacementBatch
  private let emit: @Sendable (ReceiverEvent) -> Void
  private var store: InboxStore { channel.store }

  init(channel: PayloadChannel, peer: PeerInfo, book: ReceiptBook, itemCount: Int, emit: @escaping @Sendable (ReceiverEvent) -> Void) {
    self.channel = channel
    self.peer = peer
    self.book = book
    self.emit = emit
    batch = PlacementBatch(store: channel.store, itemCount: itemCount)
  }

  /// Receives one accepted item's bytes; a full batch is then placed while the next items come.
  func receive(_ plan: ItemPlan) throws {
    if plan.offer.kind == .folder {
      try receiveFolder(plan)
    } else {
      try receiveFile(plan)
    }
    if batch.isFull { batch.handOff(into: book) }
  }

  /// Makes what is verified durable and places it in the Inbox; every item's fate is in the book
  /// when this returns.
  func commit() { batch.commit(into: book) }

  // MARK: Files, URLs and texts

  private func receiveFile(_ plan: ItemPlan) throws {
    let offer = plan.offer
    let store = self.store
    let payload = Payload(
      item: offer.id, declared: offer.size, name: plan.storedName, kind: offer.kind, resume: plan.resume,
      offset: plan.offset, mayDefer: offer.kind == .file)
    let outcome = try PayloadReceiver.receive(payload, over: channel) { () throws(InboxError) in
      if let record = plan.resume { return try store.openResumable(record, offset: plan.offset) }
      return try store.createStagingFile()
    }
    switch outcome {
    case .refused(let reason, let type):
      book.refused(offer, reason, type: type)
    case .failed(let reason, let type, let detail):
      book.failed(offer, reason, type: type, detail: detail)
    case .complete(let file, let size, let digest, let type, let deferredHead, let writes):
      if let deferredHead {
        let policy = channel.policy
        let name = plan.storedName
        batch.judgeLater(offer.id) { policy.judgeContent(name: name, kind: .file, head: deferredHead, size: size) }
      }
      if let problem = ItemReceiver.checkInline(offer.kind, file: file.url) {
        _ = writes?.finish()
        file.discard()
        book.failed(offer, problem, type: type)
        return
      }
      let metadata = peer.identified(
        ItemMetadata(
          originalName: offer.name, kind: UniformTypes.ItemKind(offer.kind), senderName: peer.name,
          senderId: peer.fingerprint.hex, receivedAt: Date(), size: size, sha256: digest.hex, type: type ?? plan.type))
      do {
        try batch.add(file, offer: offer, name: plan.storedName, metadata: metadata, writes: writes)
        if let record = plan.resume { store.forgetResumeRecord(record) }
      } catch {
        _ = writes?.finish()
        file.discard()
        book.failed(offer, "not stored: \(error.peerDescription)", type: type, detail: "\(error)")
      }
    }
  }

  /// A URL item must hold what `URLItemRule` takes (the same rule its head was judged by); a
  /// text item must be UTF-8.
  /// Returns the problem, or nil when the content is what its kind says.
  static func checkInline(_ kind: Wire.ItemKind, file: URL) -> String? {
    guard kind == .url || kind == .text else { return nil }
    guard let data = FileManager.default.contents(atPath: file.path) else { return "cannot read it back" }
    guard let text = String(data: data, encoding: .utf8) else { return "it is not UTF-8 text" }
    if kind == .url, let problem = URLItemRule.problem(with: text) { return "it \(problem)" }
    return nil
  }

  // MARK: Folders

  /// How a folder's entries fared so far.
  private struct FolderTally {
    var stored = 0
    var bytes: Int64 = 0
    /// Each entry not stored, by its index in the offer, with why.
    var refused: [Int: ItemReceipt.RefusedEntry] = [:]
    /// Why the folder could not be staged at all.
    var problem: String? = nil
    /// Entries that failed (a write, the disk), not refused by the type rules.
    var failed = 0

    /// Starts with the entries refused when they were offered.
    init(_ plan: ItemPlan) {
      for (index, (entry, fate)) in zip(plan.offer.entries ?? [], plan.entries).enumerated() {
        if case .refused(let refusal) = fate { refuse(index, entry, refusal.reason) }
      }
    }

    mutating func refuse(_ index: Int, _ entry: EntryOffer, _ reason: String) {
      refused[index] = ItemReceipt.RefusedEntry(path: entry.path, reason: PeerText(reason))
    }

    /// The outcome for the Receipt, refused entries in offer order.
    var entries: ReceiptBook.FolderEntries {
      ReceiptBook.FolderEntries(stored: stored, refused: refused.sorted { $0.key < $1.key }.map(\.value))
    }
  }

  private func receiveFolder(_ plan: ItemPlan) throws {
    var tally = FolderTally(plan)
    var folder: StagedFolder? = nil
    if !channel.reserve.admitsFile() {
      tally.problem = channel.reserve.filesReason
    } else {
      do {
        folder = try store.createStagedFolder()
      } catch {
        tally.problem = "not stored: \(error.peerDescription)"
        emit(.failed(peer, item: plan.offer, reason: "cannot stage it: \(error)"))
      }
    }
    var placed = false
    defer { if !placed { folder?.discard() } }
    for (index, entry) in (plan.offer.entries ?? []).enumerated() {
      switch plan.entries[safe: index] {
      case .file(let path):
        try receiveEntry(index, entry, of: plan.offer, at: path, into: folder, tally: &tally)
      case .folder(let path):
        guard channel.reserve.admitsFile() else {
          tally.refuse(index, entry, channel.reserve.filesReason)
          continue
        }
        do {
          try folder?.makeFolder(path)
        } catch {
          tally.refuse(index, entry, error.peerDescription)
        }
      case .refused, nil:
        continue
      }
    }
    placed = place(folder, plan, tally)
  }

  /// One file entry's bytes, into the staged tree.
  private func receiveEntry(
    _ index: Int, _ entry: EntryOffer, of offer: ItemOffer, at path: [String], into folder: StagedFolder?,
    tally: inout FolderTally
  ) throws {
    let payload = Payload(item: offer.id, entry: index, declared: entry.size, name: path[path.count - 1], kind: .file)
    let outcome = try PayloadReceiver.receive(payload, over: channel) { () throws(InboxError) in
      guard let folder else { throw InboxError.unexpected("no staging folder") }
      return try folder.createFile(path)
    }
    switch outcome {
    case .complete(let file, let size, _, _, _, _):
      do {
        _ = try file.finish(sync: false)
        tally.stored += 1
        tally.bytes += size
      } catch {
        file.discard()
        tally.refuse(index, entry, error.peerDescription)
        tally.failed += 1
      }
    case .refused(let reason, _):
      tally.refuse(index, entry, reason)
    case .failed(let reason, _, _):
      tally.refuse(index, entry, reason)
      tally.failed += 1
    }
  }

  /// An entry's path as a folder's reason names it: a long one (a path thousands of bytes deep)
  /// by its last 80 characters, so the reason after it is not cut off where it is shown (review
  /// 44: the daemon's log line ended inside the path).
  static func shortened(_ path: String) -> String {
    path.count <= 100 ? path : "…" + String(path.suffix(80))
  }

  /// Seals the staged tree and adds it to the batch, unless none of its files arrived. Returns
  /// whether the batch now owns it.
  private func place(_ folder: StagedFolder?, _ plan: ItemPlan, _ tally: FolderTally) -> Bool {
    let offer = plan.offer
    let entries = tally.entries
    guard let folder, tally.stored > 0 || plan.offeredFiles == 0 else {
      let first = tally.problem ?? entries.refused.first.map { "\(Self.shortened($0.path.unescaped)): \($0.reason.unescaped)" }
      // Every entry refused by the type rules: the folder was refused, not a failure worth
      // trying again (review 38: reported "failed").
      if tally.problem == nil, tally.failed == 0, let first {
        let more = entries.refused.count > 1 ? " (and \(entries.refused.count - 1) more of its files)" : ""
        book.refused(offer, "none of its files is accepted: \(first)\(more)", type: plan.type, entries: entries)
      } else {
        book.failed(offer, first ?? "none of its files could be stored", type: plan.type, entries: entries)
      }
      return false
    }
    var metadata = peer.identified(
      ItemMetadata(
        originalName: offer.name, kind: .folder, senderName: peer.name, senderId: peer.fingerprint.hex,
        receivedAt: Date(), size: tally.bytes, type: plan.type ?? .folder, files: tally.stored,
        refusedEntries: entries.namedRefusals?.map { ItemMetadata.RefusedEntry(path: $0.path, reason: $0.reason) }))
    metadata.entriesRefused = entries.refused.isEmpty ? nil : entries.refused.count
    do {
      try batch.add(folder, offer: offer, name: plan.storedName, metadata: metadata, entries: entries)
    } catch {
      book.failed(offer, "not stored: \(error.peerDescription)", type: plan.type, entries: entries, detail: "\(error)")
      return false
    }
    logRefusals(entries, of: offer)
    return true
  }

  /// Each refused entry for this machine's log, as the file it is (named by its path in the
  /// folder, so the owner is told how to accept its type), the first few only.
  private func logRefusals(_ entries: ReceiptBook.FolderEntries, of offer: ItemOffer) {
    for refused in entries.refused.prefix(ReceiptBook.FolderEntries.named) {
      let entry = ItemOffer(id: offer.id, kind: .file, name: PeerText(offer.name.unescaped + "/" + refused.path.unescaped), size: nil)
      emit(.refused(peer, item: entry, reason: refused.reason.unescaped))
    }
    let more = entries.refused.count - ReceiptBook.FolderEntries.named
    if more > 0 { emit(.refused(peer, item: offer, reason: "\(more) more of its entries were not stored")) }
  }
}
