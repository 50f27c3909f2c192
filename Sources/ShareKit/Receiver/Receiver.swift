import Dispatch
import Foundation
import InboxStore
import Synchronization
import System
import TLS
import Wire

/// Settings of a receiver that do not change while it runs.
package struct ReceiverConfiguration: Sendable {
  /// Address to listen on; nil for every interface, IPv4 and IPv6.
  package var host: String?
  /// Port to listen on; 0 for any free port.
  package var port: UInt16
  /// From accept to a valid Hello (the TLS handshake included): one deadline that no read
  /// restarts. A contact is done with it when its certificate is verified.
  package var helloTimeout: Duration
  /// A peer that sends nothing for this long is dropped (once it has said Hello).
  package var idleTimeout: Duration
  /// Connections that have not yet proven who they are, per peer address and in total. Over
  /// the total, a newcomer from a less crowded address takes the place of the oldest one from
  /// the most crowded; over the rest, the newcomer is told `busy`.
  package var maxUnauthenticatedPerAddress: Int
  package var maxUnauthenticated: Int
  /// Authenticated connections served at once, in total and per peer address for strangers, per
  /// device for contacts (`maxConnectionsPerAddress`); of the total, `contactReserve` are for
  /// contacts only.
  package var maxConnections: Int
  package var maxConnectionsPerAddress: Int
  package var contactReserve: Int
  package var limits: WireLimits
  /// Bytes always left free on the disk holding the Inbox: items that would eat into them are
  /// refused before any byte moves, and an item whose bytes reach them as they are written (one
  /// of unknown size, or several sends at once) fails there, its staging removed.
  package var reserveBytes: Int64

  package init(
    host: String? = nil, port: UInt16 = 0, helloTimeout: Duration = .seconds(5), idleTimeout: Duration = .seconds(60),
    maxUnauthenticatedPerAddress: Int = 8, maxUnauthenticated: Int = 32, maxConnections: Int = 64,
    maxConnectionsPerAddress: Int = 8, contactReserve: Int = 16, limits: WireLimits = .default,
    reserveBytes: Int64 = 64 << 20
  ) {
    self.host = host
    self.port = port
    self.helloTimeout = helloTimeout
    self.idleTimeout = idleTimeout
    self.maxUnauthenticatedPerAddress = maxUnauthenticatedPerAddress
    self.maxUnauthenticated = maxUnauthenticated
    self.maxConnections = maxConnections
    self.maxConnectionsPerAddress = maxConnectionsPerAddress
    self.contactReserve = contactReserve
    self.limits = limits
    self.reserveBytes = reserveBytes
  }

  var admissionLimits: Admission.Limits {
    Admission.Limits(
      maxUnauthenticatedPerAddress: maxUnauthenticatedPerAddress, maxUnauthenticated: maxUnauthenticated,
      maxConnectionsPerAddress: maxConnectionsPerAddress, maxConnections: maxConnections,
      contactReserve: min(contactReserve, maxConnections))
  }
}

