import Synchronization
import System

/// Who may open a connection to a `LocalSendServer`, decided before anything is read from it.
/// The daemon passes share's own admission here (per-address and total caps, a deadline for the
/// TLS handshake that no read extends, contacts recognised by their certificates), so both
/// protocols are guarded by one policy; without one, the server uses `ConnectionCaps`.
///
/// Called from the accept thread and the connection threads.
package protocol LocalSendDoor: Sendable {
  /// A connection was accepted: the ID to serve it under and the instant its TLS handshake must
  /// be done by, or nil to close it at once. The door may close `socket` itself later (a missed
  /// deadline, room made for another address); its connection then ends on its own.
  func arrive(_ socket: Socket) -> (id: Int, deadline: ContinuousClock.Instant)?
  /// Its handshake is done (`certificate`: what the client proved, if it presented one); false
  /// to close it (no room for it).
  func handshakeDone(_ id: Int, certificate: LocalSendFingerprint?) -> Bool
  /// The connection is at work (a request read whole and being answered, an upload under way) or,
  /// `false`, between requests again: a door that is full may make room by closing one that is not.
  func engaged(_ id: Int, _ engaged: Bool)
  /// The connection ended.
  func leave(_ id: Int)
}

/// The server's own door: at most `maxConnections` connections, `maxConnectionsPerAddress` from
/// one address, and `handshakeTimeout` for the TLS handshake.
package final class ConnectionCaps: LocalSendDoor {
  private struct State {
    var perAddress: [String: Int] = [:]
    var addresses: [Int: String] = [:]
    var nextID = 0
  }

  private let state = Mutex(State())
  private let maxConnections: Int
  private let maxConnectionsPerAddress: Int
  private let handshakeTimeout: Duration

  package init(maxConnections: Int, maxConnectionsPerAddress: Int, handshakeTimeout: Duration) {
    self.maxConnections = maxConnections
    self.maxConnectionsPerAddress = maxConnectionsPerAddress
    self.handshakeTimeout = handshakeTimeout
  }

  package func arrive(_ socket: Socket) -> (id: Int, deadline: ContinuousClock.Instant)? {
    let address = socket.peerAddress
    return state.withLock { state in
      guard state.addresses.count < maxConnections, state.perAddress[address, default: 0] < maxConnectionsPerAddress
      else { return nil }
      state.nextID += 1
      state.addresses[state.nextID] = address
      state.perAddress[address, default: 0] += 1
      return (state.nextID, .now + handshakeTimeout)
    }
  }

  package func handshakeDone(_ id: Int, certificate: LocalSendFingerprint?) -> Bool { true }

  package func engaged(_ id: Int, _ engaged: Bool) {}

  package func leave(_ id: Int) {
    state.withLock { state in
      guard let address = state.addresses.removeValue(forKey: id) else { return }
      let left = state.perAddress[address, default: 1] - 1
      state.perAddress[address] = left > 0 ? left : nil
    }
  }
}
