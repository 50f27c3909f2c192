import Foundation
import Synchronization
import System
import TLS
import TextEscaping
import Wire

/// Reaching the receiver: every address of the endpoint at once, the first to prove the
/// expected identity wins.
extension Sender {
  /// A connection whose receiver proved who it is, and where it was reached.
  struct Session {
    let connection: FramedConnection
    let hello: Hello
    let candidate: Endpoint.Candidate
  }

  /// Connects to every address of the endpoint at once, runs the TLS handshake and exchanges
  /// Hellos on each; the first whose certificate is the device expected (and whose Hello names
  /// that device, in this protocol version) is kept, and the others are closed at once. An
  /// address that cannot be reached, never answers, or presents another certificate (a record
  /// copied to point elsewhere) delays nothing.
  ///
  /// When none works, the error names each address and the name it was advertised under, a
  /// certificate mismatch first: it is the one that matters. A `Failure` from a receiver that
  /// proved its identity (another version) is its answer, reported as such. A receiver that
  /// turned the connection away — it said it is busy, or closed the connection before the
  /// Hellos were exchanged, as a receiver does when too many connections are starting — while
  /// no address gave a final answer is tried again after a pause (`busyBackoff`, growing, with
  /// jitter; cut short by `cancel()`) for up to `busyPatience` (connections only closed, at most
  /// `closedRetries` times: a server that hangs up on everyone is not busy), then reported as
  /// what happened last.
  ///
  /// When no address proves the device and the endpoint has addresses `elsewhere` (a known
  /// name resolved directly), those are raced next, in the same way.
  func openSession(_ endpoint: Endpoint, observer: (SendEvent) -> Void) throws -> Session {
    var endpoint = endpoint
    var giveUp = ContinuousClock.now + busyPatience
    let first = max(busyBackoff, .milliseconds(100))
    var pause = first
    var closedRetries = Self.closedRetries
    while true {
      let failure: any Error
      do {
        // Addresses found elsewhere wait for these: a record that accepts and never answers
        // (review 48: a copy of a known name at a silent port) holds them a few seconds, not
        // the whole connect timeout.
        return try raceAddresses(endpoint, timeout: endpoint.elsewhere == nil ? connectTimeout : min(connectTimeout, Self.beforeElsewhere))
      } catch let turnedAway as TurnedAway {
        let wait = Self.jittered(pause)
        if turnedAway.said == nil { closedRetries -= 1 }
        if !isCancelled, closedRetries >= 0, ContinuousClock.now + wait <= giveUp {
          observer(.busy(said: turnedAway.said, retryIn: wait))
          _ = wake.wait(timeout: .now() + .milliseconds(Int(wait / .milliseconds(1))))
          if isCancelled { throw ShareError.cancelled("cancelled") }
          pause = min(pause * 2, first * 4)
          continue
        }
        failure = turnedAway.error
      } catch {
        failure = error
      }
      // However the addresses failed (a record that holds the name and hangs up on everyone
      // too), those found elsewhere are tried next, with patience of their own.
      guard !isCancelled, let more = Self.elsewhere(of: endpoint) else { throw failure }
      endpoint = more
      (giveUp, pause, closedRetries) = (ContinuousClock.now + busyPatience, first, Self.closedRetries)
    }
  }

  /// `endpoint` at the addresses found `elsewhere` that were not tried, or nil when there are
  /// none.
  private static func elsewhere(of endpoint: Endpoint) -> Endpoint? {
    guard let elsewhere = endpoint.elsewhere else { return nil }
    let tried = Set(endpoint.candidates.map(\.address))
    let more = elsewhere().filter { !tried.contains($0.address) }
    guard !more.isEmpty else { return nil }
    var next = endpoint
    next.candidates = more
    next.elsewhere = nil
    return next
  }

  /// How long the first addresses of a name resolved directly have, when others were found for
  /// it, before those are tried.
  static let beforeElsewhere: Duration = .seconds(3)

