import CLinux
import Glibc

/// The address of a Unix-domain socket: a path in the file system, or a name in Linux's
/// abstract namespace.
package struct UnixSocketAddress: Sendable {
  /// The longest name Linux accepts (`sun_path` less the terminating NUL).
  package static let maxPathBytes = 107

  private var address: sockaddr_un
  private var length: socklen_t

  /// The socket at `path`; nil when the path is over `maxPathBytes` bytes.
  package init?(path: String) {
    self.init(name: Array(path.utf8) + [0])
  }

  /// The socket at `name` in the abstract namespace (no file; `sd_notify` writes such a name as
  /// "@name"); nil when the name is over `maxPathBytes` bytes.
  package init?(abstractName name: String) {
    self.init(name: [0] + Array(name.utf8))
  }

  /// `bytes` is `sun_path` as stored: NUL-terminated for a path, NUL-led for an abstract name.
  private init?(name bytes: [UInt8]) {
    guard bytes.count <= Self.maxPathBytes + 1 else { return nil }
    address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
  }

  /// Calls `body` with the address as a `sockaddr *` and its length.
  func withSockaddr<Value>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Value) -> Value {
    withUnsafePointer(to: address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
    }
  }
}

extension FileDescriptor {
  /// Whether a Unix-domain socket carries a byte stream or datagrams.
  package enum UnixSocketKind: Sendable {
    case stream, datagram

    var rawValue: Int32 {
      self == .stream ? Int32(SOCK_STREAM.rawValue) : Int32(SOCK_DGRAM.rawValue)
    }
  }

  /// A new Unix-domain socket, close-on-exec. The corresponding C function is `socket`.
  package static func unixSocket(_ kind: UnixSocketKind) throws(Errno) -> FileDescriptor {
    let type = kind.rawValue | Int32(SOCK_CLOEXEC.rawValue)
    return FileDescriptor(rawValue: try valueOrErrno { socket(AF_UNIX, type, 0) })
  }

  /// Binds the socket to `address`. The corresponding C function is `bind`.
  package func bind(to address: UnixSocketAddress) throws(Errno) {
    try nothingOrErrno { address.withSockaddr { Glibc.bind(rawValue, $0, $1) } }
  }

  /// Starts accepting connections. The corresponding C function is `listen`.
  package func listen(backlog: Int32) throws(Errno) {
    try nothingOrErrno { Glibc.listen(rawValue, backlog) }
  }

  /// Waits for the next connection on a listening socket; the new descriptor is blocking and
  /// close-on-exec. Retries `EINTR` and a connection aborted while queued. The corresponding C
  /// function is `accept4` with `SOCK_CLOEXEC`.
  package func accept() throws(Errno) -> FileDescriptor {
    while true {
      do {
        return FileDescriptor(rawValue: try valueOrErrno { clinux_accept_cloexec(rawValue) })
      } catch  where error == Errno(rawValue: ECONNABORTED) {
        continue
      }
    }
  }

  /// Connects the socket to `address`. The corresponding C function is `connect`.
  package func connect(to address: UnixSocketAddress) throws(Errno) {
    try nothingOrErrno { address.withSockaddr { Glibc.connect(rawValue, $0, $1) } }
  }

  /// Sends one datagram to `address`, without raising SIGPIPE; returns the bytes sent. The
  /// corresponding C function is `sendto` with `MSG_NOSIGNAL`.
  package func send(_ bytes: [UInt8], to address: UnixSocketAddress) throws(Errno) -> Int {
    try valueOrErrno {
      address.withSockaddr { sendto(rawValue, bytes, bytes.count, Int32(MSG_NOSIGNAL), $0, $1) }
    }
  }
}

extension FileSystem {
  /// Runs `body` with the process's file mode creation mask set to `mask`, then restores it:
  /// how a socket file is born with the right mode (`bind` has no mode argument). The mask is
  /// process-wide, so files other threads create meanwhile get it too. The corresponding C
  /// function is `umask`.
  package static func withCreationMask<Value, Failure: Error>(
    _ mask: FilePermissions, _ body: () throws(Failure) -> Value
  ) throws(Failure) -> Value {
    let previous = umask(mask.rawValue)
    defer { umask(previous) }
    return try body()
  }
}
