internal import CAvahi
import Dispatch
import Synchronization

/// One direct resolution of a named instance: owns its event loop, client and
/// the resolvers in flight (one per IP version, on every interface), and feeds
/// a stream of `ResolvedService`s.
///
/// Lifetime: `init` passes a retained reference of `self` to Avahi as userdata
/// (`Unmanaged.passRetained`); `close()` releases it after every Avahi object
/// that could call back has been freed.
final class ResolveSession: @unchecked Sendable {
  // @unchecked: the `var`s below are touched only (a) in `init`/`start` before
  // the event thread runs, (b) on the event thread inside Avahi callbacks,
  // which hold the event loop lock, or (c) in `close()` after the event thread
  // has been joined. Those never overlap. `closed` is a Mutex because
  // `close()` may be reached from two threads.
  private let loop: AvahiEventLoop
  private let continuation: AsyncThrowingStream<ResolvedService, any Error>.Continuation
  private var client: OpaquePointer?
  /// Resolvers still running; the stream finishes when the last one answers.
  private var pending: Set<OpaquePointer> = []
  private var retained: Unmanaged<ResolveSession>?
  private let closed = Mutex(false)

  /// Connects to avahi-daemon and asks it to resolve `name` of `type` in
  /// `.local` on every interface (AVAHI_IF_UNSPEC), once over IPv4 and once
  /// over IPv6 (`avahi_service_resolver_new`); the event thread is not started
  /// yet. Throws `.daemonUnreachable` when the daemon is absent.
  init(
    name: String, type: String,
    continuation: AsyncThrowingStream<ResolvedService, any Error>.Continuation
  ) throws(DiscoveryError) {
    self.loop = try AvahiEventLoop()
    self.continuation = continuation
    let retained = Unmanaged.passRetained(self)
    self.retained = retained
    let userdata = retained.toOpaque()
    let client: OpaquePointer
    do throws(DiscoveryError) {
      client = try newLookupClient(loop, callback: resolveClientCallback, userdata: userdata)
    } catch {
      close()
      throw error
    }
    self.client = client
    for version in [IPProtocol.ipv4, .ipv6] {
      let proto = avahiProtocol(version)
      // A protocol the daemon does not use (IPv6 on a loopback-only Avahi)
      // fails here or later: the other one still answers.
      if let resolver = avahi_service_resolver_new(
        client, AvahiIfIndex(AVAHI_IF_UNSPEC), proto, name, type, "local", proto,
        AvahiLookupFlags(0), directResolverCallback, userdata)
      {
        pending.insert(resolver)
      }
    }
    guard !pending.isEmpty else {
      let (code, message) = avahiLastError(client)
      close()
      throw .avahi(call: "avahi_service_resolver_new", code: code, message: message)
    }
  }

  /// Starts the event thread; results flow from here on.
  func start() throws(DiscoveryError) {
    try loop.start()
  }

  /// `close()` on a background thread (see `BrowseSession.closeSoon`).
  func closeSoon() {
    DispatchQueue.global().async { self.close() }
  }

  /// Stops the event thread, then frees the resolvers, the client and the
  /// loop, and drops Avahi's reference to `self`. Idempotent. Never call on the
  /// event thread.
  func close() {
    guard
      closed.withLock({ closed in
        defer { closed = true }
        return !closed
      })
    else { return }
    loop.stopThread()
    for resolver in pending {
      avahi_service_resolver_free(resolver)
    }
    pending = []
    if let client {
      avahi_client_free(client)
      self.client = nil
    }
    loop.free()
    continuation.finish()
    retained?.release()
    retained = nil
  }

  // MARK: Event-thread handlers (called from the C callbacks below)

  fileprivate func clientChanged(_ client: OpaquePointer?, state: AvahiClientState) {
    guard state == AVAHI_CLIENT_FAILURE else { return }
    let (_, message) = avahiLastError(client)
    continuation.finish(
      throwing: DiscoveryError.daemonUnreachable(
        detail: "avahi-daemon went away while resolving: \(message)"))
  }

  /// A resolver finished, found or failed (no answer in time: nobody has the
  /// name over that IP version). Frees it here, in its own callback.
  fileprivate func resolved(
    _ resolver: OpaquePointer, interface: AvahiIfIndex, proto: AvahiProtocol,
    event: AvahiResolverEvent, name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?,
    domain: UnsafePointer<CChar>?, host: UnsafePointer<CChar>?,
    address: UnsafePointer<AvahiAddress>?, port: UInt16,
    txt: UnsafeMutablePointer<AvahiStringList>?, flags: AvahiLookupResultFlags
  ) {
    guard pending.remove(resolver) != nil else { return }
    defer {
      avahi_service_resolver_free(resolver)
      if pending.isEmpty { continuation.finish() }
    }
    guard event == AVAHI_RESOLVER_FOUND, let version = ipProtocol(proto), let address else {
      return
    }
    let instance = ServiceInstance(
      name: swiftString(name), type: swiftString(type), domain: swiftString(domain),
      interfaceIndex: interface, interfaceName: interfaceName(interface), ipProtocol: version)
    guard let text = numericAddress(address, interfaceName: instance.interfaceName) else { return }
    let raw = wireOrderStrings(txt)
    continuation.yield(
      ResolvedService(
        instance: instance, hostName: swiftString(host), address: text, port: port,
        txt: TXTRecord.parse(raw), rawTXT: raw,
        isLocal: flags.rawValue & AVAHI_LOOKUP_RESULT_LOCAL.rawValue != 0))
  }
}

// MARK: C callbacks. Non-capturing; `userdata` is the session, kept alive by
// the reference `ResolveSession.init` retained. They run on the event thread
// with the event loop lock held, so they never take that lock.

private func session(_ userdata: UnsafeMutableRawPointer?) -> ResolveSession? {
  guard let userdata else { return nil }
  return Unmanaged<ResolveSession>.fromOpaque(userdata).takeUnretainedValue()
}

private let resolveClientCallback: AvahiClientCallback = { client, state, userdata in
  session(userdata)?.clientChanged(client, state: state)
}

private let directResolverCallback: AvahiServiceResolverCallback = {
  resolver, interface, proto, event, name, type, domain, host, address, port, txt, flags, userdata in
  guard let resolver else { return }
  guard let session = session(userdata) else {
    avahi_service_resolver_free(resolver)
    return
  }
  session.resolved(
    resolver, interface: interface, proto: proto, event: event, name: name, type: type,
    domain: domain, host: host, address: address, port: port, txt: txt, flags: flags)
}