  /// How many times a receiver that only closed connections (said nothing) is tried again.
  static let closedRetries = 4

  /// The receiver turned the connection away (see `openSession`); `error` says how.
  private struct TurnedAway: Error {
    let error: ShareError
    /// What a receiver that said it is busy said; nil when it only closed the connection.
    let said: PeerText?

    init(_ failures: [(candidate: Endpoint.Candidate, error: any Error)], error: ShareError) {
      self.error = error
      said =
        failures.lazy.compactMap { failure -> PeerText? in
          guard case ShareError.peerFailure("busy", let message) = failure.error else { return nil }
          return Sender.busyWords(message)
        }.first
    }
  }

  /// `pause`, shortened or lengthened by up to a quarter at random.
  static func jittered(_ pause: Duration) -> Duration {
    pause * Double.random(in: 0.75...1.25)
  }

  /// How an address's attempt ended, for deciding whether to come back: turned away (it said
  /// `busy`, or closed the connection during the TLS handshake or before its Hello), a final
  /// answer (another certificate, another protocol version, a refusal other than busy), or
  /// neither (unreachable, refused, silent: another address may be the one that is busy).
  enum AttemptEnd {
    case turnedAway, final, neither

    init(_ error: any Error) {
      switch error {
      case ShareError.peerFailure(code: "busy", _), TLSError.connectionClosed: self = .turnedAway
      case ShareError.peerFailure, ShareError.identityMismatch, ShareError.advertisedIdentityMismatch, WireError.identityMismatch,
        WireError.versionMismatch:
        self = .final
      default: self = .neither
      }
    }
  }

  /// One try of every address at once (see `openSession`).
  private func raceAddresses(_ endpoint: Endpoint, timeout: Duration) throws -> Session {
    let race = ConnectionRace(count: endpoint.candidates.count)
    self.race.withLock { $0 = race }
    defer { self.race.withLock { $0 = nil } }
    if isCancelled { race.cancel() }
    for candidate in endpoint.candidates {
      let thread = Thread { [self] in attempt(candidate, of: endpoint, in: race, timeout: timeout) }
      thread.name = "share-connect"
      thread.start()
    }
    guard let winner = race.wait() else {
      if isCancelled { throw ShareError.cancelled("cancelled") }
      let failures = race.failures
      let failure = Sender.failure(of: endpoint, failures)
      let ends = failures.map { AttemptEnd($0.error) }
      if ends.contains(.turnedAway) && !ends.contains(.final) { throw TurnedAway(failures, error: failure) }
      throw failure
    }
    socket.withLock { $0 = winner.socket }
    if isCancelled { winner.socket.close() }
    return Session(connection: winner.connection, hello: winner.hello, candidate: winner.candidate)
  }

  /// One address's attempt, on a thread of its own: it ends by winning, by failing, or by
  /// closing what it opened when another has won.
  private func attempt(_ candidate: Endpoint.Candidate, of endpoint: Endpoint, in race: ConnectionRace, timeout: Duration) {
    var opened: FramedConnection? = nil
    do {
      let tcp = try Socket.connect(host: candidate.host, port: candidate.port, timeout: timeout)
      guard race.register(tcp) else {
        tcp.close()
        return race.fail(candidate, ShareError.cancelled("another address answered first"))
      }
      let tls = try handshake(
        tcp, expecting: endpoint.expectedFingerprint, name: candidate.advertisedAs ?? endpoint.name,
        advertisedOnly: endpoint.expectedOnlyAsAdvertised, timeout: timeout)
      let connection = FramedConnection(tls)
      opened = connection
      try tls.setIdleTimeout(timeout)
      // The receiver's certificate is the one expected: only now is anything said.
      try connection.sendNow(.hello(Hello(name: PeerText(device.name), id: device.fingerprint.hex)))
      let hello = try receive("Hello", on: connection) { message -> Hello? in
        if case .hello(let hello) = message { return hello }
        return nil
      }
      guard Fingerprint(hex: hello.id) == tls.peerFingerprint else { throw WireError.identityMismatch }
      guard hello.version == protocolVersion else {
        throw WireError.versionMismatch(ours: protocolVersion, theirs: hello.version)
      }
      if race.win(ConnectionRace.Winner(connection: connection, hello: hello, candidate: candidate, socket: tcp)) { return }
      connection.close()
    } catch {
      opened?.close()
      race.fail(candidate, error)
    }
  }

