import TextEscaping

/// One DNS-SD service instance as seen on one interface over one IP version.
///
/// The same advertised service seen on two interfaces, or over IPv4 and IPv6,
/// is two instances: each resolves to an address reachable through its own
/// interface. `name` is exactly what the network sent (it may hold control
/// characters or escape sequences); show it through `Escaping.escaped(_:, maximumLength: .max)`.
package struct ServiceInstance: Hashable, Sendable {
  /// The instance name (the first label), unescaped, as received.
  package let name: String
  /// The service type, e.g. `_share._tcp`.
  package let type: String
  /// The domain, normally `local`.
  package let domain: String
  /// The kernel index of the interface the instance was seen on.
  package let interfaceIndex: Int32
  /// The name of that interface (`if_indextoname`), e.g. `eth0`; empty when unknown.
  package let interfaceName: String
  /// The IP version the announcement arrived over.
  package let ipProtocol: IPProtocol

  package init(
    name: String, type: String, domain: String, interfaceIndex: Int32, interfaceName: String,
    ipProtocol: IPProtocol
  ) {
    self.name = name
    self.type = type
    self.domain = domain
    self.interfaceIndex = interfaceIndex
    self.interfaceName = interfaceName
    self.ipProtocol = ipProtocol
  }

  /// Instances are the same when the network sent the same bytes: `String`'s own equality is
  /// canonical equivalence, under which `café` written with U+00E9 and with `e` + U+0301 — two
  /// instance names Avahi publishes side by side — were one key, and one device hid the other
  /// from `share peers` and from the choice of a send (review 36).
  package static func == (lhs: ServiceInstance, rhs: ServiceInstance) -> Bool {
    lhs.interfaceIndex == rhs.interfaceIndex && lhs.ipProtocol == rhs.ipProtocol
      && lhs.name.utf8.elementsEqual(rhs.name.utf8) && lhs.type.utf8.elementsEqual(rhs.type.utf8)
      && lhs.domain.utf8.elementsEqual(rhs.domain.utf8) && lhs.interfaceName.utf8.elementsEqual(rhs.interfaceName.utf8)
  }

  package func hash(into hasher: inout Hasher) {
    for text in [name, type, domain, interfaceName] {
      text.utf8.forEach { hasher.combine($0) }
      hasher.combine(0xFF as UInt8)
    }
    hasher.combine(interfaceIndex)
    hasher.combine(ipProtocol)
  }
}
