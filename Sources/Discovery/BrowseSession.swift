internal import CAvahi
import Dispatch
import Synchronization

/// One running browse: owns its event loop, client, service browser and the
/// resolvers in flight, and feeds a `BrowseEvent` stream.
///
/// Lifetime: `init` passes a retained reference of `self` to Avahi as userdata
/// (`Unmanaged.passRetained`); `close()` releases it after every Avahi object
/// that could call back has been freed.
final class BrowseSession: @unchecked Sendable {
  // @unchecked: the `var`s below are touched only (a) in `init`/`start` before
  // the event thread runs, (b) on the event thread inside Avahi callbacks,
  // which hold the event loop lock, or (c) in `close()` after the event thread
  // has been joined. Those never overlap. `closed` is a Mutex because
  // `close()` may be reached from two threads.
  private let loop: AvahiEventLoop
  private let continuation: AsyncThrowingStream<BrowseEvent, any Error>.Continuation
  private var client: OpaquePointer?
  private var browser: OpaquePointer?
  /// Resolvers in flight, with what they resolve.
  private var pending: [OpaquePointer: Pending] = [:]
  /// Instances reported as `.added` and not yet removed.
  private var announced: Set<ServiceInstance> = []
  /// Avahi said ALL_FOR_NOW while resolvers were still in flight.
  private var allForNowDue = false
  private var retained: Unmanaged<BrowseSession>?
  private let closed = Mutex(false)

  private struct Pending {
    let instance: ServiceInstance
    let isLocal: Bool
  }

  /// Connects to avahi-daemon and creates the browser; the event thread is not
  /// started yet. Throws `.daemonUnreachable` when the daemon is absent.
  init(
    type: String, continuation: AsyncThrowingStream<BrowseEvent, any Error>.Continuation
  ) throws(DiscoveryError) {
    self.loop = try AvahiEventLoop()
    self.continuation = continuation
    let retained = Unmanaged.passRetained(self)
    self.retained = retained
    let userdata = retained.toOpaque()

    let client: OpaquePointer
    do throws(DiscoveryError) {
      client = try newLookupClient(loop, callback: browseClientCallback, userdata: userdata)
    } catch {
      close()
      throw error
    }
    self.client = client

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

  /// Starts the event thread; events flow from here on.
  func start() throws(DiscoveryError) {
    try loop.start()
  }

  /// `close()` on a background thread: termination handlers may run on the
  /// event thread (when a callback finishes the stream), which cannot stop
  /// itself.
  func closeSoon() {
    DispatchQueue.global().async { self.close() }
  }

  /// Stops the event thread, then frees the resolvers, the browser, the client
  /// and the loop, and drops Avahi's reference to `self`. Idempotent. Never
  /// call on the event thread.
  func close() {
    guard
      closed.withLock({ closed in
        defer { closed = true }
        return !closed
      })
    else { return }
    loop.stopThread()
    for resolver in pending.keys {
      avahi_service_resolver_free(resolver)
    }
    pending = [:]
    if let browser {
      avahi_service_browser_free(browser)
      self.browser = nil
    }
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
        detail: "avahi-daemon went away while browsing: \(message)"))
  }

  fileprivate func instanceAppeared(
    interface: AvahiIfIndex, proto: AvahiProtocol, name: UnsafePointer<CChar>,
    type: UnsafePointer<CChar>, domain: UnsafePointer<CChar>, flags: AvahiLookupResultFlags
  ) {
    guard let client, let version = ipProtocol(proto) else { return }
    let instance = makeInstance(interface, version, name, type, domain)
    guard !pending.values.contains(where: { $0.instance == instance }) else { return }
    // Resolve with the instance's own IP version, so the address is one
    // reachable the way the announcement came.
    guard let userdata = retained?.toOpaque(),
      let resolver = avahi_service_resolver_new(
        client, interface, proto, name, type, domain, proto, AvahiLookupFlags(0),
        browseResolverCallback, userdata)
    else {
      let (code, message) = avahiLastError(client)
      continuation.yield(
        .failure(.avahi(call: "avahi_service_resolver_new", code: code, message: message)))
      return
    }
    let isLocal = flags.rawValue & AVAHI_LOOKUP_RESULT_LOCAL.rawValue != 0
    pending[resolver] = Pending(instance: instance, isLocal: isLocal)
  }

  fileprivate func instanceRemoved(
    interface: AvahiIfIndex, proto: AvahiProtocol, name: UnsafePointer<CChar>,
    type: UnsafePointer<CChar>, domain: UnsafePointer<CChar>
  ) {
    guard let version = ipProtocol(proto) else { return }
    let instance = makeInstance(interface, version, name, type, domain)
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
    guard let address, let text = numericAddress(address, interfaceName: instance.interfaceName)
    else {
      let code = Int32(AVAHI_ERR_INVALID_ADDRESS)
      continuation.yield(
        .failure(.resolveFailed(instance, code: code, message: avahiMessage(code))))
      return
    }
    let raw = wireOrderStrings(txt)
    let service = ResolvedService(
      instance: instance, hostName: swiftString(host), address: text, port: port,
      txt: TXTRecord.parse(raw), rawTXT: raw, isLocal: request.isLocal)
    announced.insert(instance)
    continuation.yield(.added(service))
  }

  private func emitAllForNowIfDue() {
    guard allForNowDue, pending.isEmpty else { return }
    allForNowDue = false
    continuation.yield(.allForNow)
  }

  private func makeInstance(
    _ interface: AvahiIfIndex, _ version: IPProtocol, _ name: UnsafePointer<CChar>,
    _ type: UnsafePointer<CChar>, _ domain: UnsafePointer<CChar>
  ) -> ServiceInstance {
    ServiceInstance(
      name: swiftString(name), type: swiftString(type), domain: swiftString(domain),
      interfaceIndex: interface, interfaceName: interfaceName(interface), ipProtocol: version)
  }
}

// MARK: C callbacks. Non-capturing; `userdata` is the session, kept alive by
// the reference `BrowseSession.init` retained. They run on the event thread
// with the event loop lock held, so they never take that lock.

private func session(_ userdata: UnsafeMutableRawPointer?) -> BrowseSession? {
  guard let userdata else { return nil }
  return Unmanaged<BrowseSession>.fromOpaque(userdata).takeUnretainedValue()
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
  guard let resolver else { return }
  guard let session = session(userdata) else {
    avahi_service_resolver_free(resolver)
    return
  }
  session.resolved(resolver, event: event, host: host, address: address, port: port, txt: txt)
}