  /// The TLS handshake on a connected socket; a receiver presenting another certificate than
  /// `expected` is an identity mismatch under `name`, found before anything is said to it.
  private func handshake(
    _ tcp: Socket, expecting expected: Fingerprint?, name: PeerText, advertisedOnly: Bool, timeout: Duration
  ) throws -> TLSConnection {
    do {
      return try TLSConnection.connect(tcp, context: context, timeout: timeout, expectedPeer: expected)
    } catch {
      guard case .peerMismatch(let expected, let actual) = error else { throw error }
      if advertisedOnly { throw ShareError.advertisedIdentityMismatch(advertised: expected.hex, actual: actual.hex, peer: name) }
      throw ShareError.identityMismatch(expected: expected.hex, actual: actual.hex, peer: name)
    }
  }

  /// The error for a race that no address won: the certificate mismatch if there was one, a
  /// receiver's own refusal if one said so, else what went wrong at each address.
  static func failure(of endpoint: Endpoint, _ failures: [(candidate: Endpoint.Candidate, error: any Error)]) -> ShareError {
    let errors = failures.map { (candidate: $0.candidate, error: setupError($0.error)) }
    func at(_ failure: (candidate: Endpoint.Candidate, error: ShareError)) -> String {
      let name = failure.candidate.advertisedAs ?? endpoint.label
      return (name.map { "\($0) at " } ?? "") + "\(failure.candidate.address): \(failure.error.description)"
    }
    if let refusal = errors.first(where: { if case .peerFailure = $0.error { true } else { false } }) {
      guard case .peerFailure("busy", let message) = refusal.error else { return refusal.error }
      let name = refusal.candidate.advertisedAs ?? endpoint.label ?? "the receiver"
      return .busy(peer: name.description, address: refusal.candidate.address, reason: busyReason(message))
    }
    let ordered = errors.filter { $0.error.isIdentityMismatch } + errors.filter { !$0.error.isIdentityMismatch }
    guard let first = ordered.first else {
      return .transport("no address to connect to", detail: "empty endpoint")
    }
    let summary =
      ordered.count == 1
      // Joined with "; ", without a description's own full stop (review 36: "timed out.; lab at …").
      ? at(first)
      : "could not reach \(endpoint): " + ordered.map(at).map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }.joined(separator: "; ")
    return .transport(summary, detail: ordered.map { "\($0.candidate.address): \($0.error.detail)" }.joined(separator: "; "))
  }

  /// `error` from an attempt to set a session up: a connection closed then is not "closed before
  /// the transfer finished" (TLS's words), as nothing was set up.
  private static func setupError(_ error: any Error) -> ShareError {
    guard case TLSError.connectionClosed(let detail) = error else { return ShareError.wrap(error) }
    return .transport(
      "it closed the connection before it was set up (as a receiver does when too many connections are starting)",
      detail: detail)
  }

  /// What a busy receiver said, escaped and cut, without the "busy: " and "try again" it wraps
  /// it in.
  static func busyReason(_ message: PeerText) -> String {
    let words = busyWords(message)
    return words.isEmpty ? "it gave no reason" : words.description
  }

  /// What a busy receiver said, without the "busy: " and "try again" it wraps it in.
  static func busyWords(_ message: PeerText) -> PeerText {
    var reason = Substring(message.unescaped)
    if reason.hasPrefix("busy: ") { reason = reason.dropFirst("busy: ".count) }
    if reason.hasSuffix("; try again in a moment") { reason = reason.dropLast("; try again in a moment".count) }
    return PeerText(String(reason))
  }
}
