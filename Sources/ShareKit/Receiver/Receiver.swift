import Dispatch
import Foundation
import InboxStore
import Synchronization
import System
import TLS
import Wire

/// Settings of a receiver that do not change while it runs.
public struct ReceiverConfiguration: Sendable {
  /// Address to listen on; nil for every interface, IPv4 and IPv6.
  public var host: String?
  /// Port to listen on; 0 for any free port.
  public var port: UInt16
  /// A peer must finish the TLS handshake within this time.
  public var handshakeTimeout: Duration
  /// A peer that sends nothing for this long is dropped.
  public var idleTimeout: Duration
  /// Connections served at once, in total and per peer address.
  public var maxConnections: Int
  public var maxConnectionsPerAddress: Int
  public var limits: WireLimits
  /// Bytes always left free on the disk holding the Inbox: items that would eat into them are
  /// refused before any byte moves, and an item whose bytes reach them as they are written (one
  /// of unknown size, or several sends at once) fails there, its staging removed.
  public var reserveBytes: Int64

  public init(
    host: String? = nil, port: UInt16 = 0, handshakeTimeout: Duration = .seconds(10),
    idleTimeout: Duration = .seconds(60), maxConnections: Int = 64, maxConnectionsPerAddress: Int = 8,
    limits: WireLimits = .default, reserveBytes: Int64 = 64 << 20
  ) {
    self.host = host
    self.port = port
    self.handshakeTimeout = handshakeTimeout
    self.idleTimeout = idleTimeout
    self.maxConnections = maxConnections
    self.maxConnectionsPerAddress = maxConnectionsPerAddress
    self.limits = limits
    self.reserveBytes = reserveBytes
  }
}

/// The receiving side: listens, runs one session per connection on its own thread, and files
/// what it accepts into the Inbox.
///
/// `@unchecked Sendable`: the listener and TLS context are immutable and thread-safe; the
/// mutable connection table lives in a `Mutex`.
public final class Receiver: @unchecked Sendable {
  public let device: Device
  public let store: InboxStore
  public let configuration: ReceiverConfiguration
  private let listener: TCPListener
  private let context: TLSContext
  private let policy: Mutex<ReceivePolicy>
  private let emit: @Sendable (ReceiverEvent) -> Void
  private let state = Mutex(State())
  private let sessions: SessionContext
  /// Entered by each session thread, left when it ends: what a graceful stop waits on.
  private let active = DispatchGroup()
  /// Who may ask, and the person's consent; nil accepts every ask the policy accepts.
  public let gatekeeper: Gatekeeper?
  /// Transfers in flight.
  public let transfers = TransferTable()

  private struct State {
    var open: [Int: Socket] = [:]
    var perAddress: [String: Int] = [:]
    var nextID = 0
    var stopped = false
  }

  /// The port it listens on.
  public var port: UInt16 { listener.port }

  /// Binds the listening socket (so the port is known at once) without accepting yet.
  public init(
    device: Device, store: InboxStore, policy: ReceivePolicy, configuration: ReceiverConfiguration,
    gatekeeper: Gatekeeper? = nil, events: @escaping @Sendable (ReceiverEvent) -> Void
  ) throws(ShareError) {
    ignoreSIGPIPE()
    self.device = device
    self.store = store
    self.configuration = configuration
    self.policy = Mutex(policy)
    self.emit = events
    self.gatekeeper = gatekeeper
    sessions = SessionContext(
      device: device, store: store, gatekeeper: gatekeeper, transfers: transfers,
      reserve: DiskReserve(bytes: configuration.reserveBytes, store: store), emit: events)
    do {
      context = try TLSContext(identity: device.identity, role: .server)
      listener = try TCPListener(host: configuration.host, port: configuration.port)
    } catch {
      throw ShareError.wrap(error)
    }
  }

  /// Replaces the policy for connections that start from now on.
  public func update(policy newPolicy: ReceivePolicy) {
    policy.withLock { $0 = newPolicy }
  }

  /// Starts accepting on a thread of its own.
  public func start() {
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "share-accept"
    thread.start()
    emit(.listening(port: port))
  }

  /// Stops accepting and aborts every connection in flight at once.
  public func stop() { stop(grace: .zero) }

  /// Stops gracefully: no new connections or asks; transfers in flight get up to `grace` to
  /// finish, then are cancelled (a resumable item's staging is kept for the sender's next try).
  /// Returns how many connections had to be cancelled.
  @discardableResult
  public func stop(grace: Duration) -> Int {
    listener.close()
    gatekeeper?.close()
    state.withLock { $0.stopped = true }
    if active.wait(timeout: .now() + .nanoseconds(Int(grace / .nanoseconds(1)))) == .success { return 0 }
    let sockets = state.withLock { Array($0.open.values) }
    for socket in sockets { socket.close() }
    // Give the sessions a moment to keep their staging and place what is verified.
    _ = active.wait(timeout: .now() + 5)
    return sockets.count
  }

  /// The number of connections being served.
  public var activeConnections: Int { state.withLock { $0.open.count } }

  private func acceptLoop() {
    while true {
      let socket: Socket
      do {
        socket = try listener.accept()
      } catch .listenerClosed {
        return
      } catch {
        // Out of descriptors or memory: back off briefly rather than spin on a readable socket.
        emit(.connectionFailed(address: "-", peer: nil, error: .wrap(error)))
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
      thread.name = "share-session"
      thread.start()
    }
  }

  /// Registers a connection, or refuses it over the caps.
  private func admit(_ socket: Socket) -> Int? {
    let address = socket.peerAddress
    let admitted = state.withLock { state -> Int? in
      guard !state.stopped, state.open.count < configuration.maxConnections,
        state.perAddress[address, default: 0] < configuration.maxConnectionsPerAddress
      else { return nil }
      state.nextID += 1
      state.open[state.nextID] = socket
      state.perAddress[address, default: 0] += 1
      return state.nextID
    }
    if admitted == nil {
      emit(.connectionFailed(address: address, peer: nil, error: .transport("too many connections; refused", detail: "connection cap reached")))
    }
    return admitted
  }

  private func release(_ id: Int, address: String) {
    state.withLock { state in
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
      try tls.setIdleTimeout(configuration.idleTimeout)
    } catch {
      emit(.connectionFailed(address: address, peer: nil, error: .wrap(error)))
      socket.close()
      return
    }
    let session = ReceiveSession(
      connection: FramedConnection(tls, limits: configuration.limits), address: address,
      port: socket.peerPort, context: sessions, policy: policy.withLock { $0 })
    session.run()
  }
}
