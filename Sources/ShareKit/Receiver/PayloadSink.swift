import Foundation
import InboxStore
import Synchronization
import TLS

/// Where a payload's bytes go once received: the digest and the staging file, a full buffer at a
/// time (aligned, so a large item can be written with O_DIRECT), each write admitted by the
/// disk reserve first.
///
/// Small items are hashed and written on the receiving thread. A large item is pipelined: the
/// receiving thread only reads and decrypts into one buffer while a writer thread hashes and
/// writes the previous one, so the two halves of the work run on two cores.
///
/// Thread use: one session thread calls everything; the writer thread is internal.
final class PayloadSink {
  /// Why the bytes stopped going to the file.
  enum Failure: Error {
    /// A write failed (the disk is full, read-only, ...).
    case write(InboxError)
    /// The next write would have eaten into the disk reserve.
    case reserve
  }

  private let hasher: SHA256Hasher
  private let file: StagingFile?
  private let reserve: DiskReserve
  private let pipeline: BufferPipeline?
  private let inline: UnsafeMutableRawBufferPointer
  private var current: Int = -1
  private var filled = 0
  private let writerDone = DispatchSemaphore(value: 0)
  private let flags = SinkFlags()
  private var finished = false

  /// `buffer` is the session's own buffer, used when not pipelined.
  init(hasher: SHA256Hasher, file: StagingFile?, reserve: DiskReserve, buffer: UnsafeMutableRawBufferPointer, pipelined: Bool) {
    self.hasher = hasher
    self.file = file
    self.reserve = reserve
    inline = buffer
    guard pipelined else {
      pipeline = nil
      return
    }
    let pipeline = BufferPipeline(count: 3, size: BufferPipeline.bufferSize)
    self.pipeline = pipeline
    current = pipeline.takeFree()
    let flags = self.flags
    let done = writerDone
    let owned = WriterOwned(hasher: hasher, file: file)
    let thread = Thread { [reserve] in
      while let (index, length) = pipeline.takeFull() {
        let bytes = UnsafeRawBufferPointer(rebasing: pipeline.buffers[index][0..<length])
        owned.hasher.update(bytes)
        PayloadSink.write(bytes, to: owned.file, flags: flags, reserve: reserve)
        pipeline.release(index)
      }
      done.signal()
    }
    thread.name = "share-writer"
    thread.start()
  }

  deinit {
    if !finished { _ = finish() }
  }

  private var buffer: UnsafeMutableRawBufferPointer { pipeline.map { $0.buffers[current] } ?? inline }

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
    if filled > 0 { hand(last: true) }
    if let pipeline {
      pipeline.release(current)
      pipeline.finish()
      writerDone.wait()
    }
    return flags.failure.withLock { $0 }
  }

  private func hand(last: Bool = false) {
    defer { filled = 0 }
    if let pipeline {
      pipeline.submit(current, length: filled)
      current = pipeline.takeFree()
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
      flags.failure.withLock { $0 = .reserve }
      return
    }
    do throws(InboxError) {
      try file.write(bytes)
    } catch {
      flags.failure.withLock { $0 = .write(error) }
    }
  }
}

/// The digest and file while the writer thread owns them.
///
/// `@unchecked Sendable`: between `PayloadSink.init` and the end of `finish()` only the writer
/// thread touches them (the session thread only fills and submits buffers); after `finish()`
/// returns, the writer has exited and they are the session's again.
private final class WriterOwned: @unchecked Sendable {
  let hasher: SHA256Hasher
  let file: StagingFile?
  init(hasher: SHA256Hasher, file: StagingFile?) {
    self.hasher = hasher
    self.file = file
  }
}

/// What the session and the writer thread both see.
private final class SinkFlags: Sendable {
  /// Why writing stopped; once set, bytes are only hashed and dropped.
  let failure = Mutex<PayloadSink.Failure?>(nil)
  /// Cleared when the item is doomed: nothing more is written.
  let writing = Atomic<Bool>(true)
}
