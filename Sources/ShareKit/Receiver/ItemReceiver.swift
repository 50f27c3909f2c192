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

  /// Receives one accepted item's bytes; a full batch is then placed.
  func receive(_ plan: ItemPlan) throws {
    if plan.offer.kind == .folder {
      try receiveFolder(plan)
    } else {
      try receiveFile(plan)
    }
    if batch.isFull { commit() }
  }

  /// Makes what is verified durable and places it in the Inbox.
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
    case .complete(let file, let size, let digest, let type, let deferredHead):
      if let deferredHead {
        let policy = channel.policy
        let name = plan.storedName
        batch.judgeLater(offer.id) { policy.judgeContent(name: name, kind: .file, head: deferredHead, size: size) }
      }
      if let problem = ItemReceiver.checkInline(offer.kind, file: file.url) {
        file.discard()
        book.failed(offer, problem, type: type)
        return
      }
      let metadata = ItemMetadata(
        originalName: offer.name, kind: UniformTypes.ItemKind(offer.kind), senderName: peer.name,
        senderId: peer.fingerprint.hex, receivedAt: Date(), size: size, sha256: digest.hex, type: type ?? plan.type)
      do {
        try batch.add(file, offer: offer, name: plan.storedName, metadata: metadata)
        if let record = plan.resume { store.forgetResumeRecord(record) }
      } catch {
        file.discard()
        book.failed(offer, "not stored: \(error.peerDescription)", type: type, detail: "\(error)")
      }
    }
  }

  /// A URL item must hold one absolute URL on one line; a text item must be UTF-8.
  /// Returns the problem, or nil when the content is what its kind says.
  static func checkInline(_ kind: Wire.ItemKind, file: URL) -> String? {
    guard kind == .url || kind == .text else { return nil }
    guard let data = FileManager.default.contents(atPath: file.path) else { return "cannot read it back" }
    guard let text = String(data: data, encoding: .utf8) else { return "it is not UTF-8 text" }
    if kind == .url {
      let line = text.hasSuffix("\n") ? String(text.dropLast()) : text
      guard !line.contains("\n"), !line.contains("\r"), let url = URL(string: line), url.scheme != nil else {
        return "it is not one absolute URL"
      }
    }
    return nil
  }

  // MARK: Folders

  /// How a folder's entries fared so far.
  private struct FolderTally {
    var stored = 0
    var refused: Int
    var bytes: Int64 = 0
    /// Each refused or failed entry, for the log (the first also for the sender when none is stored).
    var problems: [String] = []
  }

  private func receiveFolder(_ plan: ItemPlan) throws {
    var tally = FolderTally(refused: plan.refusedEntries)
    var folder: StagedFolder? = nil
    do {
      folder = try store.createStagedFolder()
    } catch {
      tally.problems.append("not stored: \(error.peerDescription)")
      emit(.failed(peer, item: plan.offer, reason: "cannot stage it: \(error)"))
    }
    var placed = false
    defer { if !placed { folder?.discard() } }
    for (index, entry) in (plan.offer.entries ?? []).enumerated() {
      switch plan.entries[safe: index] {
      case .file(let path):
        try receiveEntry(index, entry, of: plan.offer, at: path, into: folder, tally: &tally)
      case .folder(let path):
        do {
          try folder?.makeFolder(path)
        } catch {
          tally.problems.append("\(entry.path): \(error.peerDescription)")
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
    case .complete(let file, let size, _, _, _):
      do {
        _ = try file.finish(sync: false)
        tally.stored += 1
        tally.bytes += size
      } catch {
        file.discard()
        tally.refused += 1
        tally.problems.append("\(entry.path): \(error.peerDescription)")
      }
    case .refused(let reason, _), .failed(let reason, _, _):
      tally.refused += 1
      tally.problems.append("\(entry.path): \(reason)")
    }
  }

  /// Seals the staged tree and adds it to the batch, unless none of its files arrived. Returns
  /// whether the batch now owns it.
  private func place(_ folder: StagedFolder?, _ plan: ItemPlan, _ tally: FolderTally) -> Bool {
    let offer = plan.offer
    guard let folder, tally.stored > 0 || plan.offeredFiles == 0 else {
      book.failed(offer, tally.problems.first ?? "none of its files could be stored", type: plan.type, entries: (tally.stored, tally.refused))
      return false
    }
    let metadata = ItemMetadata(
      originalName: offer.name, kind: .folder, senderName: peer.name, senderId: peer.fingerprint.hex,
      receivedAt: Date(), size: tally.bytes, type: plan.type ?? .folder, files: tally.stored)
    do {
      try batch.add(folder, offer: offer, name: plan.storedName, metadata: metadata, entries: (tally.stored, tally.refused))
    } catch {
      book.failed(offer, "not stored: \(error.peerDescription)", type: plan.type, entries: (0, tally.refused + tally.stored), detail: "\(error)")
      return false
    }
    for problem in tally.problems { emit(.refused(peer, item: offer, reason: problem)) }
    return true
  }
}
