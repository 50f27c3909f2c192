import Dispatch
import System

/// Gives back what a daemon's transfers brought in once they have all ended: the pages of code
/// and read-only data they ran (`CurrentProcess.trimFilePages`) and the heap they freed
/// (`CurrentProcess.trimHeap`). It looks every `interval`: a daemon that received something is
/// back near its idle size within that time, and one that receives nothing does nothing.
///
/// `@unchecked Sendable`: the timer is set up in `init` and only cancelled afterwards.
package final class IdleTrimmer: @unchecked Sendable {
  private let timer: any DispatchSourceTimer

  /// - Parameters:
  ///   - ended: how many connections have ended so far.
  ///   - active: how many are being served now.
  ///   - trim: what giving back does (the two trims; a test counts instead).
  package init(
    interval: DispatchTimeInterval = .seconds(10), ended: @escaping @Sendable () -> Int,
    active: @escaping @Sendable () -> Int, trim: @escaping @Sendable () -> Void = IdleTrimmer.trim
  ) {
    timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "share.idle-trim"))
    let trimmed = TrimmedAt(ended())
    timer.setEventHandler {
      let count = ended()
      guard count != trimmed.count, active() == 0 else { return }
      trimmed.count = count
      trim()
    }
    timer.schedule(deadline: .now() + interval, repeating: interval)
    timer.resume()
  }

  deinit { timer.cancel() }

  /// Gives back file pages and the free heap.
  package static func trim() {
    CurrentProcess.trimFilePages()
    CurrentProcess.trimHeap()
  }

  /// Stops looking.
  package func cancel() { timer.cancel() }
}

/// How many connections had ended at the last trim. `@unchecked Sendable`: only the timer's
/// queue (serial) reads and writes it after `init`.
private final class TrimmedAt: @unchecked Sendable {
  var count: Int
  init(_ count: Int) { self.count = count }
}
