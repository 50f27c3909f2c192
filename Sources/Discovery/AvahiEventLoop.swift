internal import CAvahi
import Synchronization

/// Owns one `AvahiThreadedPoll`: the thread on which Avahi calls every
/// callback of the clients, browsers, resolvers, entry groups and timers made
/// on it.
///
/// Threading contract (from `avahi-common/thread-watch.h`):
/// - Before `start()` and after `stopThread()`, any one thread may use the
///   Avahi objects of this loop.
/// - While the thread runs, other threads touch them only inside `withLock`
///   (`avahi_threaded_poll_lock`). Callbacks already run with that lock held and
///   must never call `withLock`, `stopThread()` or `free()`: the mutex is not
///   recursive and the thread cannot join itself.
final class AvahiEventLoop: @unchecked Sendable {
  // @unchecked: `poll` is set once in init and only passed to Avahi, which
  // does its own locking for lock/unlock/stop; the phase is in a Mutex.
  private let poll: OpaquePointer
  private enum Phase { case created, running, stopped, freed }
  private let phase = Mutex(Phase.created)

  /// Allocates the loop (`avahi_threaded_poll_new`); its thread is not started.
  init() throws(DiscoveryError) {
    guard let poll = avahi_threaded_poll_new() else {
      throw .avahi(
        call: "avahi_threaded_poll_new", code: Int32(AVAHI_ERR_NO_MEMORY),
        message: avahiMessage(Int32(AVAHI_ERR_NO_MEMORY)))
    }
    self.poll = poll
  }

  deinit {
    free()
  }

  /// The poll vtable to hand to `avahi_client_new` (`avahi_threaded_poll_get`;
  /// owned by the loop, valid until `free()`).
  var api: UnsafePointer<AvahiPoll> {
    avahi_threaded_poll_get(poll)
  }

  /// Starts the event thread (`avahi_threaded_poll_start`). Call once.
  func start() throws(DiscoveryError) {
    let started = phase.withLock { phase -> Bool in
      guard phase == .created, avahi_threaded_poll_start(poll) >= 0 else { return false }
      phase = .running
      return true
    }
    guard started else {
      throw .avahi(
        call: "avahi_threaded_poll_start", code: Int32(AVAHI_ERR_FAILURE),
        message: "could not start the Avahi event thread")
    }
  }

  /// Runs `body` holding the event loop's lock (`avahi_threaded_poll_lock`).
  /// Never call from an Avahi callback.
  func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
    avahi_threaded_poll_lock(poll)
    defer { avahi_threaded_poll_unlock(poll) }
    return try body()
  }

  /// Stops the event thread and waits for it (`avahi_threaded_poll_stop`).
  /// Afterwards no callback runs, and the caller may free the loop's Avahi
  /// objects without the lock. Idempotent. Never call from an Avahi callback.
  func stopThread() {
    phase.withLock { phase in
      if phase == .running {
        avahi_threaded_poll_stop(poll)
      }
      if phase != .freed {
        phase = .stopped
      }
    }
  }

  /// Stops the thread if needed and frees the loop (`avahi_threaded_poll_free`).
  /// Free every client made on `api` first. Idempotent.
  func free() {
    stopThread()
    phase.withLock { phase in
      guard phase != .freed else { return }
      avahi_threaded_poll_free(poll)
      phase = .freed
    }
  }

  /// Arms a one-shot timer on this loop (`AvahiPoll.timeout_new`). Call on the
  /// loop's thread or inside `withLock`. The timer is freed with `freeTimer`,
  /// or by `free()`.
  func addTimer(
    milliseconds: UInt32, callback: AvahiTimeoutCallback, userdata: UnsafeMutableRawPointer
  ) -> OpaquePointer? {
    share_avahi_timeout_new(api, milliseconds, callback, userdata)
  }

  /// Disarms and frees a timer from `addTimer` (`AvahiPoll.timeout_free`).
  /// Same threading rule as `addTimer`.
  func freeTimer(_ timer: OpaquePointer) {
    share_avahi_timeout_free(api, timer)
  }
}
