import Foundation
import InboxStore
import Synchronization
import TLS

/// Where a payload's bytes go once received: the digest and the staging file, a full buffer at a
/// time (aligned, so a large item, from 2 MiB, can be written with O_DIRECT), each write admitted
/// by the disk reserve first.
///
/// Small items are hashed and written on the receiving thread. A large item is pipelined: the
/// receiving thread reads, decrypts and hashes into one buffer while the session's writer queue
/// writes the previous one (O_DIRECT: it waits for the disk), so the network, the CPU work and
/// the disk overlap. (Hashing on the writer queue, as first built, made it the longest of the
/// two: 500 photos took 5.0 s instead of 4.6 s.)
///
/// Thread use: one session thread calls everything; the writer queue is internal.
final class PayloadSink {
  /// Why the bytes stopped going to the file.
  enum Failure: Error {
    /// A write failed (the disk is full, read-only, ...).
    case write(InboxError)
    /// The next write would have eaten into the disk reserve.
    case reserve(DiskReserve)

    /// Why, for the sender (never a path on this machine), and for this machine's log (`inbox`
    /// names the disk).
    func reasons(inbox: URL) -> (reason: String, detail: String) {
      switch self {
      case .write(let error): ("not stored: \(error.peerDescription)", "cannot write it: \(error)")
      case .reserve(let reserve):
        (
          reserve.reason,
          "cannot write it: it would leave less than \(formatBytes(reserve.bytes)) free on the disk holding \(inbox.path)"
        )
      }
    }
  }

  private let hasher: SHA256Hasher
  private let file: StagingFile?
  private let reserve: DiskReserve
  private let pipeline: (buffers: BufferPipeline, queue: DispatchQueue)?
  private let owned: WriterOwned
  private let inline: UnsafeMutableRawBufferPointer
  private var current: Int = -1
  private var filled = 0
  private let flags = SinkFlags()
  private var finished = false
  /// The last buffer was handed over: nothing more is written.
  private var handedRest = false

  /// `buffer` is the session's own buffer, used when `writer` is nil (not pipelined).
  init(hasher: SHA256Hasher, file: StagingFile?, reserve: DiskReserve, buffer: UnsafeMutableRawBufferPointer, writer: SessionWriter?) {
    self.hasher = hasher
    self.file = file
    self.reserve = reserve
    inline = buffer
    owned = WriterOwned(file: file)
    pipeline = writer.map { ($0.buffers, $0.queue) }
    if let pipeline { current = pipeline.buffers.takeFree() }
  }

  deinit {
    if !finished { _ = finish() }
  }

  private var buffer: UnsafeMutableRawBufferPointer { pipeline.map { $0.buffers.buffers[current] } ?? inline }

  /// Room for the next received bytes (never empty).
  var space: UnsafeMutableRawBufferPointer {
    UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
  }

  /// `count` bytes were received into `space`. Returns why writing stopped, if it has.
  func commit(_ count: Int) -> Failure? {
    filled += count
    if filled == buffer.count { hand() }
    return flags.failure.withLock { $0 }
  }

  /// Stops writing (the item is refused or failed); bytes still arrive and are dropped.
  func drop() { flags.writing.store(false, ordering: .releasing) }

  /// Writes out what is buffered and, pipelined, waits for the writer. Returns why writing
  /// stopped, if it did.
  func finish() -> Failure? {
    guard !finished else { return flags.failure.withLock { $0 } }
    finished = true
    handRest()
    pipeline?.queue.sync {}
    return flags.failure.withLock { $0 }
  }

  /// Whether a writer queue writes the bytes (a large item): `finishInBackground` may be used.
  var isPipelined: Bool { pipeline != nil }

  /// Pipelined: gives the writer the last buffer and lets it finish on its own while the session
  /// receives the next item (at the end of a 3 MB photo the session thread waited about a
  /// millisecond for it). `finish()` waits for it later, and says how the writes went; until
  /// then the file must not be finished, kept or discarded. Returns why writing stopped, if it
  /// is known already.
  func finishInBackground() -> Failure? {
    handRest()
    return flags.failure.withLock { $0 }
  }

  /// Hands over what is buffered (once), taking no new buffer: pipelined, the current one goes
  /// to the writer, or back to the pool when empty.
  private func handRest() {
    guard !handedRest else { return }
    handedRest = true
    if let pipeline, filled == 0 {
      pipeline.buffers.release(current)
    } else if filled > 0 {
      submit()
    }
  }

  /// A full buffer: to the writer, which a new one replaces (pipelined), or to the file.
  private func hand() {
    submit()
    if let pipeline { current = pipeline.buffers.takeFree() }
  }

  private func submit() {
    defer { filled = 0 }
    if let (buffers, queue) = pipeline {
      let (index, length) = (current, filled)
      hasher.update(UnsafeRawBufferPointer(rebasing: buffers.buffers[index][0..<length]))
      queue.async { [owned, flags, reserve] in
        let bytes = UnsafeRawBufferPointer(rebasing: buffers.buffers[index][0..<length])
        PayloadSink.write(bytes, to: owned.file, flags: flags, reserve: reserve)
        buffers.release(index)
      }
      return
    }
    let bytes = UnsafeRawBufferPointer(rebasing: inline[0..<filled])
    hasher.update(bytes)
    PayloadSink.write(bytes, to: file, flags: flags, reserve: reserve)
  }

  /// Writes `bytes` while the payload is wanted and nothing has failed, if the reserve admits them.
  private static func write(_ bytes: UnsafeRawBufferPointer, to file: StagingFile?, flags: SinkFlags, reserve: DiskReserve) {
    guard flags.writing.load(ordering: .acquiring), flags.failure.withLock({ $0 == nil }), let file else { return }
    guard reserve.admits(bytes.count) else {
      flags.failure.withLock { $0 = .reserve(reserve) }
      return
    }
    do throws(InboxError) {
      try file.write(bytes)
    } catch {
      flags.failure.withLock { $0 = .write(error) }
    }
  }
}

/// The staging file while the writer queue writes it.
///
/// `@unchecked Sendable`: between a pipelined sink's first hand-off and the end of its `finish()`
/// only the writer queue writes the file (the session thread fills, hashes and submits buffers);
/// after `finish()` returns, the queue has drained and it is the session's again.
private final class WriterOwned: @unchecked Sendable {
  let file: StagingFile?
  init(file: StagingFile?) { self.file = file }
}

/// A session's pipeline for its large items, one item at a time: three aligned buffers and a
/// serial queue that writes them in order (the session thread hashes them first). Made at the
/// session's first large item and kept until the session ends: made per item, the buffers'
/// fresh pages (and a thread) cost more CPU than pipelining saved on items of a few MiB.
///
/// Thread-confined to its session's thread (`buffers` is made there, on first use).
final class SessionWriter {
  private(set) lazy var buffers = BufferPipeline(count: 3, size: BufferPipeline.bufferSize)
  let queue = DispatchQueue(label: "share.writer")
}

/// What the session and the writer queue both see.
private final class SinkFlags: Sendable {
  /// Why writing stopped; once set, bytes are only hashed and dropped.
  let failure = Mutex<PayloadSink.Failure?>(nil)
  /// Cleared when the item is doomed: nothing more is written.
  let writing = Atomic<Bool>(true)
}
