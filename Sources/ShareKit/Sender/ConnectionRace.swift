import Dispatch
import Foundation
import Synchronization
import System
import TLS
import Wire

/// One attempt per address of an endpoint, all at once: the first whose receiver proves the
/// expected identity wins, and every other is closed. An address that never answers (a bogus
/// record pointing at a silent listener) then costs nothing but a thread that gives up on its
/// own.
///
/// `@unchecked Sendable`: every stored property is either immutable or read and written only
/// under `state`'s lock; a winning connection, created on its attempt's thread, is handed to the
/// waiting thread through that lock and never touched by its attempt again.
final class ConnectionRace: @unchecked Sendable {
  /// A connection that proved its identity, and the address it was reached at.
  ///
  /// `@unchecked Sendable`: handed once from its attempt's thread, which never touches it
  /// again, to the thread that waits for the race.
  struct Winner: @unchecked Sendable {
    let connection: FramedConnection
    let hello: Hello
    let candidate: Endpoint.Candidate
    let socket: Socket
  }

  private struct State {
    var sockets: [Socket] = []
    var winner: Winner?
    var failures: [(candidate: Endpoint.Candidate, error: any Error)] = []
    var over = false
  }

  private let state = Mutex<State>(State())
  private let decided = DispatchSemaphore(value: 0)
  let count: Int

  init(count: Int) {
    self.count = count
  }

  /// Adds an attempt's socket, to be closed when another wins or the race is cancelled; false
  /// (and the socket is left to the caller to close) when the race is already over.
  func register(_ socket: Socket) -> Bool {
    state.withLock { state in
      guard !state.over else { return false }
      state.sockets.append(socket)
      return true
    }
  }

  /// An attempt proved its identity: it wins unless another did first or the race was
  /// cancelled (then false, and the caller closes its connection).
  func win(_ winner: Winner) -> Bool {
    let losers = state.withLock { state -> [Socket]? in
      guard !state.over else { return nil }
      state.over = true
      state.winner = winner
      return state.sockets.filter { $0 !== winner.socket }
    }
    guard let losers else { return false }
    losers.forEach { $0.close() }
    decided.signal()
    return true
  }

  /// An attempt failed; the last one to fail ends the race.
  func fail(_ candidate: Endpoint.Candidate, _ error: any Error) {
    let last = state.withLock { state -> Bool in
      state.failures.append((candidate, error))
      guard !state.over, state.failures.count == count else { return false }
      state.over = true
      return true
    }
    if last { decided.signal() }
  }

  /// Ends the race from any thread: every attempt's socket is closed, `wait` returns.
  func cancel() {
    let sockets = state.withLock { state -> [Socket] in
      let wasOver = state.over
      state.over = true
      return wasOver && state.winner != nil ? [] : state.sockets
    }
    sockets.forEach { $0.close() }
    decided.signal()
  }

  /// Blocks until an attempt won (its connection), every attempt failed, or the race was
  /// cancelled (nil: see `failures`).
  func wait() -> Winner? {
    decided.wait()
    return state.withLock { $0.winner }
  }

  /// Why each attempt that ended failed, in the order they failed.
  var failures: [(candidate: Endpoint.Candidate, error: any Error)] {
    state.withLock { $0.failures }
  }
}
