import Foundation
import Synchronization
import TLS

/// `POST /prepare-upload` (§4.1): PIN, validation, the offers being decided, the delegate's
/// decision, the one active session and tokens for what it accepted.
extension ServerConnection {
  func prepareUpload(_ exchange: inout Exchange) -> Reply {
    if let refusal = checkPin(exchange.query["pin"]) { return refusal }
    let release: @Sendable () -> Void
    switch admitOffer(exchange) {
    case .success(let done): release = done
    case .failure(let reply): return reply
    }
    defer { release() }
    let request: PrepareUploadRequest
    switch readOffer(&exchange) {
    case .success(let offer): request = offer
    case .failure(let reply): return reply
    }
    let sessionID = Self.newID()
    let cancellation = OfferCancellation()
    let pending = SessionTable.Pending(id: sessionID, sender: address, cancellation: cancellation)
    guard server.sessions.withLock({ $0.claim(pending, now: .now) }) else {
      return .message(.conflict, "Blocked by another session")
    }

    let sender = RemoteSender(address: address, device: request.info, certificate: certificate)
    let files = request.files.values.sorted { $0.id < $1.id }
    let offer = IncomingOffer(sessionID: sessionID, sender: sender, files: files)
    // A client that hangs up (or sends anything) while its offer waits has given up on it: the
    // offer is withdrawn and the session slot freed at once, not when the owner's answer or the
    // ask's timeout comes (one client that left would otherwise block every other sender).
    let watch = (stream.stream as? TLSConnection).flatMap { PeerWatch($0, departed: { cancellation.cancel() }) }
    let decision = server.delegate.localSend(decide: offer, cancellation: cancellation)
    watch?.stop()
    if cancellation.isCancelled {
      server.sessions.withLock { $0.release(sessionID) }
      // Accepted just as the sender left: the delegate opened a session for it, which ends here.
      if case .accept = decision { server.delegate.localSend(sessionEnded: sessionID, .cancelledBySender) }
      return .message(.forbidden, "Cancelled by sender")
    }
    let chosen: Set<String>
    switch decision {
    case .accept(let ids): chosen = ids
    case .decline, .refuse:
      server.sessions.withLock { $0.release(sessionID) }
      if case .refuse(let reason) = decision { return .message(.forbidden, reason) }
      return .message(.forbidden, "Rejected")
    }
    var accepted: [String: SessionTable.SessionFile] = [:]
    for file in files where chosen.contains(file.id) {
      accepted[file.id] = SessionTable.SessionFile(offer: file, token: Self.newID())
    }
    guard !accepted.isEmpty else {
      server.sessions.withLock { $0.release(sessionID) }
      return .empty(.noContent)
    }
    return activate(sessionID, sender: sender, files: accepted)
  }

  /// The accepted files' session becomes the active one (and ends by itself once idle), or
  /// why it cannot.
  private func activate(_ sessionID: String, sender: RemoteSender, files accepted: [String: SessionTable.SessionFile]) -> Reply {
    switch server.sessions.withLock({ $0.activate(sessionID, sender: sender, files: accepted, now: .now) }) {
    case .activated(let expired):
      if let expired { server.delegate.localSend(sessionEnded: expired, .expired) }
      server.expireWhenIdle(sessionID, after: server.configuration.sessionTimeout)
    case .blocked:
      // Another session is uploading (or was, within the session timeout): this sender may
      // offer again once it is over, as after a 409 on its offer.
      server.delegate.localSend(sessionEnded: sessionID, .blocked)
      return .message(.conflict, "Blocked by another session")
    case .withdrawn:
      server.delegate.localSend(sessionEnded: sessionID, .serverStopped)
      return .message(.serviceUnavailable, "The receiver is stopping")
    }
    return .json(PrepareUploadResponse(sessionId: sessionID, files: accepted.mapValues(\.token)))
  }

  /// Whether the offer's body is read at all (`LocalSendDelegate.localSend(mayOffer:…)`): what to
  /// call once it is decided, or the reply that refuses it unread (and closes the connection).
  private func admitOffer(_ exchange: Exchange) -> Result<@Sendable () -> Void, Reply> {
    let limit = server.configuration.limits.maxPrepareBodyBytes
    var length = limit
    if case .length(let declared) = exchange.head.framing { length = Int(min(declared, Int64(limit))) }
    switch server.delegate.localSend(mayOffer: address, certificate: certificate, length: length) {
    case .proceed(let release): return .success(release)
    case .refuse(let reason): return .failure(.message(.forbidden, reason, close: true))
    case .busy(let reason): return .failure(.message(.conflict, reason, close: true))
    }
  }

  /// The PIN gate's answer, or nil when the request may go on.
  private func checkPin(_ provided: String?) -> Reply? {
    let limit = server.configuration.limits.maxPinBytes
    let pin = provided.map { $0.utf8.count <= limit ? $0 : "" }
    let now = Date().timeIntervalSince1970
    // Asked only with a PIN set: the lockout of everyone does not hold a proven contact out.
    let contact = server.configuration.pin != nil && certificate.map { server.delegate.localSend(isContact: $0) } == true
    let (verdict, closed) = server.pins.withLock { gate in
      let wasOpen = gate.lockedOut(at: now) == nil
      let verdict = gate.check(pin, from: address, provenContact: contact, at: now)
      return (verdict, wasOpen ? gate.lockedOut(at: now) : nil)
    }
    // Once per lockout: the owner hears that PINs are being guessed.
    if let closed { server.delegate.localSend(wrongPins: closed.failures, fromAddresses: closed.addresses) }
    switch verdict {
    case .allowed: return nil
    case .required: return .message(.unauthorized, "PIN required")
    case .invalid: return .message(.unauthorized, "Invalid PIN")
    case .tooManyAttempts: return .message(.tooManyRequests, "Too many requests")
    }
  }

  /// The body, decoded and validated field by field.
  private func readOffer(_ exchange: inout Exchange) -> Result<PrepareUploadRequest, Reply> {
    let limits = server.configuration.limits
    let body: [UInt8]
    switch readJSONBody(&exchange, limit: limits.maxPrepareBodyBytes) {
    case .success(let bytes): body = bytes
    case .failure(let reply): return .failure(reply)
    }
    do {
      let request = try Validation.decode(PrepareUploadRequest.self, from: body, limit: limits.maxPrepareBodyBytes)
      try Validation.check(request, limits: limits)
      return .success(request)
    } catch {
      return .failure(.message(.badRequest, "Invalid body: \(error)"))
    }
  }

  /// A fresh random session ID or token (a version 4 UUID: 122 random bits).
  static func newID() -> String {
    UUID().uuidString.lowercased()
  }
}
