import Glibc

/// A resolved socket address copied out of `getaddrinfo`'s list, so no C memory outlives the call.
struct SocketAddress {
  /// `AF_INET` or `AF_INET6`.
  var family: Int32
  /// The protocol `getaddrinfo` chose (TCP).
  var proto: Int32
  /// The address bytes; only the first `length` bytes are meaningful.
  var storage: sockaddr_storage
  /// The length of the address in `storage`.
  var length: socklen_t

  /// Resolves `host` for a TCP stream with `getaddrinfo` (`AI_NUMERICSERV`, plus `AI_PASSIVE` for
  /// listening). Accepts names, IPv4 and IPv6 literals, IPv6 literals in brackets ("[::1]") and
  /// scoped IPv6 literals ("fe80::1%eth0"). Returns the addresses in `getaddrinfo`'s order.
  static func resolve(host: String, port: UInt16, passive: Bool) throws(SocketError)
    -> [SocketAddress]
  {
    let name = unbracketed(host)
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
    var list: UnsafeMutablePointer<addrinfo>? = nil
    let rc = getaddrinfo(name, String(port), &hints, &list)
    guard rc == 0 else {
      // EAI_SYSTEM means the real cause is in errno.
      let message =
        rc == EAI_SYSTEM ? Errno.current.description : String(cString: gai_strerror(rc))
      throw .resolve(host: host, code: rc, message: message)
    }
    defer { freeaddrinfo(list) }
    var result: [SocketAddress] = []
    var cursor = list
    while let info = cursor {
      let entry = info.pointee
      if let address = entry.ai_addr,
        entry.ai_family == AF_INET || entry.ai_family == AF_INET6,
        Int(entry.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size
      {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { destination in
          destination.copyMemory(
            from: UnsafeRawBufferPointer(start: address, count: Int(entry.ai_addrlen)))
        }
        result.append(
          SocketAddress(
            family: entry.ai_family, proto: entry.ai_protocol, storage: storage,
            length: entry.ai_addrlen))
      }
      cursor = entry.ai_next
    }
    if result.isEmpty {
      throw .resolve(host: host, code: EAI_NONAME, message: "no IPv4 or IPv6 address")
    }
    return result
  }

  /// Strips the brackets of an IPv6 literal written as in a URL ("[::1]" -> "::1").
  static func unbracketed(_ host: String) -> String {
    if host.hasPrefix("["), host.hasSuffix("]"), host.count >= 2 {
      return String(host.dropFirst().dropLast())
    }
    return host
  }

  /// Calls `body` with the address as a `sockaddr *` and its length.
  func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
    withUnsafeBytes(of: storage) { raw in
      body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
    }
  }

  /// The numeric host and port (`getnameinfo` with `NI_NUMERICHOST | NI_NUMERICSERV`).
  /// An IPv4-mapped IPv6 address (::ffff:a.b.c.d, seen on dual-stack listeners) is shown as IPv4;
  /// a scoped IPv6 address keeps its zone ("fe80::1%eth0").
  func numericName() -> (host: String, port: UInt16) {
    var address = self
    if family == AF_INET6 {
      let v6 = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }
      let b = withUnsafeBytes(of: v6.sin6_addr) { Array($0) }
      let mapped = b[0..<10].allSatisfy { $0 == 0 } && b[10] == 0xff && b[11] == 0xff
      if mapped {
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = v6.sin6_port
        withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: b[12..<16]) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { destination in
          withUnsafeBytes(of: v4) { destination.copyMemory(from: $0) }
        }
        address = SocketAddress(
          family: AF_INET, proto: proto, storage: storage,
          length: socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    var hostBuffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    var serviceBuffer = [CChar](repeating: 0, count: Int(NI_MAXSERV))
    let rc = address.withSockaddr { pointer, length in
      getnameinfo(
        pointer, length, &hostBuffer, socklen_t(hostBuffer.count), &serviceBuffer,
        socklen_t(serviceBuffer.count), NI_NUMERICHOST | NI_NUMERICSERV)
    }
    let port = address.port
    guard rc == 0 else { return ("?", port) }
    return (cString(hostBuffer), port)
  }

  /// The port in host byte order.
  var port: UInt16 {
    withUnsafeBytes(of: storage) { raw in
      family == AF_INET6
        ? UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
        : UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
    }
  }

  /// The peer address of a connected socket. The corresponding C function is `getpeername`.
  static func peer(of fd: Int32) throws(Errno) -> SocketAddress {
    try address(of: fd, getpeername)
  }

  /// The local address of a socket. The corresponding C function is `getsockname`.
  static func local(of fd: Int32) throws(Errno) -> SocketAddress {
    try address(of: fd, getsockname)
  }

  /// The address `call` (`getpeername` or `getsockname`) reports for `fd`.
  private static func address(
    of fd: Int32,
    _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
  ) throws(Errno) -> SocketAddress {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    try nothingOrErrno {
      withUnsafeMutablePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, &length) }
      }
    }
    return SocketAddress(
      family: Int32(storage.ss_family), proto: 0, storage: storage, length: length)
  }
}

/// A Swift string from a NUL-terminated C buffer.
func cString(_ buffer: [CChar]) -> String {
  String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
