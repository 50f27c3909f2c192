internal import CAvahi

#if canImport(Glibc)
  import Glibc
#endif

// Conversions between Avahi's C types and Swift values. Nothing here keeps a
// pointer: every function copies what it needs before returning.

/// Avahi's text for an error code (`avahi_strerror`; static storage, never freed).
func avahiMessage(_ code: Int32) -> String {
  guard let text = avahi_strerror(code) else { return "unknown Avahi error" }
  return String(cString: text)
}

/// The last error of a client (`avahi_client_errno`), as a code and its text.
func avahiLastError(_ client: OpaquePointer?) -> (code: Int32, message: String) {
  guard let client else {
    return (Int32(AVAHI_ERR_FAILURE), avahiMessage(Int32(AVAHI_ERR_FAILURE)))
  }
  let code = avahi_client_errno(client)
  return (code, avahiMessage(code))
}

/// A client for looking things up (`avahi_client_new` on `loop`), without
/// AVAHI_CLIENT_NO_FAIL: a user waiting for peers must hear at once that Avahi
/// is not there, rather than wait for it. The caller frees it
/// (`avahi_client_free`) before the loop.
func newLookupClient(
  _ loop: AvahiEventLoop, callback: AvahiClientCallback, userdata: UnsafeMutableRawPointer
) throws(DiscoveryError) -> OpaquePointer {
  var error: Int32 = 0
  guard let client = avahi_client_new(loop.api, AvahiClientFlags(0), callback, userdata, &error)
  else {
    switch error {
    case Int32(AVAHI_ERR_NO_DAEMON), Int32(AVAHI_ERR_DBUS_ERROR), Int32(AVAHI_ERR_DISCONNECTED):
      throw .daemonUnreachable(detail: "avahi_client_new: \(avahiMessage(error))")
    default:
      throw .avahi(call: "avahi_client_new", code: error, message: avahiMessage(error))
    }
  }
  return client
}

/// A Swift string from a C string owned by Avahi; invalid UTF-8 is repaired
/// (U+FFFD), a NULL pointer gives "".
func swiftString(_ cString: UnsafePointer<CChar>?) -> String {
  guard let cString else { return "" }
  return String(cString: cString)
}

/// The name of interface `index` (`if_indextoname`), or "" when it has none.
func interfaceName(_ index: Int32) -> String {
  guard index > 0 else { return "" }
  var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
  let name = buffer.withUnsafeMutableBufferPointer { buffer -> String? in
    guard let base = buffer.baseAddress, if_indextoname(UInt32(index), base) != nil else {
      return nil
    }
    return String(cString: base)
  }
  return name ?? ""
}

/// Maps `AvahiProtocol` to `IPProtocol`; nil for AVAHI_PROTO_UNSPEC or anything unknown.
func ipProtocol(_ proto: AvahiProtocol) -> IPProtocol? {
  switch proto {
  case AvahiProtocol(AVAHI_PROTO_INET): .ipv4
  case AvahiProtocol(AVAHI_PROTO_INET6): .ipv6
  default: nil
  }
}

/// The `AvahiProtocol` value for `IPProtocol`.
func avahiProtocol(_ proto: IPProtocol) -> AvahiProtocol {
  switch proto {
  case .ipv4: AvahiProtocol(AVAHI_PROTO_INET)
  case .ipv6: AvahiProtocol(AVAHI_PROTO_INET6)
  }
}

/// The instance an Avahi callback names, with its interface's name.
func serviceInstance(
  interface: AvahiIfIndex, version: IPProtocol, name: UnsafePointer<CChar>?,
  type: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?
) -> ServiceInstance {
  ServiceInstance(
    name: swiftString(name), type: swiftString(type), domain: swiftString(domain),
    interfaceIndex: interface, interfaceName: interfaceName(interface), ipProtocol: version)
}

