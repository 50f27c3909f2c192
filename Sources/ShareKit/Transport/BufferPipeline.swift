import Dispatch
import Foundation
import Synchronization

/// A fixed pool of aligned buffers passed from one producer thread to one consumer thread in
/// order: the producer fills a free buffer and submits it, the consumer takes it, uses it, and
/// releases it. Lets disk, digest and network work on two cores at once with bounded memory.
///
/// `@unchecked Sendable`: the buffers are shared by design; a buffer index is owned by exactly one
/// side at a time (free → producer → full → consumer → free), handed over under the mutex.
final class BufferPipeline: @unchecked Sendable {
  let buffers: [UnsafeMutableRawBufferPointer]
  /// Bytes per pipelined buffer: large enough for few system calls and aligned O_DIRECT writes,
  /// small enough that three of them on each side keep memory well under the 32 MiB budget.
  static let bufferSize = 512 << 10
  private let freeSlots: DispatchSemaphore
  private let fullSlots = DispatchSemaphore(value: 0)
  private let state = Mutex<(free: [Int], full: [(Int, Int)], finished: Bool)>(([], [], false))

  init(count: Int, size: Int, alignment: Int = 4096) {
    buffers = (0..<count).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: alignment) }
    freeSlots = DispatchSemaphore(value: count)
    state.withLock { $0.free = Array(0..<count) }
  }

  deinit { buffers.forEach { $0.deallocate() } }

  /// Producer: a free buffer's index (waits for one).
  func takeFree() -> Int {
    freeSlots.wait()
    return state.withLock { $0.free.removeFirst() }
  }

  /// Producer: hands over `length` bytes of buffer `index`.
  func submit(_ index: Int, length: Int) {
    state.withLock { $0.full.append((index, length)) }
    fullSlots.signal()
  }

  /// Producer: no more buffers will come.
  func finish() {
    state.withLock { $0.finished = true }
    fullSlots.signal()
  }

  /// Consumer: the next full buffer and its length, or nil once the producer finished.
  func takeFull() -> (index: Int, length: Int)? {
    fullSlots.wait()
    return state.withLock { state in state.full.isEmpty ? nil : state.full.removeFirst() }
  }

  /// Consumer: gives a buffer back.
  func release(_ index: Int) {
    state.withLock { $0.free.append(index) }
    freeSlots.signal()
  }
}
