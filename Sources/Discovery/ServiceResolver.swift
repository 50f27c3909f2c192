/// Resolves one service instance by its name, without browsing, through
/// avahi-daemon (libavahi-client's `AvahiServiceResolver`).
///
/// Avahi keeps instance names unique on a link, so a name a user typed can be
/// resolved directly: no waiting for a browse to report "all for now" (about
/// a second on a quiet network), the answer comes as soon as the instance's
/// host answers, or at once from Avahi's cache.
package enum ServiceResolver {
  /// Resolves `name` of `type` on every interface, over IPv4 and IPv6, and
  /// reports what each IP version finds as it comes (so at most two services,
  /// each with one address). The stream finishes once both have answered;
  /// Avahi gives up on a name nobody answers for after about five seconds, so
  /// a caller that knows better stops iterating sooner.
  ///
  /// A resolved service is a routing hint only: nothing here is authenticated.
  /// Hostile records (binary or huge TXT, control characters) are reported as
  /// received.
  ///
  /// - Throws: `DiscoveryError.daemonUnreachable` at once when avahi-daemon or
  ///   the system D-Bus is not running; `.invalidServiceType` for a malformed
  ///   type; `.invalidServiceName` for a name no instance can have; `.avahi`
  ///   when a call fails. The stream throws `.daemonUnreachable` if the daemon
  ///   goes away meanwhile.
  /// - Note: Makes blocking D-Bus calls to set up (milliseconds when the daemon
  ///   is there). Callable from any thread. Ending the iteration frees the
  ///   resolvers, client and event thread shortly after, on a background thread.
  package static func resolve(name: String, type: String = defaultServiceType) throws(DiscoveryError)
    -> AsyncThrowingStream<ResolvedService, any Error>
  {
    try validateServiceType(type)
    guard !name.isEmpty, name.utf8.count <= maximumServiceNameLength else {
      throw .invalidServiceName(name, reason: "no service instance can be called that")
    }
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: ResolvedService.self)
    try ResolveSession(name: name, type: type, continuation: continuation).start()
    return stream
  }
}
