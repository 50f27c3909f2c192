internal import CAvahi
import Synchronization

/// The Avahi side of a `ServiceAdvertiser`: owns the event loop, the client,
/// the entry group and the reconnect timer, and feeds `AdvertiserEvent`s.
///
/// Lifetime: `start()` hands Avahi a retained reference to `self` as userdata;
/// `stop()` releases it once the event thread is joined and the client freed.
final class AdvertiserSession: @unchecked Sendable {
  // @unchecked: the `var`s under "Avahi state" are touched only (a) in
  // `start()` before the event thread runs, (b) on the event thread inside
  // Avahi callbacks, which hold the event loop lock, (c) inside
  // `loop.withLock` in `stop()`, or (d) in `stop()` after the thread is joined.
  // `phase` serialises start/stop; `published` is read from any thread.
  private let loop: AvahiEventLoop
  private let type: String
  private let port: UInt16
  private let txt: [[UInt8]]
  private let continuation: AsyncStream<AdvertiserEvent>.Continuation
  private enum Phase { case idle, running, stopped }
  private let phase = Mutex(Phase.idle)
  private let published = Mutex<String?>(nil)

  // Avahi state.
  private var name: String
  private var client: OpaquePointer?
  private var group: OpaquePointer?
  private var reconnectTimer: OpaquePointer?
  private var backoff = AdvertiserSession.initialBackoff
  private var daemonAway = false
  private var stopping = false
  private var retained: Unmanaged<AdvertiserSession>?

  static let initialBackoff: UInt32 = 250
  static let maximumBackoff: UInt32 = 8_000
  /// Rename attempts in a row before giving up on local collisions.
  static let maximumRenames = 100

  init(
    name: String, type: String, port: UInt16, txt: [[UInt8]],
    continuation: AsyncStream<AdvertiserEvent>.Continuation
  ) throws(DiscoveryError) {
    self.loop = try AvahiEventLoop()
    self.name = name
    self.type = type
    self.port = port
    self.txt = txt
    self.continuation = continuation
  }

  var currentName: String? {
    published.withLock { $0 }
  }

  func start() throws(DiscoveryError) {
    try phase.withLock { (phase: inout Phase) throws(DiscoveryError) in
      guard phase == .idle else { return }
      retained = Unmanaged.passRetained(self)
      connect()
      do throws(DiscoveryError) {
        try loop.start()
      } catch {
        teardown()
        phase = .stopped
        continuation.finish()
        throw error
      }
      phase = .running
    }
  }

  func stop() {
    phase.withLock { phase in
      switch phase {
      case .stopped:
        return
      case .idle:
        break
      case .running:
        loop.withLock {
          stopping = true
          withdraw()
        }
        teardown()
      }
      phase = .stopped
      continuation.finish()
    }
  }

  /// Withdraws the service and cancels the reconnect timer. Under the loop lock.
  private func withdraw() {
    cancelReconnect()
    if let group {
      avahi_entry_group_reset(group)
      avahi_entry_group_free(group)
      self.group = nil
    }
    published.withLock { $0 = nil }
  }

  /// Joins the event thread, then frees the client and the loop and drops
  /// Avahi's reference to `self`. Not on the event thread.
  private func teardown() {
    loop.stopThread()
    cancelReconnect()
    freeClient()
    loop.free()
    published.withLock { $0 = nil }
    retained?.release()
    retained = nil
  }

  /// Disarms and frees the reconnect timer, if armed. On the event thread,
  /// under the loop lock, or once the thread is joined.
  private func cancelReconnect() {
    if let timer = reconnectTimer {
      loop.freeTimer(timer)
      reconnectTimer = nil
    }
  }

  /// Frees the client, which also frees the entry group, if any is left. Same
  /// threading rule as `cancelReconnect()`.
  private func freeClient() {
    if let client {
      avahi_client_free(client)
      self.client = nil
      group = nil
    }
  }

