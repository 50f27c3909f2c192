import Dispatch
import Foundation
import Synchronization
import TLS
import Wire

extension Sender {
  /// Items with at least this many bytes left are read and hashed on a second thread while this
  /// one encrypts and sends, so the work spreads over two cores.
  static let pipelineBytes: Int64 = 8 << 20

  /// `stream`'s loop for a large item of known size: a reader thread fills buffers (read and
  /// SHA-256), this thread frames, encrypts and sends them.
  func streamPipelined(
    item: Int, entry: Int?, declared: Int64, done start: Int64, offset startOffset: Int, source: ByteSource, hasher: SHA256Hasher,
    over connection: FramedConnection, progress: (Int64) -> Void
  ) throws -> String? {
    let pipeline = BufferPipeline(count: 3, size: FrameHeader.size + BufferPipeline.bufferSize)
    let reader = ReaderState(source: source, hasher: hasher)
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
      defer {
        pipeline.finish()
        finished.signal()
      }
      reader.fill(pipeline, from: start, offset: startOffset, upTo: declared)
    }
    thread.name = "share-reader"
    thread.start()
    do {
      while let (index, length) = pipeline.takeFull() {
        let frame = UnsafeMutableRawBufferPointer(rebasing: pipeline.buffers[index][0..<(FrameHeader.size + length)])
        defer { pipeline.release(index) }
        if let skipped = try receivedSkip(connection, item: item, entry: entry) {
          reader.stopped.store(true, ordering: .releasing)
          reader.problem.withLock { $0 = skipped }
          break
        }
        try connection.sendData(framedIn: frame)
        progress(Int64(length))
      }
      if reader.stopped.load(ordering: .acquiring) {
        while let (index, _) = pipeline.takeFull() { pipeline.release(index) }
      }
    } catch {
      // Unblock and wait for the reader before the buffers go away.
      reader.stopped.store(true, ordering: .releasing)
      while let (index, _) = pipeline.takeFull() { pipeline.release(index) }
      finished.wait()
      throw error
    }
    finished.wait()
    if let problem = reader.problem.withLock({ $0 }) ?? source.changedWhileRead() {
      try connection.sendEnd(nil)
      return problem
    }
    guard let digest = Digest(bytes: hasher.finalize()) else { fatalError("SHA-256 is 32 bytes") }
    try connection.sendEnd(digest)
    return nil
  }
}

/// What the reader thread of a pipelined send owns or reports.
///
/// `@unchecked Sendable`: `source` and `hasher` are used only by the reader thread until it has
/// signalled that it finished; `problem` and `stopped` are synchronised.
private final class ReaderState: @unchecked Sendable {
  let source: ByteSource
  let hasher: SHA256Hasher
  let problem = Mutex<String?>(nil)
  let stopped = Atomic<Bool>(false)
  init(source: ByteSource, hasher: SHA256Hasher) {
    self.source = source
    self.hasher = hasher
  }

  /// The reader thread's loop: fills free buffers with the bytes from `start` up to `declared`,
  /// hashing them, until done, stopped, or the source fails or shrinks (then `problem` says so).
  func fill(_ pipeline: BufferPipeline, from start: Int64, offset startOffset: Int, upTo declared: Int64) {
    var done = start
    var offset = startOffset
    while done < declared {
      if stopped.load(ordering: .acquiring) { return }
      let index = pipeline.takeFree()
      let area = UnsafeMutableRawBufferPointer(rebasing: pipeline.buffers[index][FrameHeader.size...])
      let want = Int(min(Int64(area.count), declared - done))
      var got = 0
      while got < want {
        let n: Int
        do {
          n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: area[got..<want]), at: &offset)
        } catch {
          problem.withLock { $0 = "cannot read it: \(error)" }
          pipeline.release(index)
          return
        }
        if n == 0 { break }
        got += n
      }
      if got < want {
        problem.withLock { $0 = "it shrank while being sent" }
        pipeline.release(index)
        return
      }
      hasher.update(UnsafeRawBufferPointer(rebasing: area[0..<got]))
      pipeline.submit(index, length: got)
      done += Int64(got)
    }
  }
}
