import Dispatch
import Foundation
import InboxStore
import Synchronization
import UniformTypes
import Wire

/// Items whose bytes are complete and verified, waiting to be made durable and placed in the
/// Inbox together; the content verdicts of small files, computed on queues of their own (one
/// per core) while the next items arrive (libmagic is most of a small item's cost); and the last
/// writes of large files, which the session's writer queue finishes while the next items arrive
/// (confirmed, each file then made read-only, when the batch is handed off: a write that failed
/// fails its item there).
///
/// Durability is batched: a large item is flushed alone (from 8 MiB); a few items each get
/// their own fdatasync (well under a millisecond, whereas one syncfs would also wait for whatever
/// else on the disk is dirty); many small items are flushed together by one syncfs at commit.
/// A full batch is synced and placed on a placement queue while the next one fills (on 5,000
/// small files that was a quarter of the session thread's time), which records its items' fates
/// in the receipt book as they enter the Inbox; `commit` waits for every batch before the Receipt.
///
/// Thread-confined to its session's thread (the sniff queue only computes verdicts, the
/// placement queue only syncs, places and records).
final class PlacementBatch {
  private struct Pending: Sendable {
    var offer: ItemOffer
    var placement: InboxStore.Placement
    var entries: ReceiptBook.FolderEntries?
  }

  private let store: InboxStore
  private var pending: [Pending] = []
  /// Pending items whose last writes are still to be confirmed.
  private var unconfirmed: [Unconfirmed] = []
  private var bytes: Int64 = 0
  /// Some pending item was not flushed on its own: commit syncs the staging file system first.
  private var needsSync = false
  /// The store's failed syncs of staging before this batch's first item was staged.
  private var failedSyncsBefore: Int
  /// Few items in the Ask: each is flushed as it finishes.
  private let syncEachItem: Bool

  /// One serial queue per core (items go round robin), each sniff taking a free libmagic
  /// handle of the receiver's `ContentSniffer`, which has one per core.
  private let sniffQueues = (0..<PlacementBatch.sniffQueueCount).map {
    DispatchQueue(label: "share.sniff.\($0)")
  }
  private let sniffGroup = DispatchGroup()
  /// Syncs and places the batch before this one (one at a time, in order) while this one fills.
  private let placementQueue = DispatchQueue(label: "share.placement")
  private let placementGroup = DispatchGroup()
  private let sniffed = SniffResults()
  private var sniffsStarted = 0
  /// A place for each item waiting for its sniff: the receiving thread waits for one before
  /// queueing another, so the items' bytes held for judging stay a few hundred KiB however far
  /// receiving runs ahead of judging (unbounded, 2,048 small files' heads were 8 MiB).
  private let sniffPlaces: DispatchSemaphore

  /// Asks of at most this many items flush each item on its own.
  static let syncEachUpTo = 16
  /// Items at least this large are flushed on their own as they finish.
  static let syncAloneBytes: Int64 = 8 << 20
  /// Sniff queues: one per core, at most 8.
  static let sniffQueueCount = min(8, ProcessInfo.processInfo.activeProcessorCount)
  /// Items that may wait for their sniff at once, per sniff queue.
  static let sniffBacklogPerQueue = 16
  /// A batch is committed once it holds this many items or bytes. Each pending item holds its
  /// offer, placement, metadata and verdict (about 2 KiB): 2,048 of them were 3 MiB of a small
  /// files' receiver's peak; the 10 commits of 5,000 items instead of 3 cost a few syncs more.
  static let maxItems = 512
  static let maxBytes: Int64 = 64 << 20

  init(store: InboxStore, itemCount: Int) {
    self.store = store
    syncEachItem = itemCount <= PlacementBatch.syncEachUpTo
    failedSyncsBefore = store.failedStagingSyncs
    sniffPlaces = DispatchSemaphore(value: PlacementBatch.sniffBacklogPerQueue * PlacementBatch.sniffQueueCount)
  }

  /// Whether the batch should be committed before more items join it.
  var isFull: Bool { pending.count >= PlacementBatch.maxItems || bytes >= PlacementBatch.maxBytes }

  /// Judges item `id`'s content on the sniff queue; `commit` waits for the verdict, and an item
  /// it refuses never enters the Inbox. Waits while the sniff queues are full.
  func judgeLater(_ id: Int, _ judge: @escaping @Sendable () -> Verdict?) {
    let sniffed = self.sniffed
    sniffPlaces.wait()
    sniffGroup.enter()
    let queue = sniffQueues[sniffsStarted % sniffQueues.count]
    sniffsStarted += 1
    queue.async { [sniffGroup, sniffPlaces] in
      sniffed.set(id, judge())
      sniffPlaces.signal()
      sniffGroup.leave()
    }
  }

  /// Makes a received file read-only (flushed now when it is large or the Ask small) and adds it.
  /// `writes`: its last bytes may still be on the session's writer queue; the file is then
  /// finished when the batch is handed off, once they are written (`confirmWrites`).
  func add(
    _ file: StagingFile, offer: ItemOffer, name: String, metadata: ItemMetadata, writes: PayloadSink? = nil
  ) throws(InboxError) {
    let syncNow = metadata.size >= PlacementBatch.syncAloneBytes || syncEachItem
    if !syncNow { needsSync = true }
    if let writes {
      unconfirmed.append(Unconfirmed(index: pending.count, file: file, writes: writes, sync: syncNow))
      let unknown = FileIdentity(inode: 0, size: 0, mtimeNanoseconds: 0)
      append(offer, InboxStore.Placement(staged: file.url, name: name, identity: unknown, metadata: metadata), entries: nil)
      return
    }
    let identity = try file.finish(sync: syncNow)
    append(offer, InboxStore.Placement(staged: file.url, name: name, identity: identity, metadata: metadata), entries: nil)
  }

