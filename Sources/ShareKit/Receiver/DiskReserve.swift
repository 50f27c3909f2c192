import InboxStore
import Synchronization

/// The free space a receiver always leaves on the disk holding the Inbox, and its one owner:
/// `AskDecision` refuses, before any byte moves, what would eat into it; and every write to
/// staging asks `admits` first, so an item of unknown size (standard input), or items whose
/// asks were each admitted against the same free space, fail when their bytes would reach it.
/// Files likewise: every file or folder made in staging asks `admitsFile` (review 21: three
/// asks of 2,000 empty files, each admitted against the same free count, left none).
///
/// Shared by all sessions of a receiver (their writer threads included): the ledger of what was
/// admitted since the last measurement lives in a `Mutex`.
final class DiskReserve: Sendable {
  /// Bytes always left free; 0 enforces nothing.
  let bytes: Int64
  private let measure: @Sendable () -> Int64?
  private let ledger = Mutex(SpaceLedger())

  private let measureFiles: @Sendable () -> (free: Int64, total: Int64)?
  /// Files admitted since the last count, and the files' reserve once the disk's size is known.
  private let fileLedger = Mutex((ledger: SpaceLedger(block: 1, margin: 1_000), reserve: Int64?.none))

  /// The reserve on the file system holding `store`'s Inbox (statvfs).
  convenience init(bytes: Int64, store: InboxStore) {
    self.init(bytes: bytes, measure: { store.availableBytes() }, files: { store.availableFiles() })
  }

  /// `measure` gives the free bytes now, or nil when unknown; `files` the free and total files.
  init(
    bytes: Int64, measure: @escaping @Sendable () -> Int64?,
    files: @escaping @Sendable () -> (free: Int64, total: Int64)? = { nil }
  ) {
    self.bytes = bytes
    self.measure = measure
    measureFiles = files
  }

  /// The free space now, for deciding on an Ask; nil when unknown. The files' reserve is kept
  /// where bytes are (a reserve of 0 enforces neither).
  var space: AskDecision.Space? {
    measure().map { free in
      var space = AskDecision.Space(free: free, reserve: bytes)
      if bytes > 0, let files = measureFiles() {
        space.freeFiles = files.free
        space.filesReserve = AskDecision.Space.filesReserve(total: files.total)
      }
      return space
    }
  }

  /// Whether `count` more bytes may be written and still leave the reserve free.
  func admits(_ count: Int) -> Bool {
    guard bytes > 0 else { return true }
    return ledger.withLock { $0.admit(Int64(count), reserve: bytes, now: .now, measure: measure) }
  }

  /// The reason an item fails when its bytes would reach the reserve, for the sender.
  var reason: String { "not stored: \(ItemRefusal.noSpace(reserve: bytes).reason)" }

  /// Whether one more file or folder may be made and still leave the files' reserve free (as
  /// `admits` for bytes; a file system that counts no files, btrfs, is not limited), with
  /// `fileSlack` more kept.
  func admitsFile() -> Bool {
    guard bytes > 0 else { return true }
    return fileLedger.withLock { state in
      if state.reserve == nil {
        guard let files = measureFiles() else { return true }
        state.reserve = AskDecision.Space.filesReserve(total: files.total)
      }
      return state.ledger.admit(1, reserve: (state.reserve ?? 0) + Self.fileSlack, now: .now) { measureFiles()?.free }
    }
  }

  /// Files kept free above the reserve while receiving, for what is made without being admitted
  /// one by one — each placed batch's journal file — and for sessions that admit a file each
  /// between another's count and its create: without it, three folders sent at once left 146
  /// of a reserve of 150.
  static let fileSlack: Int64 = 32

  /// The reason a file fails when it would reach the files' reserve, for the sender.
  var filesReason: String {
    let reserve = fileLedger.withLock { $0.reserve } ?? 0
    return "not stored: \(ItemRefusal.noFiles(reserve: reserve).reason)"
  }
}

/// What the reserve knows of the free space: a measurement, less the bytes admitted since.
///
/// Measuring (statvfs) costs microseconds, as much as the rest of storing a small file, so the
/// estimate is trusted for a short while when it is far above the reserve; near the reserve,
/// every admission measures again. Bytes are charged in whole blocks, as the file system
/// allocates them. Pure: the clock and the measurement come in.
struct SpaceLedger: Sendable {
  /// Free bytes at the last measurement, less what was admitted since; nil before the first.
  private(set) var estimate: Int64? = nil
  private var measuredAt: ContinuousClock.Instant? = nil
  /// What one admission is charged in multiples of, and how far above the reserve an estimate
  /// is trusted: bytes by default (`block`, `margin`); files are counted one by one.
  let unit: Int64
  let trustedMargin: Int64

  init(block: Int64 = SpaceLedger.block, margin: Int64 = SpaceLedger.margin) {
    unit = block
    trustedMargin = margin
  }

  /// How long an estimate is trusted without measuring again.
  static let trustedFor: Duration = .milliseconds(100)
  /// How far above the reserve an estimate must stay to be trusted (room for other writers).
  static let margin: Int64 = 16 << 20
  /// The unit the file system allocates in.
  static let block: Int64 = 4096

  /// Admits `count` bytes if the free space less them stays at or above `reserve`. An unknown
  /// free space admits (there is nothing to enforce).
  mutating func admit(_ count: Int64, reserve: Int64, now: ContinuousClock.Instant, measure: () -> Int64?) -> Bool {
    let charge = (count + unit - 1) / unit * unit
    if let estimate, let measuredAt, now - measuredAt < SpaceLedger.trustedFor, estimate - charge >= reserve + trustedMargin {
      self.estimate = estimate - charge
      return true
    }
    guard let free = measure() else {
      (estimate, measuredAt) = (nil, nil)
      return true
    }
    measuredAt = now
    guard free - charge >= reserve else {
      estimate = free
      return false
    }
    estimate = free - charge
    return true
  }
}
