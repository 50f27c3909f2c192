import Glibc
import Synchronization
import System

/// A UDP socket joined to a multicast group on one IPv4 interface: LocalSend's discovery
/// channel (224.0.0.167:53317 by default).
///
/// Bound to the wildcard address on `port` with `SO_REUSEADDR` and `SO_REUSEPORT` (several
/// programs on one host share the port), joined to the group on the interface whose address is
/// `interfaceAddress`, sending through that interface only (`IP_MULTICAST_IF`) with TTL 1
/// (the local link) and loopback on (other programs on this host hear it too). Datagrams from
/// other interfaces are dropped (`IP_MULTICAST_ALL` off), so a channel on 127.0.0.1 never
/// hears, or speaks to, the network.
///
/// `receive()` blocks one thread; `close()` from any thread wakes it (a pipe watched by the
/// same `poll`).
///
/// `@unchecked Sendable`: the descriptors are immutable after `init` and released once, under
/// the mutex, when no call is using them.
package final class MulticastChannel: @unchecked Sendable {
  /// One received datagram.
  package struct Datagram: Sendable {
    package let bytes: [UInt8]
    package let sourceAddress: String
    package let sourcePort: UInt16
  }

  package let group: String
  /// The bound port (the kernel's choice when created with 0).
  package let port: UInt16
  package let interfaceAddress: String
  private let descriptor: Int32
  private let wake: (read: Int32, write: Int32)
  private let state = Mutex((closed: false, busy: 0))

  /// The largest datagram read; longer ones are cut and will fail to parse.
  package static let maxDatagramBytes = 65_507

  package init(
    group: String = LocalSendProtocol.multicastGroup, port: UInt16 = LocalSendProtocol.defaultPort,
    interfaceAddress: String
  ) throws(LocalSendError) {
    var groupAddress = in_addr()
    var interface = in_addr()
    guard inet_pton(AF_INET, group, &groupAddress) == 1, inet_pton(AF_INET, interfaceAddress, &interface) == 1
    else { throw .socket(.system(operation: "inet_pton(\(group), \(interfaceAddress))", errno: Errno(rawValue: EINVAL))) }
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .socket(.system(operation: "socket(AF_INET, SOCK_DGRAM)", errno: .current)) }
    let pipeEnds: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
    do {
      pipeEnds = try FileDescriptor.pipe()
    } catch {
      Glibc.close(fd)
      throw .socket(.system(operation: "pipe", errno: error))
    }
    do throws(LocalSendError) {
      self.port = try Self.configure(fd, group: groupAddress, interface: interface, port: port)
    } catch {
      Glibc.close(fd)
      try? pipeEnds.readEnd.close()
      try? pipeEnds.writeEnd.close()
      throw error
    }
    descriptor = fd
    wake = (pipeEnds.readEnd.rawValue, pipeEnds.writeEnd.rawValue)
    self.group = group
    self.interfaceAddress = interfaceAddress
  }

  deinit {
    Glibc.close(descriptor)
    Glibc.close(wake.read)
    Glibc.close(wake.write)
  }

  /// Options, bind and membership; returns the bound port.
  private static func configure(_ fd: Int32, group: in_addr, interface: in_addr, port: UInt16)
    throws(LocalSendError) -> UInt16
  {
    func option<T: BitwiseCopyable>(_ level: Int32, _ name: Int32, _ value: T, _ label: String) throws(LocalSendError) {
      let rc = withUnsafeBytes(of: value) { setsockopt(fd, level, name, $0.baseAddress, socklen_t($0.count)) }
      guard rc == 0 else {
        throw .socket(.system(operation: "setsockopt(\(label))", errno: .current))
      }
    }
    try option(SOL_SOCKET, SO_REUSEADDR, Int32(1), "SO_REUSEADDR")
    try option(SOL_SOCKET, SO_REUSEPORT, Int32(1), "SO_REUSEPORT")
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = INADDR_ANY
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else { throw .socket(.system(operation: "bind(UDP \(port))", errno: .current)) }
    try option(Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, ip_mreq(imr_multiaddr: group, imr_interface: interface), "IP_ADD_MEMBERSHIP")
    try option(Int32(IPPROTO_IP), IP_MULTICAST_ALL, Int32(0), "IP_MULTICAST_ALL")
    try option(Int32(IPPROTO_IP), IP_MULTICAST_IF, interface, "IP_MULTICAST_IF")
    try option(Int32(IPPROTO_IP), IP_MULTICAST_TTL, UInt8(1), "IP_MULTICAST_TTL")
    try option(Int32(IPPROTO_IP), IP_MULTICAST_LOOP, UInt8(1), "IP_MULTICAST_LOOP")
    var local = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else { throw .socket(.system(operation: "getsockname", errno: .current)) }
    return UInt16(bigEndian: local.sin_port)
  }

  /// Sends one datagram to the group.
  package func send(_ bytes: [UInt8]) throws(LocalSendError) {
    try use { fd throws(LocalSendError) in
      var target = sockaddr_in()
      target.sin_family = sa_family_t(AF_INET)
      target.sin_port = port.bigEndian
      _ = inet_pton(AF_INET, group, &target.sin_addr)
      let sent = bytes.withUnsafeBytes { raw in
        withUnsafePointer(to: &target) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
          }
        }
      }
      guard sent == bytes.count else { throw .socket(.system(operation: "sendto(\(group):\(port))", errno: .current)) }
    }
  }

  /// The next datagram; nil once `close()` was called.
  package func receive() throws(LocalSendError) -> Datagram? {
    do {
      return try use { fd throws(LocalSendError) -> Datagram? in try receive(on: fd) }
    } catch .socket(.listenerClosed) {
      return nil
    }
  }

  private func receive(on fd: Int32) throws(LocalSendError) -> Datagram? {
    var buffer = [UInt8](repeating: 0, count: Self.maxDatagramBytes)
    while true {
      var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
      if poll(&entries, 2, -1) < 0 {
        if Errno.current == .interrupted { continue }
        throw .socket(.system(operation: "poll", errno: .current))
      }
      if entries[1].revents != 0 { return nil }
      var source = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let count = buffer.withUnsafeMutableBytes { raw in
        withUnsafeMutablePointer(to: &source) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, raw.baseAddress, raw.count, 0, $0, &length) }
        }
      }
      if count < 0 {
        if Errno.current == .interrupted || Errno.current.rawValue == EAGAIN { continue }
        throw .socket(.system(operation: "recvfrom", errno: .current))
      }
      var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
      inet_ntop(AF_INET, &source.sin_addr, &text, socklen_t(text.count))
      let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      return Datagram(bytes: Array(buffer[0..<count]), sourceAddress: address, sourcePort: UInt16(bigEndian: source.sin_port))
    }
  }

  /// Wakes a blocked `receive` (which returns nil); later calls fail. Any thread, idempotent.
  package func close() {
    state.withLock { state in
      guard !state.closed else { return }
      state.closed = true
      var one: UInt8 = 1
      _ = Glibc.write(wake.write, &one, 1)
    }
  }

  private func use<T>(_ body: (Int32) throws(LocalSendError) -> T) throws(LocalSendError) -> T {
    let open = state.withLock { state -> Bool in
      guard !state.closed else { return false }
      state.busy += 1
      return true
    }
    guard open else { throw .socket(.listenerClosed) }
    defer { state.withLock { $0.busy -= 1 } }
    return try body(descriptor)
  }
}