  // MARK: Connecting (before the thread starts, or on the event thread)

  /// Creates a client that waits for the daemon (`AVAHI_CLIENT_NO_FAIL`). Its
  /// callback may run inside `avahi_client_new` already. Fails only when the
  /// D-Bus system bus itself is unreachable: then retries later.
  private func connect() {
    guard !stopping, let userdata = retained?.toOpaque() else { return }
    var error: Int32 = 0
    let client = avahi_client_new(
      loop.api, AVAHI_CLIENT_NO_FAIL, advertiserClientCallback, userdata, &error)
    guard let client else {
      self.client = nil
      group = nil
      daemonUnavailable("avahi_client_new: \(avahiMessage(error))")
      scheduleReconnect()
      return
    }
    self.client = client
  }

  private func scheduleReconnect() {
    guard !stopping, reconnectTimer == nil, let userdata = retained?.toOpaque() else { return }
    reconnectTimer = loop.addTimer(
      milliseconds: backoff, callback: advertiserReconnectCallback, userdata: userdata)
    backoff = min(backoff * 2, Self.maximumBackoff)
    if reconnectTimer == nil {
      continuation.yield(
        .failed(
          .avahi(
            call: "AvahiPoll.timeout_new", code: Int32(AVAHI_ERR_NO_MEMORY),
            message: avahiMessage(Int32(AVAHI_ERR_NO_MEMORY)))))
    }
  }

  private func daemonUnavailable(_ detail: String) {
    published.withLock { $0 = nil }
    guard !daemonAway else { return }
    daemonAway = true
    continuation.yield(
      .daemonUnavailable(
        "Avahi is not reachable, so peers cannot find this device; retrying. "
          + "Start avahi-daemon (sudo systemctl start avahi-daemon, or scripts/avahi-up.sh). "
          + "(\(detail))"))
  }

  // MARK: Event-thread handlers

  fileprivate func reconnectTimerFired() {
    cancelReconnect()
    freeClient()
    connect()
  }

  fileprivate func clientChanged(_ client: OpaquePointer?, state: AvahiClientState) {
    guard !stopping, let client else { return }
    switch state {
    case AVAHI_CLIENT_S_RUNNING:
      self.client = client
      backoff = Self.initialBackoff
      if daemonAway {
        daemonAway = false
        continuation.yield(.daemonReturned)
      }
      register(client)
    case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
      // The daemon is (re)establishing its host name; our records wait for it.
      // S_RUNNING follows and registers them again.
      if let group {
        avahi_entry_group_reset(group)
      }
      published.withLock { $0 = nil }
    case AVAHI_CLIENT_CONNECTING:
      daemonUnavailable("avahi-daemon is not on the D-Bus system bus; waiting for it")
    case AVAHI_CLIENT_FAILURE:
      // Usually AVAHI_ERR_DISCONNECTED: the daemon or the bus went away. The
      // client cannot be reused: the timer frees it and makes a new one.
      let (code, message) = avahiLastError(client)
      if code == Int32(AVAHI_ERR_DISCONNECTED) || code == Int32(AVAHI_ERR_NO_DAEMON) {
        daemonUnavailable("avahi client: \(message)")
      } else {
        published.withLock { $0 = nil }
        continuation.yield(.failed(.avahi(call: "avahi_client", code: code, message: message)))
      }
      scheduleReconnect()
    default:
      break
    }
  }

