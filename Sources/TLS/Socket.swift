import Glibc
import Synchronization

/// A connected TCP stream socket that owns its file descriptor.
///
/// The descriptor is closed by `close()` or, failing that, in `deinit`. I/O normally happens on
/// one thread (the connection's thread); `close()` may be called from any thread to abort it: it
/// shuts the socket down at once, which wakes a blocked `read`/`write`, and closes the
/// descriptor as soon as no call is using it, so a descriptor number is never reused under a
/// running call.
///
/// `@unchecked Sendable`: the descriptor, the closed flag and the in-use count live in a
/// `Mutex`; the other stored properties are immutable.
public final class Socket: @unchecked Sendable {
  /// The descriptor's life cycle, guarded by `state`.
  private struct State {
    /// The descriptor, or -1 once released with `close(2)`.
    var fd: Int32
    /// Set by `close()`; no new call may start.
    var closed = false
    /// Calls currently using `fd` through `withDescriptor`.
    var busy = 0
  }

  private let state: Mutex<State>

  /// The peer's numeric address: "127.0.0.1", "::1", "fe80::1%eth0". An IPv4-mapped IPv6 peer
  /// (on a dual-stack listener) is shown as IPv4.
  public let peerAddress: String
  /// The peer's TCP port.
  public let peerPort: UInt16

  /// Adopts a connected, blocking descriptor: reads the peer address and turns on `TCP_NODELAY`.
  /// On failure the descriptor is closed.
  init(adopting fd: Int32) throws(SocketError) {
    guard let peer = SocketAddress.peer(of: fd) else {
      let code = errno
      Glibc.close(fd)
      throw .system(operation: "getpeername", errno: code)
    }
    var one: Int32 = 1
    // Small control messages must not wait for Nagle; bulk writes are large anyway.
    if setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
      != 0
    {
      let code = errno
      Glibc.close(fd)
      throw .system(operation: "setsockopt(TCP_NODELAY)", errno: code)
    }
    let name = peer.numericName()
    self.peerAddress = name.host
    self.peerPort = name.port
    self.state = Mutex(State(fd: fd))
  }

  deinit {
    state.withLock { state in
      if state.fd >= 0 { Glibc.close(state.fd) }
      state.fd = -1
    }
  }

  /// Connects to `host`:`port` over TCP.
  ///
  /// Resolves with `getaddrinfo` (`AI_NUMERICSERV`; names, IPv4, IPv6, "[::1]", "fe80::1%lo"),
  /// then tries each address in order with a non-blocking `connect` and `poll`, all within one
  /// overall `timeout`. The connected socket is returned in blocking mode with `TCP_NODELAY` on;
  /// buffer sizes are left to the kernel's autotuning. Call from any thread; it blocks.
  public static func connect(host: String, port: UInt16, timeout: Duration) throws(SocketError)
    -> Socket
  {
    let deadline = ContinuousClock.now + timeout
    let addresses = try SocketAddress.resolve(host: host, port: port, passive: false)
    var lastError: Int32 = ECONNREFUSED
    for address in addresses {
      if ContinuousClock.now >= deadline { throw .connectTimedOut(host: host, port: port) }
      let fd = socket(
        address.family,
        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
          | Int32(SOCK_NONBLOCK.rawValue), address.proto)
      guard fd >= 0 else {
        lastError = errno
        continue
      }
      var rc = address.withSockaddr { Glibc.connect(fd, $0, $1) }
      if rc != 0 && errno == EINPROGRESS {
        let events = pollUntil(fd, events: Int16(POLLOUT), deadline: deadline)
        if events == 0 {
          Glibc.close(fd)
          throw .connectTimedOut(host: host, port: port)
        }
        if events < 0 {
          lastError = errno
          Glibc.close(fd)
          continue
        }
        var soError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) != 0 { soError = errno }
        rc = soError == 0 ? 0 : -1
        if soError != 0 { errno = soError }
      }
      guard rc == 0 else {
        lastError = errno
        Glibc.close(fd)
        continue
      }
      let flags = fcntl(fd, F_GETFL)
      guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
        let code = errno
        Glibc.close(fd)
        throw .system(operation: "fcntl(O_NONBLOCK)", errno: code)
      }
      return try Socket(adopting: fd)
    }
    throw .connect(host: host, port: port, errno: lastError)
  }

  /// The descriptor, or -1 once closed. Only for inspection or `poll`: it may be closed by
  /// another thread's `close()` at any time; do not read, write or close it directly.
  public var fileDescriptor: Int32 {
    state.withLock { $0.closed ? -1 : $0.fd }
  }

  /// Sets the kernel receive and send timeouts (`SO_RCVTIMEO` / `SO_SNDTIMEO`); nil means wait
  /// forever. A blocked read or write that exceeds them fails (the TLS layer reports
  /// `.timedOut`). Durations below 1 µs are rounded up to 1 µs.
  public func setTimeouts(receive: Duration?, send: Duration?) throws(SocketError) {
    try setTimeout(SO_RCVTIMEO, receive, name: "SO_RCVTIMEO")
    try setTimeout(SO_SNDTIMEO, send, name: "SO_SNDTIMEO")
  }

  /// Sets one of `SO_RCVTIMEO` / `SO_SNDTIMEO`.
  func setTimeout(_ option: Int32, _ duration: Duration?, name: String) throws(SocketError) {
    var value = duration?.timeval ?? timeval(tv_sec: 0, tv_usec: 0)
    let failure: Int32 = try withDescriptor { fd in
      setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size)) == 0
        ? 0 : errno
    }
    if failure != 0 { throw .system(operation: "setsockopt(\(name))", errno: failure) }
  }

  /// Closes the socket. Safe from any thread and idempotent: shuts the connection down
  /// (`shutdown(SHUT_RDWR)`), which makes any blocked call on another thread return, then
  /// releases the descriptor (`close(2)`) once no call is using it.
  public func close() {
    state.withLock { state in
      guard !state.closed else { return }
      state.closed = true
      guard state.fd >= 0 else { return }
      Glibc.shutdown(state.fd, Int32(SHUT_RDWR))
      if state.busy == 0 {
        Glibc.close(state.fd)
        state.fd = -1
      }
    }
  }

  /// Whether `close()` has been called.
  var isClosed: Bool {
    state.withLock { $0.closed }
  }

  /// Runs `body` with the descriptor, keeping it open until `body` returns even if another thread
  /// calls `close()` meanwhile. Throws `SocketError.system(EBADF)` if already closed.
  func withDescriptor<R>(_ body: (Int32) -> R) throws(SocketError) -> R {
    let fd = try acquire()
    defer { release() }
    return body(fd)
  }

  /// Marks the descriptor in use and returns it; throws if the socket is closed.
  func acquire() throws(SocketError) -> Int32 {
    let fd = state.withLock { state -> Int32 in
      guard !state.closed, state.fd >= 0 else { return -1 }
      state.busy += 1
      return state.fd
    }
    if fd < 0 { throw .system(operation: "socket already closed", errno: EBADF) }
    return fd
  }

  /// Ends a use started by `acquire()`; performs a close deferred by `close()`.
  func release() {
    state.withLock { state in
      state.busy -= 1
      if state.closed && state.busy == 0 && state.fd >= 0 {
        Glibc.close(state.fd)
        state.fd = -1
      }
    }
  }
}
