import Dispatch
import Synchronization
import System

/// The receiver's open connections and who may open one: `Admission`'s decisions carried out on
/// real sockets, the Hello deadline enforced, and failures of unauthenticated connections logged
/// once per address per burst (`FloodLog`).
///
/// Every method may be called from any thread: the accept thread, session threads, the deadline
/// queue.
final class ConnectionTable: Sendable {
  private struct State {
    var admission: Admission
    var sockets: [Int: Socket] = [:]
    var floodLog = FloodLog()
    /// Refused connections being told `busy`.
    var refusing = 0
    var stopped = false
  }

  private let state: Mutex<State>
  private let helloTimeout: Duration
  /// Where events go once `report` has passed them.
  private let events: @Sendable (ReceiverEvent) -> Void
  private let deadlines = DispatchQueue(label: "share.hello-deadlines")
  /// At most this many refused connections are told `busy` at once; beyond, they are closed.
  static let maxRefusing = 8

  init(limits: Admission.Limits, helloTimeout: Duration, events: @escaping @Sendable (ReceiverEvent) -> Void) {
    state = Mutex(State(admission: Admission(limits: limits)))
    self.helloTimeout = helloTimeout
    self.events = events
  }

  enum Arrival {
    /// Serve it under `id`; its TLS handshake and Hello must be done by `deadline`.
    case admitted(id: Int, deadline: ContinuousClock.Instant)
    /// Tell it `busy` (and why), then close it.
    case refuse(String)
    /// Close it at once (stopping, or too many refusals under way).
    case close
  }

  /// Registers an accepted connection, or says how to turn it away. A connection evicted to make
  /// room is closed here; its session then ends on its own.
  func arrive(_ socket: Socket) -> Arrival {
    let now = ContinuousClock.now
    let (arrival, evicted) = state.withLock { state -> (Arrival, Socket?) in
      if state.stopped { return (.close, nil) }
      switch state.admission.arrive(address: socket.peerAddress, port: socket.peerPort, now: now) {
      case .admitted(let id, let evicting):
        state.sockets[id] = socket
        let evicted = evicting.flatMap { state.sockets.removeValue(forKey: $0) }
        return (.admitted(id: id, deadline: now + helloTimeout), evicted)
      case .refused(let why):
        guard state.refusing < Self.maxRefusing else { return (.close, nil) }
        state.refusing += 1
        return (.refuse(why), nil)
      }
    }
    if let evicted {
      evicted.close()
      report(
        .connectionFailed(
          address: evicted.peerAddress, peer: nil,
          error: .transport("closed: it had not said Hello, and another address needed the room", detail: "evicted")))
    }
    if case .admitted(let id, let deadline) = arrival { expire(id, at: deadline) }
    return arrival
  }

  /// Ends a refusal started by `arrive`.
  func refused() {
    state.withLock { $0.refusing -= 1 }
  }

  /// The TLS handshake of `id` is done; nil, or why it must be told `busy`.
  func handshakeDone(_ id: Int, contact: String?) -> String? {
    state.withLock { $0.admission.handshakeDone(id, contact: contact) }
  }

  /// `id` proved itself without a Hello (see `Admission.proven`); nil, or why it must go.
  func proven(_ id: Int) -> String? {
    let proof = state.withLock { $0.admission.proven(id) }
    if let proof { closeEvicted(proof) }
    return proof?.refusal
  }

  /// `id` is at work, or no longer (`Admission.engaged`).
  func engaged(_ id: Int, _ engaged: Bool) {
    state.withLock { $0.admission.engaged(id, engaged) }
  }

  /// Closes the stranger that made room for `proof`'s, if one did, and says so.
  private func closeEvicted(_ proof: Admission.Proof) {
    guard let id = proof.evicting, let socket = state.withLock({ $0.sockets.removeValue(forKey: id) }) else { return }
    socket.close()
    report(
      .connectionFailed(
        address: socket.peerAddress, peer: nil,
        error: .transport(
          "closed: a stranger's connection that had not begun to send, and another stranger needed the room", detail: "evicted")))
  }

  /// The connection ended.
  func leave(_ id: Int) {
    state.withLock { state in
      state.admission.leave(id)
      state.sockets[id] = nil
    }
  }

  /// Closes `id` if it has not proven itself by `deadline`: the deadline runs from accept and no
  /// read restarts it (a blocked handshake or Hello read then fails at once).
  private func expire(_ id: Int, at deadline: ContinuousClock.Instant) {
    let delay = deadline - ContinuousClock.now
    deadlines.asyncAfter(deadline: .now() + .nanoseconds(Int(delay / .nanoseconds(1)))) { [self] in
      guard let late = state.withLock({ $0.admission.isUnauthenticated(id) ? $0.sockets[id] : nil }) else { return }
      late.close()
      report(
        .connectionFailed(
          address: late.peerAddress, peer: nil,
          error: .transport("closed: no valid Hello within \(helloTimeout) of connecting", detail: "Hello deadline")))
    }
  }

  /// Passes an event on to `events`, or not (see `filter`).
  func report(_ event: ReceiverEvent) {
    if let passed = filter(event) { events(passed) }
  }

  /// A stranger's `connected` (its Hello was valid) ends its unauthenticated stage; a failure of a
  /// connection that never got past it is logged once per address per burst.
  private func filter(_ event: ReceiverEvent) -> ReceiverEvent? {
    switch event {
    case .connected(let peer):
      let outcome = state.withLock { $0.admission.helloAccepted(address: peer.address, port: peer.port) }
      if let outcome { closeEvicted(outcome) }
      if let outcome, let refusal = outcome.refusal {
        // Another stranger took the last slot since the handshake: a rare race, closed.
        state.withLock { $0.sockets[outcome.id] }?.close()
        return .connectionFailed(address: peer.address, peer: peer, error: Receiver.busy(refusal))
      }
      return event
    case .connectionFailed(let address, let peer, let error):
      let unproven = state.withLock { state in
        peer.map { state.admission.isUnauthenticated(address: $0.address, port: $0.port) } ?? true
      }
      return unproven ? unauthenticatedFailure(address: address, peer: peer, error: error) : event
    default:
      return event
    }
  }

  /// A failure of a connection that never got past its unauthenticated stage, logged if it is
  /// the first of a burst from its address (or the periodic reminder of one); with its peer when
  /// its Hello came (its certificate proved the ID; a stranger refused by the mode, say).
  private func unauthenticatedFailure(address: String, peer: PeerInfo?, error: ShareError) -> ReceiverEvent? {
    let decision = state.withLock { $0.floodLog.record(address, now: .now) }
    switch decision {
    case .skip:
      return nil
    case .log(let first, let unlogged, let unloggedAddresses):
      var note =
        first
        ? " (further failures from this address are not logged while they go on)"
        : " (and \(unlogged) more from this address since the last report)"
      if unloggedAddresses > 0 {
        note += " (and failures from \(unloggedAddresses) other addresses, too many at once to log one by one)"
      }
      return .connectionFailed(address: address, peer: peer, error: .transport(error.description + note, detail: error.detail))
    }
  }

  /// Refuses every new connection from now on.
  func stop() {
    state.withLock { $0.stopped = true }
  }

  /// The connections being served.
  var sockets: [Socket] { state.withLock { Array($0.sockets.values) } }

  /// Connections being served.
  var count: Int { state.withLock { $0.sockets.count } }
}