/// What a resolver found for `instance`, TXT record parsed and raw; nil when
/// the address cannot be formatted.
func resolvedService(
  _ instance: ServiceInstance, host: UnsafePointer<CChar>?, address: UnsafePointer<AvahiAddress>,
  port: UInt16, txt: UnsafeMutablePointer<AvahiStringList>?, isLocal: Bool
) -> ResolvedService? {
  guard let text = numericAddress(address, interfaceName: instance.interfaceName) else { return nil }
  let raw = wireOrderStrings(txt)
  return ResolvedService(
    instance: instance, hostName: swiftString(host), address: text, port: port,
    txt: TXTRecord.parse(raw), rawTXT: raw, isLocal: isLocal)
}

/// Whether a lookup result comes from this host (AVAHI_LOOKUP_RESULT_LOCAL).
func isLocal(_ flags: AvahiLookupResultFlags) -> Bool {
  flags.rawValue & AVAHI_LOOKUP_RESULT_LOCAL.rawValue != 0
}

/// Formats an address numerically (`avahi_address_snprint`), with the zone
/// of an IPv6 link-local address (see `zonedAddress`).
func numericAddress(_ address: UnsafePointer<AvahiAddress>, interfaceName: String) -> String? {
  var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
  let text = buffer.withUnsafeMutableBufferPointer { buffer -> String? in
    guard let base = buffer.baseAddress,
      avahi_address_snprint(base, buffer.count, address) != nil
    else { return nil }
    return String(cString: base)
  }
  guard let text, !text.isEmpty else { return nil }
  return zonedAddress(text, interfaceName: interfaceName)
}

/// Appends `%interfaceName` to a textual IPv6 link-local address (fe80::/10),
/// without which it cannot be connected to; other addresses are returned as
/// they are, as is one already carrying a zone. Pure.
func zonedAddress(_ address: String, interfaceName: String) -> String {
  guard !interfaceName.isEmpty, address.contains(":"), !address.contains("%") else {
    return address
  }
  let lower = address.lowercased()
  let linkLocal =
    ["fe8", "fe9", "fea", "feb"].contains { lower.hasPrefix($0) }
    && lower.split(separator: ":", omittingEmptySubsequences: false).first?.count == 4
  return linkLocal ? address + "%" + interfaceName : address
}

/// The strings of a resolver's `AvahiStringList`, in wire order: the order
/// libavahi-client hands them over (checked against the packets avahi-daemon
/// sends: `avahi-publish ... a=1 b=2` arrives as a=1, b=2). The list stays
/// owned by the caller.
func wireOrderStrings(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [[UInt8]] {
  var strings: [[UInt8]] = []
  var node = list
  while let current = node {
    let size = avahi_string_list_get_size(current)
    if let text = avahi_string_list_get_text(current), size > 0 {
      strings.append(Array(UnsafeBufferPointer(start: text, count: size)))
    } else {
      strings.append([])
    }
    node = avahi_string_list_get_next(current)
  }
  return strings
}

/// Builds an `AvahiStringList` that avahi-daemon sends in the order of
/// `strings`. `avahi_string_list_add_arbitrary` prepends, and a list handed to
/// `avahi_entry_group_add_service_strlst` goes on the wire last-added first,
/// as with `avahi-publish`, which adds its arguments in order.
/// The caller owns the result and frees it with `avahi_string_list_free`.
/// Returns nil for an empty array (an empty list) and on allocation failure,
/// which `ok` tells apart.
func makeStringList(_ strings: [[UInt8]]) -> (
  list: UnsafeMutablePointer<AvahiStringList>?, ok: Bool
) {
  var list: UnsafeMutablePointer<AvahiStringList>? = nil
  for string in strings {
    let next = string.withUnsafeBufferPointer { bytes in
      avahi_string_list_add_arbitrary(list, bytes.baseAddress, bytes.count)
    }
    guard let next else {
      avahi_string_list_free(list)
      return (nil, false)
    }
    list = next
  }
  return (list, true)
}
