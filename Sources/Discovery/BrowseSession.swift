internal import CAvahi

/// One running browse: a lookup session (event loop, client, stream) with a
/// service browser and the resolvers in flight, feeding `BrowseEvent`s.
final class BrowseSession: AvahiLookupSession<BrowseEvent>, @unchecked Sendable {
  // @unchecked: the `var`s follow `AvahiLookupSession`'s rule: touched only before the
  // event thread runs, inside Avahi callbacks, or in `close()` once the thread
  // is joined.
  private var browser: OpaquePointer?
  /// Resolvers in flight, with what they resolve.
  private var pending: [OpaquePointer: Pending] = [:]
  /// Instances reported as `.added` and not yet removed.
  private var announced: Set<ServiceInstance> = []
  /// Avahi said ALL_FOR_NOW while resolvers were still in flight.
  private var allForNowDue = false

  private struct Pending {
    let instance: ServiceInstance
    let isLocal: Bool
  }

  /// Connects to avahi-daemon and creates the browser; the event thread is not
  /// started yet. Throws `.daemonUnreachable` when the daemon is absent.
  init(
    type: String, continuation: AsyncThrowingStream<BrowseEvent, any Error>.Continuation
  ) throws(DiscoveryError) {
    try super.init(
      activity: "browsing", continuation: continuation, clientCallback: browseClientCallback)
    guard
      let browser = avahi_service_browser_new(
        client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), type, nil,
        AvahiLookupFlags(0), browseCallback, userdata)
    else {
      let (code, message) = avahiLastError(client)
      close()
      throw .avahi(call: "avahi_service_browser_new", code: code, message: message)
    }
    self.browser = browser
  }

  /// Frees the resolvers and the browser.
  override func freeLookups() {
    for resolver in pending.keys {
      avahi_service_resolver_free(resolver)
    }
    pending = [:]
    if let browser {
      avahi_service_browser_free(browser)
      self.browser = nil
    }
  }

  // MARK: Event-thread handlers (called from the C callbacks below)

  fileprivate func instanceAppeared(
    interface: AvahiIfIndex, proto: AvahiProtocol, name: UnsafePointer<CChar>,
    type: UnsafePointer<CChar>, domain: UnsafePointer<CChar>, flags: AvahiLookupResultFlags
  ) {
    guard let client, let version = ipProtocol(proto) else { return }
    let instance = serviceInstance(
      interface: interface, version: version, name: name, type: type, domain: domain)
    guard !pending.values.contains(where: { $0.instance == instance }) else { return }
    // Resolve with the instance's own IP version, so the address is one
    // reachable the way the announcement came.
    guard let userdata,
      let resolver = avahi_service_resolver_new(
        client, interface, proto, name, type, domain, proto, AvahiLookupFlags(0),
        browseResolverCallback, userdata)
    else {
      let (code, message) = avahiLastError(client)
      continuation.yield(
        .failure(.avahi(call: "avahi_service_resolver_new", code: code, message: message)))
      return
    }
    pending[resolver] = Pending(instance: instance, isLocal: isLocal(flags))
  }

  fileprivate func instanceRemoved(
    interface: AvahiIfIndex, proto: AvahiProtocol, name: UnsafePointer<CChar>,
    type: UnsafePointer<CChar>, domain: UnsafePointer<CChar>
  ) {
    guard let version = ipProtocol(proto) else { return }
    let instance = serviceInstance(
      interface: interface, version: version, name: name, type: type, domain: domain)
    for (resolver, request) in pending where request.instance == instance {
      pending[resolver] = nil
      avahi_service_resolver_free(resolver)
    }
    if announced.remove(instance) != nil {
      continuation.yield(.removed(instance))
    }
    emitAllForNowIfDue()
  }

  fileprivate func allForNow() {
    allForNowDue = true
    emitAllForNowIfDue()
  }

  fileprivate func browserFailed(_ browser: OpaquePointer?) {
    let (code, message) = avahiLastError(browser.flatMap { avahi_service_browser_get_client($0) })
    continuation.finish(
      throwing: DiscoveryError.avahi(call: "avahi_service_browser", code: code, message: message))
  }

  /// A resolver finished, found or failed. Frees it here, in its own callback.
  fileprivate func resolved(
    _ resolver: OpaquePointer, event: AvahiResolverEvent, host: UnsafePointer<CChar>?,
    address: UnsafePointer<AvahiAddress>?, port: UInt16, txt: UnsafeMutablePointer<AvahiStringList>?
  ) {
    let request = pending.removeValue(forKey: resolver)
    defer {
      avahi_service_resolver_free(resolver)
      emitAllForNowIfDue()
    }
    guard let request else { return }
    let instance = request.instance
    guard event == AVAHI_RESOLVER_FOUND else {
      let (code, message) = avahiLastError(avahi_service_resolver_get_client(resolver))
      continuation.yield(.failure(.resolveFailed(instance, code: code, message: message)))
      return
    }
    guard let address,
      let service = resolvedService(
        instance, host: host, address: address, port: port, txt: txt, isLocal: request.isLocal)
    else {
      let code = Int32(AVAHI_ERR_INVALID_ADDRESS)
      continuation.yield(
        .failure(.resolveFailed(instance, code: code, message: avahiMessage(code))))
      return
    }
    announced.insert(instance)
    continuation.yield(.added(service))
  }

  private func emitAllForNowIfDue() {
    guard allForNowDue, pending.isEmpty else { return }
    allForNowDue = false
    continuation.yield(.allForNow)
  }
}

// MARK: C callbacks. Non-capturing; `userdata` is the session, kept alive by
// the reference `AvahiLookupSession.init` retained. They run on the event
// thread with the event loop lock held, so they never take that lock.

private func session(_ userdata: UnsafeMutableRawPointer?) -> BrowseSession? {
  BrowseSession.from(userdata: userdata)
}

private let browseClientCallback: AvahiClientCallback = { client, state, userdata in
  session(userdata)?.clientChanged(client, state: state)
}

private let browseCallback: AvahiServiceBrowserCallback = {
  browser, interface, proto, event, name, type, domain, flags, userdata in
  guard let session = session(userdata) else { return }
  switch event {
  case AVAHI_BROWSER_NEW:
    guard let name, let type, let domain else { return }
    session.instanceAppeared(
      interface: interface, proto: proto, name: name, type: type, domain: domain, flags: flags)
  case AVAHI_BROWSER_REMOVE:
    guard let name, let type, let domain else { return }
    session.instanceRemoved(
      interface: interface, proto: proto, name: name, type: type, domain: domain)
  case AVAHI_BROWSER_ALL_FOR_NOW:
    session.allForNow()
  case AVAHI_BROWSER_FAILURE:
    session.browserFailed(browser)
  default:
    break  // AVAHI_BROWSER_CACHE_EXHAUSTED: nothing to report.
  }
}

private let browseResolverCallback: AvahiServiceResolverCallback = {
  resolver, _, _, event, _, _, _, host, address, port, txt, _, userdata in
  guard let resolver, let session = BrowseSession.from(userdata: userdata, elseFree: resolver) else {
    return
  }
  session.resolved(resolver, event: event, host: host, address: address, port: port, txt: txt)
}
