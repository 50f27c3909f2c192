/// A service instance resolved to a host, a numeric address, a port and TXT data.
///
/// A browse result is a routing hint only: nothing here is authenticated.
package struct ResolvedService: Hashable, Sendable {
  /// Which instance this resolves.
  package let instance: ServiceInstance
  /// The target host name from the SRV record, e.g. `laptop.local`.
  package let hostName: String
  /// The numeric address, ready for `getaddrinfo`. An IPv6 link-local address
  /// carries its zone, the interface name: `fe80::1%eth0`.
  package let address: String
  /// The port from the SRV record.
  package let port: UInt16
  /// The TXT record parsed leniently by `TXTRecord.parse(_:)`: keys lowercased,
  /// first occurrence of a key wins, a key without `=` maps to "".
  package let txt: [String: String]
  /// The TXT record's strings as received, in wire order.
  package let rawTXT: [[UInt8]]
  /// True when the service is published by this host (`AVAHI_LOOKUP_RESULT_LOCAL`).
  package let isLocal: Bool

  package init(
    instance: ServiceInstance, hostName: String, address: String, port: UInt16,
    txt: [String: String], rawTXT: [[UInt8]], isLocal: Bool
  ) {
    self.instance = instance
    self.hostName = hostName
    self.address = address
    self.port = port
    self.txt = txt
    self.rawTXT = rawTXT
    self.isLocal = isLocal
  }
}
