/// The IP version an mDNS record was seen over (Avahi's `AvahiProtocol`).
///
/// This is the transport of the announcement, which is also the family of the
/// address `ServiceBrowser` resolves for it: an instance seen over IPv6 resolves
/// to an IPv6 address.
package enum IPProtocol: String, Sendable, Hashable, CustomStringConvertible {
  case ipv4
  case ipv6

  package var description: String {
    switch self {
    case .ipv4: "IPv4"
    case .ipv6: "IPv6"
    }
  }
}
