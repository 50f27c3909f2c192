import COpenSSL
import Glibc
import System

/// One TLS 1.3 connection; owns an `SSL *` (freed in `deinit`) and the `Socket` under it.
///
/// **Threads.** A connection is confined to one thread at a time: the thread that does the
/// handshake, `read`, `readExactly`, `write`, `setIdleTimeout` and `shutdown` (the integrator's
/// per-connection thread). The only call allowed from any other thread is `close()`, which aborts
/// a blocked read or write at once (`shutdown(2)` on the socket); the blocked call then throws
/// `.connectionClosed`.
///
/// **I/O.** Blocking. `read` decrypts straight into the caller's buffer and `write` encrypts
/// straight from it: no intermediate copies beyond OpenSSL's own record buffers. Use large
/// buffers (hundreds of KiB to a few MiB) for bulk data.
///
/// **SIGPIPE.** OpenSSL's socket BIO sends with `write(2)`, which raises SIGPIPE if the peer has
/// gone; Linux has no per-socket SO_NOSIGPIPE. The application must ignore SIGPIPE
/// (`signal(SIGPIPE, SIG_IGN)`) at start-up; the failed write then throws `.connectionClosed`.
///
/// `@unchecked Sendable`: so a connection can be handed to the thread that will own it, and so
/// another thread may call `close()`, which only touches the `Socket`'s mutex-guarded state. The
/// `SSL *` and the mutable fields below are touched only by the owning thread.
package final class TLSConnection: @unchecked Sendable {
  /// The owned `SSL *`.
  private let ssl: OpaquePointer
  /// The socket; owns the descriptor (the `SSL`'s socket BIO does not close it).
  let socket: Socket
  /// Keeps the configuration alive for the connection's lifetime (documentation of the
  /// ownership; `SSL_new` also takes its own reference).
  private let context: TLSContext

  /// The first read/write failure. Every later `read`/`write` throws it again, because OpenSSL
  /// state after a failed call is not reusable (and `SSL_shutdown` must not follow a fatal
  /// error); a read that hits it after returning some bytes reports it on the next call.
  /// Owning thread only.
  private var failure: TLSError? = nil

  /// The peer's certificate; nil only for a client that presented none to a server context made
  /// with `clientCertificates: .optional`.
  package let peerCertificate: PeerCertificate?
  /// The device ID of the peer: SHA-256 of its certificate's DER SubjectPublicKeyInfo.
  /// Reading it on a connection without a peer certificate (possible only with
  /// `clientCertificates: .optional`) is a programmer error; read `peerCertificate` there.
  package var peerFingerprint: Fingerprint {
    guard let peerCertificate else {
      preconditionFailure("peerFingerprint of a client that presented no certificate")
    }
    return peerCertificate.fingerprint
  }
  /// The peer certificate's subject CN: its device name as it claims it. Unverified and
  /// arbitrary text from the network; escape it before showing it on a terminal.
  package var peerCommonName: String? { peerCertificate?.commonName }
  /// The negotiated cipher suite, e.g. "TLS_AES_128_GCM_SHA256".
  package let negotiatedCipher: String
  /// The negotiated protocol version, "TLSv1.3".
  package let protocolVersion: String

  /// The peer's numeric address (see `Socket.peerAddress`).
  package var peerAddress: String { socket.peerAddress }
  /// The peer's TCP port.
  package var peerPort: UInt16 { socket.peerPort }

  private init(
    ssl: OpaquePointer, socket: Socket, context: TLSContext, peerCertificate: PeerCertificate?,
    negotiatedCipher: String, protocolVersion: String
  ) {
    self.ssl = ssl
    self.socket = socket
    self.context = context
    self.peerCertificate = peerCertificate
    self.negotiatedCipher = negotiatedCipher
    self.protocolVersion = protocolVersion
  }

  deinit {
    SSL_free(ssl)
    socket.close()
  }

  // MARK: Handshake

  /// Runs the server side of the handshake on an accepted socket and takes ownership of it.
  ///
  /// The whole handshake must finish within `timeout` (a peer that connects and says nothing,
  /// or dribbles bytes, gets `.timedOut`): the socket is non-blocking during the handshake and
  /// waits with `poll` against one deadline, then returns to blocking mode.
  ///
  /// Throws `.notTLS` for a peer that speaks another protocol (e.g. plain HTTP),
  /// `.unsupportedProtocol` for a peer without TLS 1.3, `.noPeerCertificate` for a client with no
  /// certificate (unless the context was made with `clientCertificates: .optional`), `.connectionClosed` if the peer hangs up, `.timedOut`, or `.handshakeFailed`.
  /// On failure the socket is closed. Call on the connection's thread.
  package static func accept(_ socket: Socket, context: TLSContext, timeout: Duration)
    throws(TLSError) -> TLSConnection
  {
    try handshake(socket, context: context, timeout: timeout, asServer: true)
  }

  /// Runs the client side of the handshake on a connected socket and takes ownership of it.
  ///
  /// Same deadline and errors as `accept`. With `expectedPeer` (the pinned or advertised device
  /// ID), a server presenting another key fails with `.peerMismatch` before the caller can send
  /// anything. In TLS 1.3 the client finishes its handshake before the server has checked the
  /// client certificate, so a server that refuses this client is reported by the first `read`
  /// (as `.peerAlert`), not here. On failure the socket is closed.
  package static func connect(
    _ socket: Socket, context: TLSContext, timeout: Duration, expectedPeer: Fingerprint? = nil
  ) throws(TLSError) -> TLSConnection {
    let connection = try handshake(socket, context: context, timeout: timeout, asServer: false)
    if let expectedPeer, connection.peerFingerprint != expectedPeer {
      connection.close()
      throw .peerMismatch(expected: expectedPeer, actual: connection.peerFingerprint)
    }
    return connection
  }

  /// The shared handshake: `SSL_new`, `SSL_set_fd`, then `SSL_do_handshake` in non-blocking mode
  /// driven by `poll` until `deadline`.
  private static func handshake(
    _ socket: Socket, context: TLSContext, timeout: Duration, asServer: Bool
  ) throws(TLSError) -> TLSConnection {
    let deadline = ContinuousClock.now + timeout
    let operation = asServer ? "TLS accept" : "TLS connect"
    guard (context.role == .server) == asServer else {
      socket.close()
      throw .configuration(
        detail: "\(operation): the TLSContext was made for the \(context.role) role")
    }
    OpenSSLErrorQueue.clear()
    guard let ssl = SSL_new(context.pointer) else {
      socket.close()
      throw .configuration(detail: OpenSSLErrorQueue.drainDetail("SSL_new"))
    }
    var handedOver = false
    defer {
      if !handedOver {
        SSL_free(ssl)
        socket.close()
      }
    }
    let fd: Int32
    do {
      fd = try socket.acquire()
    } catch {
      throw .connectionClosed(detail: "\(operation): the socket was already closed")
    }
    defer { socket.release() }

    guard SSL_set_fd(ssl, fd) == 1 else {
      throw .configuration(detail: OpenSSLErrorQueue.drainDetail("SSL_set_fd"))
    }
    if asServer { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }

    try setBlocking(fd, false, operation: operation)
    try driveHandshake(ssl, fd: fd, socket: socket, deadline: deadline, operation: operation)
    try setBlocking(fd, true, operation: operation)

    let peerCertificate = try PeerCertificate.of(
      ssl, required: !asServer || context.clientCertificates == .required, operation: operation)
    let cipher =
      SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }
      .map { String(cString: $0) } ?? "unknown"
    let version = SSL_get_version(ssl).map { String(cString: $0) } ?? "unknown"
    handedOver = true
    return TLSConnection(
      ssl: ssl, socket: socket, context: context, peerCertificate: peerCertificate,
      negotiatedCipher: cipher, protocolVersion: version)
  }

  /// Calls `SSL_do_handshake` on the non-blocking `fd` until it completes, waiting with `poll`
  /// for what OpenSSL wants (readable or writable) until `deadline`.
  private static func driveHandshake(
    _ ssl: OpaquePointer, fd: Int32, socket: Socket, deadline: ContinuousClock.Instant,
    operation: String
  ) throws(TLSError) {
    while true {
      OpenSSLErrorQueue.clear()
      let rc = SSL_do_handshake(ssl)
      if rc == 1 { return }
      let code = SSL_get_error(ssl, rc)
      let savedErrno = Errno.current
      let events: Int16
      switch code {
      case SSL_ERROR_WANT_READ:
        events = Int16(POLLIN)
      case SSL_ERROR_WANT_WRITE:
        events = Int16(POLLOUT)
      default:
        throw classify(
          code: code, errno: savedErrno, entries: OpenSSLErrorQueue.drain(),
          operation: operation, handshake: true, socket: socket)
      }
      let ready: Int16
      do {
        ready = try pollUntil(fd, events: events, deadline: deadline)
      } catch {
        throw .io(errno: error, operation: "\(operation): poll")
      }
      if ready == 0 { throw .timedOut(operation: "TLS handshake") }
      // POLLHUP / POLLERR: let the next SSL_do_handshake read the EOF or error and report it.
    }
  }

  /// Switches `O_NONBLOCK` on or off.
  private static func setBlocking(_ fd: Int32, _ blocking: Bool, operation: String)
    throws(TLSError)
  {
    do {
      try FileDescriptor(rawValue: fd).setStatus(.nonBlocking, enabled: !blocking)
    } catch {
      throw .io(errno: error, operation: "\(operation): fcntl(O_NONBLOCK)")
    }
  }

  // MARK: Reading

  /// Reads decrypted bytes into `buffer` (`SSL_read_ex`), blocking until at least one byte is
  /// available. Keeps filling `buffer` while OpenSSL already holds more received data
  /// (`SSL_has_pending`), so large buffers come back well filled without waiting for more.
  ///
  /// Returns the number of bytes read (> 0), or 0 once the peer has closed cleanly
  /// (close_notify). Throws `.connectionClosed` if the peer hung up without close_notify or
  /// `close()` was called, `.timedOut` when the receive timeout (`setIdleTimeout`) expires,
  /// `.peerAlert` when the peer aborted (e.g. refused our certificate), `.io` or `.ssl`
  /// otherwise. After any error (timeouts included) the connection is unusable: later reads and
  /// writes throw the same error; close it.
  /// `buffer` must not be empty. Owning thread only.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int {
    if let failure { throw failure }
    guard let base = buffer.baseAddress, buffer.count > 0 else {
      preconditionFailure("TLSConnection.read needs a non-empty buffer")
    }
    do {
      _ = try socket.acquire()
    } catch {
      throw .connectionClosed(detail: "read: the connection was closed locally")
    }
    defer { socket.release() }

    var total = 0
    while true {
      var count = 0
      let outcome = sslCall { SSL_read_ex(ssl, base + total, buffer.count - total, &count) }
      if outcome.code == SSL_ERROR_NONE {
        total += count
        if total < buffer.count && SSL_has_pending(ssl) == 1 { continue }
        return total
      }
      if outcome.code == SSL_ERROR_ZERO_RETURN { return total }
      let error = ioFailure(code: outcome.code, errno: outcome.errno, operation: "read")
      failure = error
      if total > 0 { return total }
      throw error
    }
  }

  /// Fills `buffer` completely, blocking as needed. Throws `.connectionClosed` if the peer closes
  /// (cleanly or not) before `buffer.count` bytes arrived; otherwise the errors of `read`.
  /// Owning thread only.
  package func readExactly(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) {
    var offset = 0
    while offset < buffer.count {
      let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]))
      if n == 0 {
        throw .connectionClosed(
          detail: "read: the peer closed the connection after \(offset) of \(buffer.count) bytes")
      }
      offset += n
    }
  }

  // MARK: Writing

  /// Encrypts and sends all of `buffer` (`SSL_write_ex`, whole-write mode), blocking as needed.
  /// Throws `.connectionClosed` if the peer is gone or `close()` was called, `.timedOut` when the
  /// send timeout (`setIdleTimeout`) expires, `.peerAlert`, `.io` or `.ssl` otherwise. After any
  /// error the connection is unusable: later reads and writes throw the same error; close it.
  /// Owning thread only.
  package func write(_ buffer: UnsafeRawBufferPointer) throws(TLSError) {
    if let failure { throw failure }
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    do {
      _ = try socket.acquire()
    } catch {
      throw .connectionClosed(detail: "write: the connection was closed locally")
    }
    defer { socket.release() }

    var offset = 0
    while offset < buffer.count {
      var written = 0
      // After an interrupted call OpenSSL requires the same arguments again, which sslCall gives.
      let outcome = sslCall { SSL_write_ex(ssl, base + offset, buffer.count - offset, &written) }
      if outcome.code == SSL_ERROR_NONE {
        offset += written
        continue
      }
      let error = ioFailure(code: outcome.code, errno: outcome.errno, operation: "write")
      failure = error
      throw error
    }
  }

  /// Encrypts and sends all of `bytes`; see `write(_:)` for buffers.
  package func write(_ bytes: [UInt8]) throws(TLSError) {
    // withUnsafeBytes only rethrows untyped errors, so carry the typed one out by hand.
    let failure: TLSError? = bytes.withUnsafeBytes { raw -> TLSError? in
      do throws(TLSError) {
        try write(raw)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
  }

  // MARK: Timeouts and closing

  /// Whether the peer has sent something not read yet (`SSL_has_pending`, else a zero-timeout
  /// `poll` for readability). Lets a thread that is busy writing notice a message from the peer
  /// without blocking. Owning thread only.
  package func hasIncomingData() -> Bool {
    if SSL_has_pending(ssl) == 1 { return true }
    let readable = try? socket.withDescriptor { fd in pollNow(fd, events: Int16(POLLIN)) }
    return readable ?? false
  }

  /// Blocks until the peer sends something or hangs up (true), or `wake` — a descriptor another
  /// thread makes readable — is readable (false). For watching a connection that is otherwise
  /// idle from another thread while its owner waits on something else; what arrived stays for
  /// the owning thread to read. A connection closed here counts as the peer's end. Any thread.
  package func waitForPeer(orWake wake: Int32) -> Bool {
    (try? socket.withDescriptor { fd in pollReadable(fd, orWake: wake) }) ?? true
  }

  /// Sets how long one blocked read or write may wait for the peer (`SO_RCVTIMEO` and
  /// `SO_SNDTIMEO`); nil waits forever. Expiry throws `.timedOut`. Owning thread only.
  package func setIdleTimeout(_ duration: Duration?) throws(TLSError) {
    do {
      try socket.setTimeouts(receive: duration, send: duration)
    } catch {
      if socket.isClosed {
        throw .connectionClosed(detail: "setIdleTimeout: the connection was closed locally")
      }
      throw Self.tlsError(error, operation: "setIdleTimeout")
    }
  }

  /// Sends close_notify (`SSL_shutdown`, once), telling the peer no more data follows; does not
  /// wait for the peer's close_notify. Best effort: skipped after a fatal error, and bounded to
  /// about a second by a temporary send timeout, so it never blocks long on a stuck peer.
  /// Reading remains possible afterwards. Owning thread only.
  package func shutdown() {
    guard failure == nil, (try? socket.acquire()) != nil else { return }
    defer { socket.release() }
    socket.withSendTimeout(.seconds(1)) {
      OpenSSLErrorQueue.clear()
      _ = SSL_shutdown(ssl)
      OpenSSLErrorQueue.clear()
    }
  }

  /// Closes the connection without close_notify (call `shutdown()` first for a clean close).
  /// Safe from any thread and idempotent; a read or write blocked on another thread returns
  /// with `.connectionClosed`. The `SSL *` is freed when the connection is deinitialised.
  package func close() {
    socket.close()
  }

  /// Runs `SSL_read_ex` or `SSL_write_ex` with a clear error queue and returns its
  /// `SSL_get_error` code (`SSL_ERROR_NONE` on success) with errno as it was then. A call that
  /// only a signal interrupted (`.interrupted` in the socket BIO, which a blocking socket reports
  /// as `WANT_READ`/`WANT_WRITE`) is made again, through `retryOnInterrupt`.
  private func sslCall(_ call: () -> Int32) -> (code: Int32, errno: Errno) {
    let outcome = Result { () throws(Errno) -> (code: Int32, errno: Errno) in
      try retryOnInterrupt { () throws(Errno) -> (code: Int32, errno: Errno) in
        OpenSSLErrorQueue.clear()
        let rc = call()
        if rc == 1 { return (SSL_ERROR_NONE, Errno(rawValue: 0)) }
        let code = SSL_get_error(ssl, rc)
        let saved = Errno.current
        let wouldBlock = code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE
        if wouldBlock && saved == .interrupted { throw saved }
        return (code, saved)
      }
    }
    // retryOnInterrupt retries the only error thrown above, so this is always a success.
    return (try? outcome.get()) ?? (SSL_ERROR_SYSCALL, .interrupted)
  }
}
