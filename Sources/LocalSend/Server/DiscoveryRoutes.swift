import Synchronization

/// `GET /info`, `POST /register` and `POST /cancel`.
extension ServerConnection {
  /// This device's description (§6.1); the v1 path answers the same, for old clients.
  func info() -> Reply {
    .json(server.device.info)
  }

  /// A device introducing itself (§3.1 answer, §3.2 probe): validated, passed to the
  /// delegate, answered with this device's description.
  func register(_ exchange: inout Exchange) -> Reply {
    let body: [UInt8]
    switch readJSONBody(&exchange, limit: server.configuration.limits.maxRegisterBodyBytes) {
    case .success(let bytes): body = bytes
    case .failure(let reply): return reply
    }
    let device: LocalSendDevice
    do {
      let limits = server.configuration.limits
      device = try Validation.decode(LocalSendDevice.self, from: body, limit: limits.maxRegisterBodyBytes)
      try Validation.check(device, at: "body", limits: limits)
    } catch {
      return .message(.badRequest, "Invalid body: \(error)")
    }
    if !server.fingerprint.matches(device.fingerprint) {
      server.delegate.localSend(
        registered: RemoteSender(address: address, device: device, certificate: certificate))
    }
    return .json(server.device.info)
  }

  /// The sender gives up (§4.3). A pending offer's decision is cancelled (its sender may leave
  /// the session ID out, not having it yet); an active session ends. Only the session's own
  /// sender can cancel it; anything else is answered 200 and changes nothing.
  func cancel(_ exchange: Exchange) -> Reply {
    let session = exchange.query["sessionId"]
    let (outcome, cancellation) = server.sessions.withLock { $0.cancel(session: session, address: address) }
    switch outcome {
    case .pending:
      cancellation?.cancel()
    case .active(let id):
      server.delegate.localSend(sessionEnded: id, .cancelledBySender)
    case .nothing:
      break
    }
    return .empty(.ok)
  }
}
