import Foundation
import Synchronization
import System
import TLS

/// A LocalSend v2 receiver: HTTPS with the device's own certificate on one port, serving
/// `/api/localsend/v2/info`, `/register`, `/prepare-upload`, `/upload` and `/cancel`. What is
/// accepted and where bytes go is the delegate's decision; this type keeps the protocol
/// (sessions, tokens, PIN, limits, timeouts).
///
/// Threads: one accept thread, one thread per connection (bounded by the configuration's
/// caps). Clients need not present a certificate; when one does (the LocalSend app), its
/// fingerprint is passed to the delegate as the sender's proven identity.
///
/// `@unchecked Sendable`: the listener and TLS context are thread-safe and immutable; mutable
/// state lives in `Mutex`es.
package final class LocalSendServer: @unchecked Sendable {
  package let configuration: LocalSendServerConfiguration
  /// The fingerprint other devices know this one by.
  package let fingerprint: LocalSendFingerprint
  let delegate: any LocalSendDelegate
  let context: TLSContext
  private let listener: TCPListener
  let sessions: Mutex<SessionTable>
  let pins: Mutex<PinGate>
  /// Who may connect; `ConnectionCaps` from the configuration unless another is given.
  private let door: any LocalSendDoor
  private let connections = Mutex(Connections())
  private let active = DispatchGroup()

  /// The connections being served, for `stop`.
  private struct Connections {
    var open: [Int: Socket] = [:]
    var stopped = false
  }

  /// The bound port.
  package var port: UInt16 { listener.port }

  /// This device as announcements and register requests describe it.
  package var device: LocalSendDevice {
    LocalSendDevice(
      alias: configuration.alias, deviceModel: configuration.deviceModel,
      deviceType: configuration.deviceType, fingerprint: fingerprint.hex, port: Int(port))
  }

  /// Binds the port (so it is known at once) without accepting yet.
  /// `door`: who may connect (the daemon's admission); nil for the configuration's caps.
  package init(
    identity: DeviceIdentity, configuration: LocalSendServerConfiguration,
    delegate: any LocalSendDelegate, door: (any LocalSendDoor)? = nil
  ) throws(LocalSendError) {
    signal(SIGPIPE, SIG_IGN)
    guard let fingerprint = LocalSendFingerprint(identity: identity) else {
      throw .identity("its certificate PEM has no CERTIFICATE block")
    }
    self.configuration = configuration
    self.fingerprint = fingerprint
    self.delegate = delegate
    self.door =
      door
      ?? ConnectionCaps(
        maxConnections: configuration.maxConnections, maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
        handshakeTimeout: configuration.handshakeTimeout)
    sessions = Mutex(SessionTable(sessionTimeout: configuration.sessionTimeout))
    pins = Mutex(PinGate(pin: configuration.pin))
    do {
      context = try TLSContext(identity: identity, role: .server, clientCertificates: .optional)
    } catch {
      throw .tls(error)
    }
    do {
      listener = try TCPListener(host: configuration.host, port: configuration.port)
    } catch {
      throw .socket(error)
    }
  }

  /// Starts accepting on a thread of its own.
  package func start() {
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "localsend-accept"
    thread.start()
  }

  /// Stops accepting, aborts every connection, cancels the offers being decided and ends the
  /// active session (`SessionEnd.serverStopped`). Returns once the connection threads ended.
  package func stop() {
    listener.close()
    let sockets = connections.withLock { state -> [Socket] in
      state.stopped = true
      return Array(state.open.values)
    }
    for socket in sockets { socket.close() }
    let (pending, activeSession) = sessions.withLock { $0.clear() }
    for cancellation in pending { cancellation.cancel() }
    _ = active.wait(timeout: .now() + 10)
    if let activeSession { delegate.localSend(sessionEnded: activeSession, .serverStopped) }
  }

  /// Ends the active session `id` once it has had no upload for the session timeout, checking
  /// after `delay` and again while it holds the slot; its end goes to the delegate (`expired`).
  func expireWhenIdle(_ id: String, after delay: Duration) {
    DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(delay / .nanoseconds(1)))) { [weak self] in
      guard let self else { return }
      switch sessions.withLock({ $0.expire(id, now: .now) }) {
      case .expired: delegate.localSend(sessionEnded: id, .expired)
      case .later(let wait): expireWhenIdle(id, after: wait)
      case .gone: break
      }
    }
  }

  private func acceptLoop() {
    listener.acceptUntilClosed { socket in
      guard let (id, deadline) = admit(socket) else {
        socket.close()
        return
      }
      active.enter()
      let thread = Thread { [self] in
        serve(socket, id: id, deadline: deadline)
        let open = connections.withLock { state in
          state.open[id] = nil
          return state.open.count
        }
        door.leave(id)
        delegate.localSend(connections: open)
        active.leave()
      }
      thread.name = "localsend-connection"
      thread.start()
    }
  }

  /// The door's decision, and the connection recorded for `stop` (unless stopping).
  private func admit(_ socket: Socket) -> (Int, ContinuousClock.Instant)? {
    if connections.withLock({ $0.stopped }) { return nil }
    guard let (id, deadline) = door.arrive(socket) else { return nil }
    let recorded = connections.withLock { state -> Bool in
      if state.stopped { return false }
      state.open[id] = socket
      return true
    }
    if !recorded { door.leave(id) }
    return recorded ? (id, deadline) : nil
  }

  private func serve(_ socket: Socket, id: Int, deadline: ContinuousClock.Instant) {
    let address = socket.peerAddress
    let tls: TLSConnection
    do {
      tls = try TLSConnection.accept(socket, context: context, timeout: max(.milliseconds(1), deadline - .now))
    } catch {
      socket.close()
      return
    }
    defer { tls.close() }
    let certificate = tls.peerCertificate.map { LocalSendFingerprint(certificateDER: $0.der) }
    guard door.handshakeDone(id, certificate: certificate) else { return }
    let connection = ServerConnection(
      server: self, stream: HTTPStream(tls, limits: configuration.http), address: address,
      certificate: certificate, engaged: { [door] in door.engaged(id, $0) })
    connection.run()
    tls.shutdown()
  }
}
