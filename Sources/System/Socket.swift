import Glibc

/// A connected TCP stream socket that owns its file descriptor.
///
/// The descriptor is closed by `close()` or, failing that, in `deinit`. I/O normally happens on
/// one thread (the connection's thread); `close()` may be called from any thread to abort it: it
/// shuts the socket down at once, which wakes a blocked `read`/`write`, and closes the
/// descriptor as soon as no call is using it, so a descriptor number is never reused under a
/// running call (`SharedDescriptors`).
package final class Socket: Sendable {
  /// The descriptor, closed by one thread while others may be using it.
  private let descriptor: SharedDescriptors

  /// The peer's numeric address: "127.0.0.1", "::1", "fe80::1%eth0". An IPv4-mapped IPv6 peer
  /// (on a dual-stack listener) is shown as IPv4.
  package let peerAddress: String
  /// The peer's TCP port.
  package let peerPort: UInt16

  /// Adopts a connected, blocking descriptor: reads the peer address and turns on `TCP_NODELAY`.
  /// On failure the descriptor is closed.
  package init(adopting fd: Int32) throws(SocketError) {
    let peer: SocketAddress
    var operation = "getpeername"
    do {
      peer = try SocketAddress.peer(of: fd)
      // Small control messages must not wait for Nagle; bulk writes are large anyway.
      operation = "setsockopt(TCP_NODELAY)"
      try setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1))
    } catch {
      Glibc.close(fd)
      throw .system(operation: operation, errno: error)
    }
    let name = peer.numericName()
    self.peerAddress = name.host
    self.peerPort = name.port
    self.descriptor = SharedDescriptors([fd])
  }

  /// Connects to `host`:`port` over TCP.
  ///
  /// Resolves with `getaddrinfo` (`AI_NUMERICSERV`; names, IPv4, IPv6, "[::1]", "fe80::1%lo"),
  /// then tries each address in order with a non-blocking `connect` and `poll`, all within one
  /// overall `timeout`. The connected socket is returned in blocking mode with `TCP_NODELAY` on;
  /// buffer sizes are left to the kernel's autotuning. Call from any thread; it blocks.
  package static func connect(host: String, port: UInt16, timeout: Duration) throws(SocketError)
    -> Socket
  {
    let deadline = ContinuousClock.now + timeout
    let addresses = try SocketAddress.resolve(host: host, port: port, passive: false)
    var lastError = Errno.connectionRefused
    for address in addresses {
      if ContinuousClock.now >= deadline { throw .connectTimedOut(host: host, port: port) }
      let fd: Int32?
      do {
        fd = try connect(to: address, deadline: deadline)
      } catch {
        lastError = error
        continue
      }
      guard let fd else { throw .connectTimedOut(host: host, port: port) }
      return try Socket(adopting: fd)
    }
    throw .connect(host: host, port: port, errno: lastError)
  }

  /// One non-blocking connection attempt, waited for until `deadline`; returns the connected
  /// descriptor in blocking mode, or nil on timeout. The descriptor is closed on failure.
  private static func connect(to address: SocketAddress, deadline: ContinuousClock.Instant)
    throws(Errno) -> Int32?
  {
    let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    let fd = try valueOrErrno { socket(address.family, kind | Int32(SOCK_NONBLOCK.rawValue), address.proto) }
    let descriptor = FileDescriptor(rawValue: fd)
    do throws(Errno) {
      if address.withSockaddr({ Glibc.connect(fd, $0, $1) }) != 0 {
        // Interrupted or not, a non-blocking connect carries on in the background.
        let started = Errno.current
        guard started == .nowInProgress || started == .interrupted else { throw started }
        if try pollUntil(fd, events: Int16(POLLOUT), deadline: deadline) == 0 {
          try? descriptor.close()
          return nil
        }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try nothingOrErrno { getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) }
        if failure != 0 { throw Errno(rawValue: failure) }
      }
      try descriptor.setStatus(.nonBlocking, enabled: false)
      return fd
    } catch {
      try? descriptor.close()
      throw error
    }
  }

  /// The descriptor, or -1 once closed. Only for inspection or `poll`: it may be closed by
  /// another thread's `close()` at any time; do not read, write or close it directly.
  package var fileDescriptor: Int32 {
    descriptor.current?.first ?? -1
  }

  /// Sets the kernel receive and send timeouts (`SO_RCVTIMEO` / `SO_SNDTIMEO`); nil means wait
  /// forever. A blocked read or write that exceeds them fails (the TLS layer reports
  /// `.timedOut`). Durations below 1 µs are rounded up to 1 µs.
  package func setTimeouts(receive: Duration?, send: Duration?) throws(SocketError) {
    let none = Glibc.timeval(tv_sec: 0, tv_usec: 0)
    do {
      try withDescriptor { fd throws(Errno) in
        try setOption(fd, SOL_SOCKET, SO_RCVTIMEO, receive?.timeval ?? none)
        try setOption(fd, SOL_SOCKET, SO_SNDTIMEO, send?.timeval ?? none)
      }
    } catch {
      throw .system(operation: "setsockopt(SO_RCVTIMEO/SO_SNDTIMEO)", errno: error)
    }
  }

  /// Runs `body` with the send timeout (`SO_SNDTIMEO`) set to `duration`, then restores the
  /// previous one; best effort. For a last write that must not block long (a TLS close_notify).
  package func withSendTimeout<Value>(_ duration: Duration, _ body: () -> Value) -> Value {
    let fd = try? acquire()
    defer { if fd != nil { release() } }
    var previous = Glibc.timeval()
    var length = socklen_t(MemoryLayout<timeval>.size)
    let saved = fd.map { getsockopt($0, SOL_SOCKET, SO_SNDTIMEO, &previous, &length) == 0 } ?? false
    if let fd { try? setOption(fd, SOL_SOCKET, SO_SNDTIMEO, duration.timeval) }
    defer { if let fd, saved { try? setOption(fd, SOL_SOCKET, SO_SNDTIMEO, previous) } }
    return body()
  }

  /// Closes the socket. Safe from any thread and idempotent: shuts the connection down
  /// (`shutdown(SHUT_RDWR)`), which makes any blocked call on another thread return, then
  /// releases the descriptor (`close(2)`) once no call is using it.
  package func close() {
    descriptor.close { Glibc.shutdown($0[0], Int32(SHUT_RDWR)) }
  }

  /// Whether `close()` has been called.
  package var isClosed: Bool { descriptor.isClosed }

  /// Runs `body` with the descriptor, keeping it open until `body` returns even if another thread
  /// calls `close()` meanwhile. Throws `.badFileDescriptor` if the socket is already closed.
  package func withDescriptor<Value>(_ body: (Int32) throws(Errno) -> Value) throws(Errno)
    -> Value
  {
    let fd = try acquire()
    defer { release() }
    return try body(fd)
  }

  /// Marks the descriptor in use and returns it; throws `.badFileDescriptor` if the socket is
  /// closed. Pair every successful call with `release()`.
  package func acquire() throws(Errno) -> Int32 {
    guard let fd = descriptor.acquire()?.first else { throw .badFileDescriptor }
    return fd
  }

  /// Ends a use started by `acquire()`; performs a close deferred by `close()`.
  package func release() {
    descriptor.release()
  }
}

/// Sets a socket option to a value. The corresponding C function is `setsockopt`.
func setOption<Value: BitwiseCopyable>(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Value) throws(Errno) {
  var value = value
  try nothingOrErrno { setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Value>.size)) }
}
