internal import CAvahi

/// One direct resolution of a named instance: a lookup session (event loop,
/// client, stream) with the resolvers in flight (one per IP version, on every
/// interface), feeding `ResolvedService`s.
final class ResolveSession: AvahiLookupSession<ResolvedService>, @unchecked Sendable {
  // @unchecked: `pending` follows `AvahiLookupSession`'s rule: touched only before the
  // event thread runs, inside Avahi callbacks, or in `close()` once the thread
  // is joined.
  /// Resolvers still running; the stream finishes when the last one answers.
  private var pending: Set<OpaquePointer> = []

  /// Connects to avahi-daemon and asks it to resolve `name` of `type` in
  /// `.local` on every interface (AVAHI_IF_UNSPEC), once over IPv4 and once
  /// over IPv6 (`avahi_service_resolver_new`); the event thread is not started
  /// yet. Throws `.daemonUnreachable` when the daemon is absent.
  init(
    name: String, type: String,
    continuation: AsyncThrowingStream<ResolvedService, any Error>.Continuation
  ) throws(DiscoveryError) {
    try super.init(
      activity: "resolving", continuation: continuation, clientCallback: resolveClientCallback)
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

  /// Frees the resolvers still running.
  override func freeLookups() {
    for resolver in pending {
      avahi_service_resolver_free(resolver)
    }
    pending = []
  }

  // MARK: Event-thread handlers (called from the C callbacks below)

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
    let instance = serviceInstance(
      interface: interface, version: version, name: name, type: type, domain: domain)
    let service = resolvedService(
      instance, host: host, address: address, port: port, txt: txt, isLocal: isLocal(flags))
    if let service {
      continuation.yield(service)
    }
  }
}

// MARK: C callbacks. Non-capturing; `userdata` is the session, kept alive by
// the reference `AvahiLookupSession.init` retained. They run on the event
// thread with the event loop lock held, so they never take that lock.

private func session(_ userdata: UnsafeMutableRawPointer?) -> ResolveSession? {
  ResolveSession.from(userdata: userdata)
}

private let resolveClientCallback: AvahiClientCallback = { client, state, userdata in
  session(userdata)?.clientChanged(client, state: state)
}

private let directResolverCallback: AvahiServiceResolverCallback = {
  resolver, interface, proto, event, name, type, domain, host, address, port, txt, flags, userdata in
  guard let resolver, let session = ResolveSession.from(userdata: userdata, elseFree: resolver) else {
    return
  }
  session.resolved(
    resolver, interface: interface, proto: proto, event: event, name: name, type: type,
    domain: domain, host: host, address: address, port: port, txt: txt, flags: flags)
}