  fileprivate func groupChanged(_ group: OpaquePointer, state: AvahiEntryGroupState) {
    guard !stopping else { return }
    switch state {
    case AVAHI_ENTRY_GROUP_ESTABLISHED:
      published.withLock { $0 = name }
      continuation.yield(.registered(name: name))
    case AVAHI_ENTRY_GROUP_COLLISION:
      // Another host announced our name (or won the probe): pick the next one.
      published.withLock { $0 = nil }
      rename()
      avahi_entry_group_reset(group)
      if let client = avahi_entry_group_get_client(group) {
        register(client)
      }
    case AVAHI_ENTRY_GROUP_FAILURE:
      published.withLock { $0 = nil }
      let (code, message) = avahiLastError(avahi_entry_group_get_client(group))
      continuation.yield(.failed(.avahi(call: "avahi_entry_group", code: code, message: message)))
    default:
      break  // UNCOMMITED, REGISTERING: nothing to report yet.
    }
  }

  /// Adds the service to the (new or reset) entry group and commits it.
  /// A local collision (`AVAHI_ERR_COLLISION`: another client on this host has
  /// the name) renames and tries again.
  private func register(_ client: OpaquePointer) {
    if group == nil {
      guard let userdata = retained?.toOpaque(),
        let made = avahi_entry_group_new(client, advertiserGroupCallback, userdata)
      else {
        let (code, message) = avahiLastError(client)
        continuation.yield(
          .failed(.avahi(call: "avahi_entry_group_new", code: code, message: message)))
        return
      }
      group = made
    }
    guard let group else { return }
    // Empty when new or reset; otherwise our service is already in it.
    let empty = avahi_entry_group_is_empty(group)
    guard empty > 0 else {
      if empty < 0 {
        continuation.yield(
          .failed(
            .avahi(call: "avahi_entry_group_is_empty", code: empty, message: avahiMessage(empty))))
      }
      return
    }

    let (list, ok) = makeStringList(txt)
    defer { avahi_string_list_free(list) }
    guard ok else {
      let code = Int32(AVAHI_ERR_NO_MEMORY)
      continuation.yield(
        .failed(
          .avahi(call: "avahi_string_list_add_arbitrary", code: code, message: avahiMessage(code))))
      return
    }
    var renames = 0
    while true {
      let rc = avahi_entry_group_add_service_strlst(
        group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
        AvahiPublishFlags(0),
        name, type, nil, nil, port, list)
      if rc == Int32(AVAHI_ERR_COLLISION) && renames < Self.maximumRenames {
        renames += 1
        rename()
        avahi_entry_group_reset(group)
        continue
      }
      guard rc >= 0 else {
        continuation.yield(
          .failed(
            .avahi(
              call: "avahi_entry_group_add_service_strlst", code: rc, message: avahiMessage(rc))))
        return
      }
      break
    }
    let rc = avahi_entry_group_commit(group)
    if rc < 0 {
      continuation.yield(
        .failed(.avahi(call: "avahi_entry_group_commit", code: rc, message: avahiMessage(rc))))
    }
  }

  /// Moves to the next alternative name (`avahi_alternative_service_name`,
  /// whose result is ours to `avahi_free`) and reports the collision.
  private func rename() {
    let old = name
    guard let alternative = avahi_alternative_service_name(old) else { return }
    name = String(cString: alternative)
    avahi_free(alternative)
    continuation.yield(.collision(old: old, new: name))
  }
}

// MARK: C callbacks. Non-capturing; `userdata` is the session, kept alive by
// the reference `start()` retained. They run on the event thread with the
// event loop lock held, so they never take that lock.

private func advertiser(_ userdata: UnsafeMutableRawPointer?) -> AdvertiserSession? {
  guard let userdata else { return nil }
  return Unmanaged<AdvertiserSession>.fromOpaque(userdata).takeUnretainedValue()
}

private let advertiserClientCallback: AvahiClientCallback = { client, state, userdata in
  advertiser(userdata)?.clientChanged(client, state: state)
}

private let advertiserGroupCallback: AvahiEntryGroupCallback = { group, state, userdata in
  guard let group else { return }
  advertiser(userdata)?.groupChanged(group, state: state)
}

private let advertiserReconnectCallback: AvahiTimeoutCallback = { _, userdata in
  advertiser(userdata)?.reconnectTimerFired()
}
