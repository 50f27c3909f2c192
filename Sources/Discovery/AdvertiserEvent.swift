/// What a `ServiceAdvertiser` reports on its `events` stream.
package enum AdvertiserEvent: Sendable, Hashable {
  /// The service is established on the network under `name`.
  case registered(name: String)
  /// `old` was taken by another service; the advertiser now uses `new`
  /// (chosen by `avahi_alternative_service_name`, e.g. "desk" → "desk #2").
  case collision(old: String, new: String)
  /// avahi-daemon (or the D-Bus system bus) is not reachable. The advertiser
  /// keeps trying, with backoff, and re-registers on its own when it returns.
  /// The text says what happened and how to start Avahi.
  case daemonUnavailable(String)
  /// avahi-daemon is reachable again after `daemonUnavailable`; a
  /// `registered` follows once the service is re-established.
  case daemonReturned
  /// A call failed for a reason other than the daemon being away. The
  /// advertiser still retries when the daemon connection is renewed.
  case failed(DiscoveryError)
}
