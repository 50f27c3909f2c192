/// The DNS-SD service type `share` peers advertise and browse: `_share._tcp`.
package let defaultServiceType = "_share._tcp"

/// Checks a DNS-SD service type: `_name._tcp` or `_name._udp`, the name 1...15
/// letters, digits or hyphens (RFC 6335 §5.1). Avahi would refuse others later,
/// less clearly.
func validateServiceType(_ type: String) throws(DiscoveryError) {
  let labels = type.split(separator: ".", omittingEmptySubsequences: false)
  guard labels.count == 2, labels[1] == "_tcp" || labels[1] == "_udp",
    labels[0].first == "_"
  else { throw .invalidServiceType(type) }
  let name = labels[0].utf8.dropFirst()
  guard (1...15).contains(name.count),
    name.allSatisfy({ byte in
      (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
        || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
    })
  else { throw .invalidServiceType(type) }
}
