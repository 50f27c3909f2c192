/// Publishes one DNS-SD service through avahi-daemon (libavahi-client's
/// `AvahiEntryGroup`) and keeps it published.
///
/// - On a name collision it moves to `avahi_alternative_service_name` ("desk"
///   → "desk #2") and reports `.collision`.
/// - If avahi-daemon is not running at `start()` it reports
///   `.daemonUnavailable` and waits for it (`AVAHI_CLIENT_NO_FAIL`); if the
///   daemon or the D-Bus system bus goes away later, it reports
///   `.daemonUnavailable`, reconnects with backoff (0.25 s doubling to 8 s) and
///   re-registers on its own (`.daemonReturned`, then `.registered`).
///
/// All methods may be called from any thread except an Avahi callback.
/// `events` is a single-consumer stream and buffers every event until read.
package final class ServiceAdvertiser: Sendable {
  /// The name asked for at init; `currentName` is the one in use.
  package let name: String
  package let type: String
  package let port: UInt16
  package let txt: [String: String]
  /// State changes; finishes after `stop()`.
  package let events: AsyncStream<AdvertiserEvent>

  private let session: AdvertiserSession

  /// Validates the service; publishes nothing until `start()`.
  ///
  /// - Parameters:
  ///   - name: the instance name, 1...63 bytes of UTF-8 without control characters.
  ///   - port: the TCP/UDP port the service listens on.
  ///   - txt: TXT pairs. Keys: 1...9 printable ASCII characters, no `=`, unique
  ///     ignoring case. Each `key=value` at most 255 bytes, all together at most
  ///     1300. Publish nothing that identifies a person.
  ///   - type: the service type, default `_share._tcp`.
  /// - Throws: `DiscoveryError.invalidServiceName`, `.invalidTXT`,
  ///   `.invalidServiceType`, or `.avahi` if the event loop cannot be allocated.
  package init(
    name: String, port: UInt16, txt: [String: String] = [:], type: String = defaultServiceType
  ) throws(DiscoveryError) {
    try validateServiceName(name)
    try validateServiceType(type)
    let entries = try TXTRecord.encode(txt)
    self.name = name
    self.type = type
    self.port = port
    self.txt = txt
    let (events, continuation) = AsyncStream.makeStream(of: AdvertiserEvent.self)
    self.events = events
    self.session = try AdvertiserSession(
      name: name, type: type, port: port, txt: entries, continuation: continuation)
  }

  deinit {
    session.stop()
  }

  /// Starts publishing (`avahi_client_new` with `AVAHI_CLIENT_NO_FAIL`, then an
  /// entry group once the daemon runs). Returns without waiting for the
  /// registration: watch `events` for `.registered`. Calling it again, or after
  /// `stop()`, does nothing.
  ///
  /// - Throws: `DiscoveryError.avahi` only if the event thread cannot start.
  ///   A missing daemon is not an error here but a `.daemonUnavailable` event.
  package func start() throws(DiscoveryError) {
    try session.start()
  }

  /// Withdraws the service (`avahi_entry_group_reset` + `avahi_entry_group_free`,
  /// so avahi-daemon sends goodbye packets), then frees the client and the event
  /// thread, and finishes `events`. Blocks until done. Idempotent; final.
  package func stop() {
    session.stop()
  }

  /// The name the service is established under right now; nil before the
  /// first `.registered`, while the daemon is away, and after `stop()`.
  package var currentName: String? {
    session.currentName
  }
}
