/// What a browse stream from `ServiceBrowser.browse(type:)` reports.
package enum BrowseEvent: Sendable, Hashable {
  /// An instance appeared and was resolved. Emitted once per instance (one
  /// interface, one IP version), with one address.
  case added(ResolvedService)
  /// An instance reported by an earlier `added` went away (goodbye packet or TTL expiry).
  case removed(ServiceInstance)
  /// Avahi has reported everything it currently knows, and every instance found
  /// so far has been resolved or has failed to: a good moment to show a list.
  /// Later changes still follow. May arrive more than once.
  case allForNow
  /// Something went wrong for one instance (e.g. `DiscoveryError.resolveFailed`);
  /// browsing goes on.
  case failure(DiscoveryError)
}