  /// A pending item whose last writes were not waited for, by its place in `pending`.
  private struct Unconfirmed {
    var index: Int
    var file: StagingFile
    var writes: PayloadSink
    var sync: Bool
  }

  /// Waits for the writes of the items added with their last bytes still being written, then
  /// finishes each file (read-only, flushed if it is to be, its identity taken) — or, when a
  /// write failed, removes it and records the failure: it never enters the Inbox.
  private func confirmWrites(into book: ReceiptBook) {
    guard !unconfirmed.isEmpty else { return }
    var failed = Set<Int>()
    for item in unconfirmed {
      let failure: (reason: String, detail: String)?
      if let problem = item.writes.finish() {
        failure = problem.reasons(inbox: store.inbox)
      } else {
        do {
          pending[item.index].placement.identity = try item.file.finish(sync: item.sync)
          failure = nil
        } catch {
          failure = ("not stored: \(error.peerDescription)", "\(error)")
        }
      }
      guard let failure else { continue }
      item.file.discard()
      let offer = pending[item.index].offer
      book.failed(offer, failure.reason, type: pending[item.index].placement.metadata.type, detail: failure.detail)
      failed.insert(item.index)
    }
    unconfirmed.removeAll()
    guard !failed.isEmpty else { return }
    pending = pending.enumerated().filter { !failed.contains($0.offset) }.map(\.element)
  }

  /// Seals a received folder read-only and adds it.
  func add(
    _ folder: StagedFolder, offer: ItemOffer, name: String, metadata: ItemMetadata, entries: ReceiptBook.FolderEntries
  ) throws(InboxError) {
    let identity = try store.seal(folder: folder.url)
    needsSync = true
    append(offer, InboxStore.Placement(staged: folder.url, name: name, identity: identity, metadata: metadata), entries: entries)
  }

  private func append(_ offer: ItemOffer, _ placement: InboxStore.Placement, entries: ReceiptBook.FolderEntries?) {
    pending.append(Pending(offer: offer, placement: placement, entries: entries))
    bytes += placement.metadata.size
  }

  /// Makes the batch durable and places it in the Inbox on the placement queue, which records
  /// each item's fate in `book` as it enters the Inbox (or fails to), while the next items arrive.
  /// Waits first for the batch handed off before, so that one batch at most is in flight.
  func handOff(into book: ReceiptBook) {
    placementGroup.wait()
    confirmWrites(into: book)
    guard !pending.isEmpty else { return }
    let batch = judged(into: book)
    pending.removeAll()
    bytes = 0
    let sync = needsSync ? failedSyncsBefore : nil
    needsSync = false
    // Noted after the wait: a sync of the batch in flight that fails later fails this one too.
    failedSyncsBefore = store.failedStagingSyncs
    guard !batch.isEmpty else { return }  // every item refused on its content: nothing to place
    let store = self.store
    placementQueue.async(group: placementGroup) {
      PlacementBatch.place(batch, syncingStagedSince: sync, in: store, recordingIn: book)
    }
  }

  /// Makes the batch durable and places it in the Inbox; every item handed off so far has its
  /// fate in `book` when this returns.
  func commit(into book: ReceiptBook) {
    handOff(into: book)
    placementGroup.wait()
  }

  /// Syncs the staging file system (when some item was not flushed on its own: `failedSyncs` is
  /// the store's count of failed syncs before the batch was staged), places the batch and
  /// records each item's fate.
  private static func place(
    _ batch: [Pending], syncingStagedSince failedSyncs: Int?, in store: InboxStore, recordingIn book: ReceiptBook
  ) {
    var syncError: InboxError? = nil
    if let failedSyncs {
      do {
        try store.syncStaging(stagedSince: failedSyncs)
      } catch {
        syncError = error
      }
    }
    let results = syncError.map { error in batch.map { _ in .failure(error) } } ?? store.place(batch.map(\.placement))
    for (item, result) in zip(batch, results) {
      switch result {
      case .success(let name):
        book.stored(item.offer, as: name, metadata: item.placement.metadata, entries: item.entries)
      case .failure(let error):
        store.discardStaged(item.placement.staged)
        book.failed(
          item.offer, "not stored: \(error.peerDescription)", type: item.placement.metadata.type, entries: item.entries,
          detail: "\(error)")
      }
    }
  }

  /// The pending items their content verdicts let in (typed by those verdicts); the others are
  /// removed from staging and recorded as refused.
  private func judged(into book: ReceiptBook) -> [Pending] {
    sniffGroup.wait()
    var kept: [Pending] = []
    for var item in pending {
      if let verdict = sniffed.take(item.offer.id) {
        guard verdict.accepted else {
          unlink(item.placement.staged.path)
          book.refused(item.offer, verdict.reason, type: verdict.type)
          continue
        }
        item.placement.metadata.type = verdict.type
      }
      kept.append(item)
    }
    return kept
  }
}

/// Content verdicts computed on the sniff queue, by item ID.
private final class SniffResults: Sendable {
  private let verdicts = Mutex<[Int: Verdict]>([:])
  func set(_ id: Int, _ verdict: Verdict?) { verdicts.withLock { $0[id] = verdict } }
  func take(_ id: Int) -> Verdict? { verdicts.withLock { $0.removeValue(forKey: id) } }
}
