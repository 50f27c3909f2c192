import CLinux
import Glibc

/// A listening TCP socket.
///
/// By default it listens dual-stack on "::" with `IPV6_V6ONLY` off, so IPv4 peers arrive as
/// IPv4-mapped addresses (shown as IPv4 by `Socket.peerAddress`); without IPv6 it falls back to
/// "0.0.0.0". `SO_REUSEADDR` is on, so a restarted daemon can rebind at once.
///
/// `accept()` blocks the calling thread and may be called from several threads. `close()` may
/// be called from any thread: it wakes every blocked `accept()` (through an eventfd watched by the
/// same `poll`), which then throws `SocketError.listenerClosed`. No polling loop is involved.
package final class TCPListener: Sendable {
  /// The listening descriptor (non-blocking) and the eventfd that `close()` signals, closed by
  /// one thread while `accept()` may be using them on others.
  private let descriptors: SharedDescriptors

  /// The bound port; the kernel's choice when the listener was created with port 0.
  package let port: UInt16
  /// The bound numeric address ("::", "0.0.0.0", "127.0.0.1", ...).
  package let host: String

  /// Binds and listens.
  ///
  /// - Parameters:
  ///   - host: the address to bind; nil for all interfaces, dual-stack. Names and literals are
  ///     resolved with `getaddrinfo` (`AI_PASSIVE`); the first address that binds is used.
  ///   - port: the port; 0 lets the kernel choose (read it back from `port`).
  ///   - backlog: the `listen(2)` backlog.
  package init(host: String? = nil, port: UInt16, backlog: Int32 = 128) throws(SocketError) {
    let wakeFD: Int32
    do {
      wakeFD = try valueOrErrno { clinux_eventfd_cloexec() }
    } catch {
      throw .system(operation: "eventfd", errno: error)
    }
    let fd: Int32
    do {
      fd = try Self.bindListeningSocket(host: host, port: port, backlog: backlog)
    } catch {
      Glibc.close(wakeFD)
      throw error
    }
    let local: SocketAddress
    do {
      local = try SocketAddress.local(of: fd)
    } catch {
      Glibc.close(fd)
      Glibc.close(wakeFD)
      throw .system(operation: "getsockname", errno: error)
    }
    let name = local.numericName()
    self.port = name.port
    self.host = name.host
    self.descriptors = SharedDescriptors([fd, wakeFD])
  }

  /// Waits for the next connection and returns it as a blocking `Socket` with `TCP_NODELAY`.
  ///
  /// Uses `poll` on the listening socket and the close eventfd, then `accept4(SOCK_CLOEXEC)`.
  /// Retries the transient errors Linux reports for connections that died in the queue
  /// (`ECONNABORTED`, `EPROTO`, network-down codes). Throws `.listenerClosed` once `close()` is
  /// called, and `.accept(errno)` for `EMFILE`/`ENFILE`/`ENOBUFS`/`ENOMEM`: the listener stays
  /// usable, but the caller should pause before calling again, since the pending connection
  /// keeps the socket readable.
  package func accept() throws(SocketError) -> Socket {
    guard let acquired = descriptors.acquire() else { throw .listenerClosed }
    defer { descriptors.release() }
    let (fd, wakeFD) = (acquired[0], acquired[1])
    while true {
      var entries = [
        pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
      ]
      do {
        _ = try valueOrErrno { poll(&entries, 2, -1) }
      } catch {
        throw .system(operation: "poll", errno: error)
      }
      if entries[1].revents != 0 || descriptors.isClosed { throw .listenerClosed }
      let client: Int32
      do {
        client = try valueOrErrno { clinux_accept_cloexec(fd) }
      } catch  where Self.transientAcceptErrors.contains(error.rawValue) {
        continue
      } catch {
        throw .accept(errno: error)
      }
      do {
        return try Socket(adopting: client)
      } catch {
        // The peer vanished between accept and getpeername (ENOTCONN): wait for the next one.
        continue
      }
    }
  }

  /// `accept4` failures that concern one queued connection, not the listener (accept(2),
  /// "Error handling"), and `EAGAIN` when another thread took the connection first.
  private static let transientAcceptErrors: Set<Int32> = [
    EAGAIN, ECONNABORTED, EPROTO, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH,
    EOPNOTSUPP, ENETUNREACH, ETIMEDOUT,
  ]

  /// Accepts until the listener is closed, handing each connection to `handle` on the calling
  /// thread (which should pass it on quickly). A failure that leaves the listener usable (out of
  /// descriptors or memory) goes to `failed`, then the loop pauses 0.1 s rather than spin on a
  /// socket that stays readable. The one accept loop of every server here.
  package func acceptUntilClosed(failed: (SocketError) -> Void = { _ in }, _ handle: (Socket) -> Void) {
    while true {
      do {
        handle(try accept())
      } catch .listenerClosed {
        return
      } catch {
        failed(error)
        usleep(100_000)
      }
    }
  }

  /// Stops listening. Safe from any thread and idempotent: wakes every blocked `accept()` (which
  /// throws `.listenerClosed`) and releases the descriptors once none is using them.
  package func close() {
    descriptors.close { descriptors in
      var one: UInt64 = 1
      _ = Glibc.write(descriptors[1], &one, MemoryLayout<UInt64>.size)
    }
  }

  /// Creates, configures, binds and listens; returns the non-blocking listening descriptor.
  private static func bindListeningSocket(host: String?, port: UInt16, backlog: Int32)
    throws(SocketError) -> Int32
  {
    var candidates: [SocketAddress]
    if let host {
      candidates = try SocketAddress.resolve(host: host, port: port, passive: true)
    } else {
      candidates = [
        anyAddress(family: AF_INET6, port: port), anyAddress(family: AF_INET, port: port),
      ]
    }
    var lastError: SocketError = .system(operation: "socket", errno: .addressFamilyNotSupported)
    for address in candidates {
      let displayHost = host ?? (address.family == AF_INET6 ? "::" : "0.0.0.0")
      do {
        return try listen(on: address, backlog: backlog)
      } catch {
        switch error {
        case .bind(let code):
          lastError = .bind(host: displayHost, port: port, errno: code)
          // Without IPv6 fall back to IPv4; any other failure (EADDRINUSE...) is the answer.
          if code == .addressFamilyNotSupported || code == .addressNotAvailable { continue }
          throw lastError
        case .socket(let code):
          lastError = .system(operation: "socket", errno: code)
        case .setup(let operation, let code):
          lastError = .system(operation: operation, errno: code)
          if operation == "listen" { throw lastError }
        }
      }
    }
    throw lastError
  }

  /// Where setting up one listening socket failed.
  private enum ListenFailure: Error {
    case socket(Errno)
    case bind(Errno)
    case setup(String, Errno)
  }

  /// One listening socket on `address`, `SO_REUSEADDR` on and dual-stack on "::"; the
  /// descriptor is closed on failure.
  private static func listen(on address: SocketAddress, backlog: Int32) throws(ListenFailure)
    -> Int32
  {
    let kind =
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    let fd: Int32
    do {
      fd = try valueOrErrno { socket(address.family, kind, 0) }
    } catch {
      throw .socket(error)
    }
    var step = "setsockopt(SO_REUSEADDR)"
    do {
      try setOption(fd, SOL_SOCKET, SO_REUSEADDR, Int32(1))
      if address.family == AF_INET6 && address.isUnspecified {
        // Dual stack: also accept IPv4 on "::" whatever the net.ipv6.bindv6only default is.
        try? setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, Int32(0))
      }
      step = "bind"
      try nothingOrErrno { address.withSockaddr { bind(fd, $0, $1) } }
      step = "listen"
      try nothingOrErrno { Glibc.listen(fd, backlog) }
      return fd
    } catch {
      Glibc.close(fd)
      throw step == "bind" ? .bind(error) : .setup(step, error)
    }
  }

  /// The wildcard address of `family` ("::" or "0.0.0.0") with `port`.
  private static func anyAddress(family: Int32, port: UInt16) -> SocketAddress {
    var storage = sockaddr_storage()
    let length: Int
    if family == AF_INET6 {
      var v6 = sockaddr_in6()
      v6.sin6_family = sa_family_t(AF_INET6)
      v6.sin6_port = port.bigEndian
      v6.sin6_addr = in6addr_any
      withUnsafeMutableBytes(of: &storage) { d in withUnsafeBytes(of: v6) { d.copyMemory(from: $0) }
      }
      length = MemoryLayout<sockaddr_in6>.size
    } else {
      var v4 = sockaddr_in()
      v4.sin_family = sa_family_t(AF_INET)
      v4.sin_port = port.bigEndian
      v4.sin_addr = in_addr(s_addr: INADDR_ANY)
      withUnsafeMutableBytes(of: &storage) { d in withUnsafeBytes(of: v4) { d.copyMemory(from: $0) }
      }
      length = MemoryLayout<sockaddr_in>.size
    }
    return SocketAddress(family: family, proto: 0, storage: storage, length: socklen_t(length))
  }
}

extension SocketAddress {
  /// True for the IPv6 wildcard "::".
  var isUnspecified: Bool {
    guard family == AF_INET6 else { return false }
    let v6 = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }
    return withUnsafeBytes(of: v6.sin6_addr) { $0.allSatisfy { $0 == 0 } }
  }
}
