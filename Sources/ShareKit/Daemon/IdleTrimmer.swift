import Dispatch
import Synchronization
import System

/// Gives back what a daemon's transfers brought in once they have all ended: the pages of code
/// and read-only data they ran (`CurrentProcess.trimFilePages`), libmagic's databases and the
/// heap they freed (`CurrentProcess.trimHeap`). Told of every change in the number of
/// connections served; when it falls to none, it trims `delay` later unless a connection has come
/// meanwhile. A daemon that received something is back near its idle size within that time, and
/// one that receives nothing does nothing. (Two changes told out of order can at worst trim during
/// a transfer, which costs only page faults.)
package final class IdleTrimmer: Sendable {
  private let queue = DispatchQueue(label: "share.idle-trim")
  private let delay: DispatchTimeInterval
  private let trim: @Sendable () -> Void
  /// Bumped by every change; a trim goes ahead only if none came after it was scheduled.
  private let state = Mutex((generation: 0, stopped: false))

  /// - Parameter trim: what giving back does (a test counts instead).
  package init(delay: DispatchTimeInterval = .seconds(10), trim: @escaping @Sendable () -> Void) {
    self.delay = delay
    self.trim = trim
  }

  /// `active` connections are being served now.
  package func connections(active: Int) {
    let generation = state.withLock { state -> Int? in
      state.generation += 1
      return active == 0 && !state.stopped ? state.generation : nil
    }
    guard let generation else { return }
    queue.asyncAfter(deadline: .now() + delay) { [self] in
      guard state.withLock({ $0.generation == generation && !$0.stopped }) else { return }
      trim()
    }
  }

  /// No more trims.
  package func stop() { state.withLock { $0.stopped = true } }
}
