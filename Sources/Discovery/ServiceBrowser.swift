/// Finds services of one type on every interface, over IPv4 and IPv6, through
/// avahi-daemon (libavahi-client's `AvahiServiceBrowser` + `AvahiServiceResolver`).
package enum ServiceBrowser {
  /// Starts browsing for `type` and returns the events as a stream.
  ///
  /// Every instance found is resolved (SRV, TXT and an address of the
  /// instance's IP version) and reported as `.added`; `.removed` follows when it
  /// goes away. `.allForNow` marks the end of the initial burst (see
  /// `BrowseEvent.allForNow`). A resolution failing for one instance is a
  /// `.failure` event; browsing goes on. Hostile records (binary or huge TXT,
  /// control characters in names) are reported as received, never fatal.
  ///
  /// The stream ends by throwing `DiscoveryError.daemonUnreachable` if
  /// avahi-daemon goes away, or `.avahi` if the browser fails.
  /// Ending the iteration (or dropping the stream) stops the browse: the
  /// browser, pending resolvers, client and event thread are freed shortly
  /// after, on a background thread.
  ///
  /// - Throws: `DiscoveryError.daemonUnreachable` at once when avahi-daemon or
  ///   the system D-Bus is not running (no waiting for it to appear);
  ///   `.invalidServiceType` for a malformed type; `.avahi` when a call fails.
  /// - Note: Makes blocking D-Bus calls to set up (milliseconds when the daemon
  ///   is there). Callable from any thread.
  package static func browse(type: String = defaultServiceType) throws(DiscoveryError)
    -> AsyncThrowingStream<BrowseEvent, any Error>
  {
    try validateServiceType(type)
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: BrowseEvent.self)
    try BrowseSession(type: type, continuation: continuation).start()
    return stream
  }

  /// Browses until the first `.allForNow` and returns the services resolved by
  /// then (minus any removed meanwhile), sorted by name, then interface, then
  /// address. The one-shot form for listing peers.
  ///
  /// - Throws: what `browse(type:)` throws, and the stream's error if it ends early.
  package static func snapshot(type: String = defaultServiceType) async throws
    -> [ResolvedService]
  {
    var found: [ServiceInstance: ResolvedService] = [:]
    for try await event in try browse(type: type) {
      switch event {
      case .added(let service): found[service.instance] = service
      case .removed(let instance): found[instance] = nil
      case .allForNow:
        return found.values.sorted { a, b in
          (a.instance.name, a.instance.interfaceName, a.address)
            < (b.instance.name, b.instance.interfaceName, b.address)
        }
      case .failure: continue
      }
    }
    return Array(found.values)
  }
}
