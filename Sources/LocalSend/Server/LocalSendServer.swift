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
public final class LocalSendServer: @unchecked Sendable {
  public let configuration: LocalSendServerConfiguration
  /// The fingerprint other devices know this one by.
  public let fingerprint: LocalSendFingerprint
  let delegate: any LocalSendDelegate
  let context: TLSContext
  private let listener: TCPListener
  let sessions: Mutex<SessionTable>
  let pins: Mutex<PinGate>
  private let connections = Mutex(Connections())
  private let active = DispatchGroup()

  private struct Connections {
    var open: [Int: Socket] = [:]
    var perAddress: [String: Int] = [:]
    var nextID = 0
    var stopped = false
  }

  /// The bound port.
  public var port: UInt16 { listener.port }

  /// This device as announcements and register requests describe it.
  public var device: LocalSendDevice {
    LocalSendDevice(
      alias: configuration.alias, deviceModel: configuration.deviceModel,
      deviceType: configuration.deviceType, fingerprint: fingerprint.hex, port: Int(port))
  }

  /// Binds the port (so it is known at once) without accepting yet.
  public init(
    identity: DeviceIdentity, configuration: LocalSendServerConfiguration,
    delegate: any LocalSendDelegate
  ) throws(LocalSendError) {
    signal(SIGPIPE, SIG_IGN)
    guard let fingerprint = LocalSendFingerprint(identity: identity) else {
      throw .identity("its certificate PEM has no CERTIFICATE block")
    }
    self.configuration = configuration
    self.fingerprint = fingerprint
    self.delegate = delegate
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
  public func start() {
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "localsend-accept"
    thread.start()
  }

  /// Stops accepting, aborts every connection, cancels an offer being decided and ends the
  /// active session (`SessionEnd.serverStopped`). Returns once the connection threads ended.
  public func stop() {
    listener.close()
    let sockets = connections.withLock { state -> [Socket] in
      state.stopped = true
      return Array(state.open.values)
    }
    for socket in sockets { socket.close() }
    let (pending, activeSession) = sessions.withLock { $0.clear() }
    pending?.cancel()
    _ = active.wait(timeout: .now() + 10)
    if let activeSession { delegate.localSend(sessionEnded: activeSession, .serverStopped) }
  }

  private func acceptLoop() {
    while true {
      let socket: Socket
      do {
        socket = try listener.accept()
      } catch .listenerClosed {
        return
      } catch {
        // Out of descriptors: pause instead of spinning on a readable listener.
        Thread.sleep(forTimeInterval: 0.1)
        continue
      }
      guard let id = admit(socket) else {
        socket.close()
        continue
      }
      active.enter()
      let thread = Thread { [self] in
        serve(socket)
        release(id, address: socket.peerAddress)
        active.leave()
      }
      thread.name = "localsend-connection"
      thread.start()
    }
  }

  private func admit(_ socket: Socket) -> Int? {
    let address = socket.peerAddress
    return connections.withLock { state -> Int? in
      guard !state.stopped, state.open.count < configuration.maxConnections,
        state.perAddress[address, default: 0] < configuration.maxConnectionsPerAddress
      else { return nil }
      state.nextID += 1
      state.open[state.nextID] = socket
      state.perAddress[address, default: 0] += 1
      return state.nextID
    }
  }

  private func release(_ id: Int, address: String) {
    connections.withLock { state in
      state.open[id] = nil
      let left = state.perAddress[address, default: 1] - 1
      state.perAddress[address] = left > 0 ? left : nil
    }
  }

  private func serve(_ socket: Socket) {
    let address = socket.peerAddress
    let tls: TLSConnection
    do {
      tls = try TLSConnection.accept(socket, context: context, timeout: configuration.handshakeTimeout)
    } catch {
      return
    }
    defer { tls.close() }
    let certificate = tls.peerCertificate.map { LocalSendFingerprint(certificateDER: $0.der) }
    let connection = ServerConnection(
      server: self, stream: HTTPStream(tls, limits: configuration.http), address: address,
      certificate: certificate)
    connection.run()
    tls.shutdown()
  }
}
