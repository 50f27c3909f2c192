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
}