/// The receiving side: listens, runs one session per connection on its own thread, and files
/// what it accepts into the Inbox.
///
/// `@unchecked Sendable`: the listener and TLS context are immutable and thread-safe; the
/// connection table guards its own state.
package final class Receiver: @unchecked Sendable {
  package let device: Device
  package let store: InboxStore
  package let configuration: ReceiverConfiguration
  private let listener: TCPListener
  private let context: TLSContext
  private let policy: Mutex<ReceivePolicy>
  private let emit: @Sendable (ReceiverEvent) -> Void
  private let connections: ConnectionTable
  private let sessions: SessionContext
  /// Entered by each session thread, left when it ends: what a graceful stop waits on.
  private let active = DispatchGroup()
  /// Who may ask, and the person's consent; nil accepts every ask the policy accepts.
  package let gatekeeper: Gatekeeper?
  /// Transfers in flight.
  package let transfers = TransferTable()
  /// What large Asks hold now (LocalSend offers share it).
  let askBudget = AskBudget()
  /// Told the number of connections served each time one starts or ends.
  private let connectionsChanged: @Sendable (Int) -> Void

  /// The port it listens on.
  package var port: UInt16 { listener.port }

  /// The stems of the resumable stagings being received into now (see `InboxStore.resumableParts`).
  package var receivingStems: Set<String> { sessions.heldResumeKeys }

  /// Binds the listening socket (so the port is known at once) without accepting yet.
  package init(
    device: Device, store: InboxStore, policy: ReceivePolicy, configuration: ReceiverConfiguration,
    gatekeeper: Gatekeeper? = nil, events: @escaping @Sendable (ReceiverEvent) -> Void,
    connectionsChanged: @escaping @Sendable (Int) -> Void = { _ in }
  ) throws(ShareError) {
    ignoreSIGPIPE()
    self.connectionsChanged = connectionsChanged
    self.device = device
    self.store = store
    self.configuration = configuration
    self.policy = Mutex(policy)
    let connections = ConnectionTable(
      limits: configuration.admissionLimits, helloTimeout: configuration.helloTimeout, events: events)
    self.connections = connections
    // Sessions report through the table: a valid Hello ends a connection's unauthenticated
    // stage, and failures before one are logged once per address per burst.
    let emit: @Sendable (ReceiverEvent) -> Void = { connections.report($0) }
    self.emit = emit
    self.gatekeeper = gatekeeper
    sessions = SessionContext(
      device: device, store: store, gatekeeper: gatekeeper, transfers: transfers,
      reserve: DiskReserve(bytes: configuration.reserveBytes, store: store), askBudget: askBudget, emit: emit)
    do {
      context = try TLSContext(identity: device.identity, role: .server)
      listener = try TCPListener(host: configuration.host, port: configuration.port)
    } catch {
      throw ShareError.wrap(error)
    }
  }

  /// Replaces the policy for connections that start from now on.
  package func update(policy newPolicy: ReceivePolicy) {
    policy.withLock { $0 = newPolicy }
  }

  /// Starts accepting on a thread of its own.
  package func start() {
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "share-accept"
    thread.start()
    emit(.listening(port: port))
  }

  /// Stops accepting and aborts every connection in flight at once.
  package func stop() { stop(grace: .zero) }

  /// Stops gracefully: no new connections or asks; transfers in flight get up to `grace` to
  /// finish, then are cancelled (a resumable item's staging is kept for the sender's next try).
  /// Returns how many connections had to be cancelled.
  @discardableResult
  package func stop(grace: Duration) -> Int {
    listener.close()
    gatekeeper?.close()
    connections.stop()
    if active.wait(timeout: .now() + .nanoseconds(Int(grace / .nanoseconds(1)))) == .success { return 0 }
    let sockets = connections.sockets
    for socket in sockets { socket.close() }
    // Give the sessions a moment to keep their staging and place what is verified.
    _ = active.wait(timeout: .now() + 5)
    return sockets.count
  }

  /// The number of connections being served.
  package var activeConnections: Int { connections.count }

  private func acceptLoop() {
    // Out of descriptors or memory: logged; the loop backs off briefly.
    let failed: (SocketError) -> Void = { [emit] error in
      emit(.connectionFailed(address: "-", peer: nil, error: .wrap(error)))
    }
    listener.acceptUntilClosed(failed: failed) { socket in
      switch connections.arrive(socket) {
      case .admitted(let id, let deadline):
        active.enter()
        connectionsChanged(connections.count)
        let thread = Thread { [self] in
          serve(socket, deadline: deadline, id: id)
          connections.leave(id)
          connectionsChanged(connections.count)
          active.leave()
        }
        thread.name = "share-session"
        thread.start()
      case .refuse(let why):
        let thread = Thread { [self] in
          refuse(socket, why)
          connections.refused()
        }
        thread.name = "share-refusal"
        thread.start()
      case .close:
        socket.close()
      }
    }
  }

  /// Tells a connection over the caps `busy` (which needs its TLS handshake, within a second),
  /// so its sender can say so and try again, and logs it once per address per burst.
  private func refuse(_ socket: Socket, _ why: String) {
    emit(.connectionFailed(address: socket.peerAddress, peer: nil, error: Self.busy(why)))
    guard let tls = try? TLSConnection.accept(socket, context: context, timeout: .seconds(1)) else { return }
    FramedConnection(tls, limits: configuration.limits).fail(code: "busy", message: Self.busyMessage(why))
  }

  /// What a sender turned away over the caps is told.
  static func busyMessage(_ why: String) -> String { "busy: \(why); try again in a moment" }

  /// How a refusal over the caps is logged.
  static func busy(_ why: String) -> ShareError { .transport("refused as busy: \(why)", detail: "over the connection caps") }

  private func serve(_ socket: Socket, deadline: ContinuousClock.Instant, id: Int) {
    let address = socket.peerAddress
    let tls: TLSConnection
    do {
      tls = try TLSConnection.accept(socket, context: context, timeout: max(.milliseconds(1), deadline - .now))
      try tls.setIdleTimeout(configuration.idleTimeout)
    } catch {
      emit(.connectionFailed(address: address, peer: nil, error: .wrap(error)))
      socket.close()
      return
    }
    let fingerprint = tls.peerFingerprint
    let contact = gatekeeper?.trust.trusts(fingerprint) == true ? fingerprint.hex : nil
    if let why = connections.handshakeDone(id, contact: contact) {
      emit(.connectionFailed(address: address, peer: nil, error: Self.busy(why)))
      FramedConnection(tls, limits: configuration.limits).fail(code: "busy", message: Self.busyMessage(why))
      return
    }
    let session = ReceiveSession(
      connection: FramedConnection(tls, limits: configuration.limits), address: address,
      port: socket.peerPort, context: sessions, policy: policy.withLock { $0 })
    session.engaged = { [connections] in connections.engaged(id, true) }
    session.run()
  }
}
