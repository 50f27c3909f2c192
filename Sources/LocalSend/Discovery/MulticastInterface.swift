import Glibc

extension MulticastChannel {
  /// Whether `text` is a dotted IPv4 address (`inet_pton`).
  package static func isIPv4(_ text: String) -> Bool {
    var address = in_addr()
    return inet_pton(AF_INET, text, &address) == 1
  }

  /// The IPv4 address of the first interface that is up, running, multicast-capable and not
  /// loopback (`getifaddrs`), as Avahi would choose by default; nil when there is none.
  package static func defaultInterfaceAddress() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>? = nil
    guard getifaddrs(&list) == 0 else { return nil }
    defer { freeifaddrs(list) }
    let wanted = UInt32(IFF_UP) | UInt32(IFF_RUNNING) | UInt32(IFF_MULTICAST)
    var entry = list
    while let current = entry {
      defer { entry = current.pointee.ifa_next }
      let flags = current.pointee.ifa_flags
      guard flags & wanted == wanted, flags & UInt32(IFF_LOOPBACK) == 0,
        let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET)
      else { continue }
      var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
      let found = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
        var raw = inet.pointee.sin_addr
        return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
      }
      if found { return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }
    return nil
  }
}
