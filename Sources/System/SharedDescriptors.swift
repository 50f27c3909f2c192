import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Descriptors that one thread may close while others are using them (a socket's reads and
/// writes, a listener's `accept`): `close` stops new uses at once and wakes the blocked ones
/// (its `interrupt`), and the descriptors are released with `close(2)` only when the last use
/// has ended, so no call ever finds its descriptor number reused for another file. Released in
/// deinit if never closed. The one implementation of this life cycle for `Socket` and
/// `TCPListener`.
final class SharedDescriptors: Sendable {
  private struct State {
    /// The descriptors; empty once released.
    var descriptors: [Int32]
    /// Set by `close`; no new use may start.
    var closed = false
    /// Uses under way (`acquire` without its `release` yet).
    var busy = 0

    /// Releases the descriptors once closed and no longer used.
    mutating func releaseIfDone() {
      guard closed, busy == 0 else { return }
      for descriptor in descriptors { Glibc.close(descriptor) }
      descriptors = []
    }
  }

  private let state: Mutex<State>

  init(_ descriptors: [Int32]) {
    state = Mutex(State(descriptors: descriptors))
  }

  deinit {
    state.withLock { state in
      for descriptor in state.descriptors { Glibc.close(descriptor) }
    }
  }

  /// The descriptors, marked in use; nil once closed. Pair every answer with `release()`.
  func acquire() -> [Int32]? {
    state.withLock { state in
      guard !state.closed, !state.descriptors.isEmpty else { return nil }
      state.busy += 1
      return state.descriptors
    }
  }

  /// Ends a use started by `acquire()`; performs a release that `close` deferred.
  func release() {
    state.withLock { state in
      state.busy -= 1
      state.releaseIfDone()
    }
  }

  /// The first call runs `interrupt` on the descriptors (under the lock, so no use starts
  /// meanwhile) and releases them if nothing uses them; later calls do nothing.
  func close(interrupting interrupt: ([Int32]) -> Void) {
    state.withLock { state in
      guard !state.closed else { return }
      state.closed = true
      if !state.descriptors.isEmpty { interrupt(state.descriptors) }
      state.releaseIfDone()
    }
  }

  /// Whether `close` has been called.
  var isClosed: Bool { state.withLock { $0.closed } }

  /// The descriptors while not closed (nil after): only to look at, never to use.
  var current: [Int32]? { state.withLock { $0.closed ? nil : $0.descriptors } }
}
