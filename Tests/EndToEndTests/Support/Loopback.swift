import Foundation
import Glibc
import System
import TLS

/// A TCP port on 127.0.0.1 that was free a moment ago: bound by the kernel's choice, then
/// released. Nothing listens on it afterwards (barring a rare reuse by another process).
func unusedLoopbackPort() throws -> UInt16 {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
  defer { close(fd) }
  var address = ipv4(port: 0)
  let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  guard bound == 0 else { throw HarnessError("bind: errno \(errno)") }
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let named = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
  }
  guard named == 0 else { throw HarnessError("getsockname: errno \(errno)") }
  return UInt16(bigEndian: address.sin_port)
}

/// The IPv4 socket address `host`:`port`; `host` is a numeric address.
private func ipv4(_ host: String = "127.0.0.1", port: UInt16) -> sockaddr_in {
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = port.bigEndian
  inet_pton(AF_INET, host, &address.sin_addr)
  return address
}

/// A TCP connection to 127.0.0.1:`port`, from the loopback source address `source` (127.0.0.2,
/// ...) when one is given, as a peer on another host would come.
func loopbackSocket(to port: UInt16, from source: String? = nil) throws -> Socket {
  guard let source else { return try Socket.connect(host: "127.0.0.1", port: port, timeout: .seconds(5)) }
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
  guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
  var local = ipv4(source, port: 0)
  var remote = ipv4(port: port)
  let length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
  let connected =
    bound == 0
    && withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } } == 0
  guard connected else {
    let code = errno
    close(fd)
    throw HarnessError("connect from \(source) to port \(port): errno \(code)")
  }
  return try Socket(adopting: fd)
}

/// A TLS 1.3 client connection to 127.0.0.1:`port` (from `source`: see `loopbackSocket`), its
/// handshake finished within `timeout`.
func loopbackTLS(to port: UInt16, context: TLSContext, from source: String? = nil, timeout: Duration) throws
  -> TLSConnection
{
  try TLSConnection.connect(loopbackSocket(to: port, from: source), context: context, timeout: timeout)
}

/// A plain (not TLS) TCP connection to 127.0.0.1, closed when it goes away.
final class PlainConnection {
  let fd: Int32

  init(port: UInt16) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
    var address = ipv4(port: port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
      let code = errno
      close(fd)
      throw HarnessError("connect to port \(port): errno \(code)")
    }
    // Reads give up after 20 s rather than hang a test.
    var timeout = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { close(fd) }

  func send(_ text: String) throws { try send(bytes: Array(text.utf8)) }

  /// Sends bytes as they are (not as text): garbage before any TLS, say.
  func send(bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw HarnessError("send: errno \(errno)") }
      offset += n
    }
  }

  /// Reads until the peer closes (or resets) the connection; nil if it stays open past the
  /// receive timeout.
  func readToEnd() -> Data? {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 {
        data.append(contentsOf: buffer[0..<n])
        continue
      }
      if n == 0 { return data }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return nil
      default: return data  // ECONNRESET and the like: closed
      }
    }
  }
}
