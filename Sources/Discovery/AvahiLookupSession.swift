internal import CAvahi
import Dispatch
import Synchronization

/// What a browse and a resolve share: an event loop, a lookup client on it, the stream of
/// `Event`s they feed, and their teardown. A subclass (`BrowseSession`, `ResolveSession`) adds the
/// Avahi objects that look things up (a browser, resolvers), made on `client` with `userdata`,
/// and frees them in `freeLookups()`.
///
/// Lifetime: `init` passes a retained reference of `self` to Avahi as userdata
/// (`Unmanaged.passRetained`); `close()` releases it after every Avahi object
/// that could call back has been freed.
class AvahiLookupSession<Event: Sendable>: @unchecked Sendable {
  // @unchecked: the `var`s below and those of the subclasses are touched only
  // (a) in `init`/`start` before the event thread runs, (b) on the event thread
  // inside Avahi callbacks, which hold the event loop lock, or (c) in `close()`
  // after the event thread has been joined. Those never overlap. `closed` is a
  // Mutex because `close()` may be reached from two threads.
  private let loop: AvahiEventLoop
  let continuation: AsyncThrowingStream<Event, any Error>.Continuation
  /// What the session does, for the error when the daemon goes away ("browsing").
  private let activity: String
  /// The lookup client; nil once closed.
  private(set) var client: OpaquePointer?
  private var retained: Unmanaged<AvahiLookupSession<Event>>?
  private let closed = Mutex(false)

  /// Connects to avahi-daemon; the event thread is not started yet. Throws
  /// `.daemonUnreachable` when the daemon is absent. `clientCallback` hands
  /// `clientChanged` the client's state (a C callback cannot be generic, so the
  /// subclass provides it).
  init(
    activity: String, continuation: AsyncThrowingStream<Event, any Error>.Continuation,
    clientCallback: AvahiClientCallback
  ) throws(DiscoveryError) {
    self.loop = try AvahiEventLoop()
    self.continuation = continuation
    self.activity = activity
    let retained = Unmanaged.passRetained(self)
    self.retained = retained
    do throws(DiscoveryError) {
      client = try newLookupClient(loop, callback: clientCallback, userdata: retained.toOpaque())
    } catch {
      close()
      throw error
    }
  }

  /// The userdata to hand Avahi for the lookups made on `client`; nil once closed.
  var userdata: UnsafeMutableRawPointer? {
    retained?.toOpaque()
  }

  /// The session an Avahi callback's `userdata` points to (kept alive by the
  /// reference `init` retained).
  static func from(userdata: UnsafeMutableRawPointer?) -> Self? {
    guard let userdata else { return nil }
    return Unmanaged<Self>.fromOpaque(userdata).takeUnretainedValue()
  }

  /// The session a resolver callback's `userdata` points to; without one, frees
  /// `resolver` there, as a resolver is freed in its own callback.
  static func from(userdata: UnsafeMutableRawPointer?, elseFree resolver: OpaquePointer) -> Self? {
    guard let session = from(userdata: userdata) else {
      avahi_service_resolver_free(resolver)
      return nil
    }
    return session
  }

  /// Starts the event thread; events flow from here on. Ending the iteration
  /// (or dropping the stream) closes the session shortly after, on a background
  /// thread. If the thread cannot start, closes at once and throws.
  func start() throws(DiscoveryError) {
    continuation.onTermination = { _ in
      self.closeSoon()
    }
    do throws(DiscoveryError) {
      try loop.start()
    } catch {
      close()
      throw error
    }
  }

  /// `close()` on a background thread: termination handlers may run on the
  /// event thread (when a callback finishes the stream), which cannot stop
  /// itself.
  private func closeSoon() {
    DispatchQueue.global().async { self.close() }
  }

  /// Stops the event thread, then frees the lookups (`freeLookups()`), the
  /// client and the loop, and drops Avahi's reference to `self`. Idempotent.
  /// Never call on the event thread.
  final func close() {
    guard
      closed.withLock({ closed in
        defer { closed = true }
        return !closed
      })
    else { return }
    loop.stopThread()
    freeLookups()
    if let client {
      avahi_client_free(client)
      self.client = nil
    }
    loop.free()
    continuation.finish()
    retained?.release()
    retained = nil
  }

  /// Frees the subclass's Avahi objects that could call back. Called by
  /// `close()` once the event thread is joined, before the client is freed.
  func freeLookups() {}

  /// The client's state changed (event thread): a failure ends the stream with
  /// `.daemonUnreachable`.
  final func clientChanged(_ client: OpaquePointer?, state: AvahiClientState) {
    guard state == AVAHI_CLIENT_FAILURE else { return }
    let (_, message) = avahiLastError(client)
    continuation.finish(
      throwing: DiscoveryError.daemonUnreachable(
        detail: "avahi-daemon went away while \(activity): \(message)"))
  }
}
