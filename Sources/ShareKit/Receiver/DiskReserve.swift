import InboxStore
import Synchronization

/// The free space a receiver always leaves on the disk holding the Inbox, and its one owner:
/// `AskDecision` refuses, before any byte moves, what would eat into it; and every write to
/// staging asks `admits` first, so an item of unknown size (standard input), or items whose
/// asks were each admitted against the same free space, fail when their bytes would reach it.
///
/// Shared by all sessions of a receiver (their writer threads included): the ledger of what was
/// admitted since the last measurement lives in a `Mutex`.
final class DiskReserve: Sendable {
  /// Bytes always left free; 0 enforces nothing.
  let bytes: Int64
  private let measure: @Sendable () -> Int64?
  private let ledger = Mutex(SpaceLedger())

  private let measureFiles: @Sendable () -> (free: Int64, total: Int64)?

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

  /// How long an estimate is trusted without measuring again.
  static let trustedFor: Duration = .milliseconds(100)
  /// How far above the reserve an estimate must stay to be trusted (room for other writers).
  static let margin: Int64 = 16 << 20
  /// The unit the file system allocates in.
  static let block: Int64 = 4096

  /// Admits `count` bytes if the free space less them stays at or above `reserve`. An unknown
  /// free space admits (there is nothing to enforce).
  mutating func admit(_ count: Int64, reserve: Int64, now: ContinuousClock.Instant, measure: () -> Int64?) -> Bool {
    let charge = (count + SpaceLedger.block - 1) / SpaceLedger.block * SpaceLedger.block
    if let estimate, let measuredAt, now - measuredAt < SpaceLedger.trustedFor,
      estimate - charge >= reserve + SpaceLedger.margin
    {
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
