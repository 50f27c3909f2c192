/// Longest instance name DNS allows: one label, 63 bytes of UTF-8.
let maximumServiceNameLength = 63

/// Checks an instance name we are about to publish: 1...63 bytes of UTF-8 and
/// no control characters (C0, DEL, C1), so what we announce prints as it is.
/// Names received from the network are not checked; they are kept as sent.
func validateServiceName(_ name: String) throws(DiscoveryError) {
  guard !name.isEmpty else {
    throw .invalidServiceName(name, reason: "it is empty")
  }
  guard name.utf8.count <= maximumServiceNameLength else {
    throw .invalidServiceName(
      name, reason: "it is longer than \(maximumServiceNameLength) bytes of UTF-8")
  }
  guard
    !name.unicodeScalars.contains(where: { scalar in
      scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    })
  else {
    throw .invalidServiceName(name, reason: "it contains control characters")
  }
}
