import TLS
import Wire

extension Sender {
  /// What pairing ended with.
  public struct PairOutcome: Sendable {
    public var peerName: String
    public var peerFingerprint: Fingerprint
    /// The six digits both people compare.
    public var code: String
    public var accepted: Bool
    public var reason: String?
  }

  /// Asks the receiver to make this device a contact. `showCode` is called as soon as the code
  /// is known (both sides derive it from both certificates), before the receiver's owner answers.
  public func pair(
    with endpoint: Endpoint, showCode: (String, String, Fingerprint) -> Void, observer: @escaping (SendEvent) -> Void = { _ in }
  ) throws(ShareError) -> PairOutcome {
    do {
      let session = try openSession(endpoint)
      let (connection, hello) = (session.connection, session.hello)
      let fingerprint = connection.tls.peerFingerprint
      defer { connection.close() }
      let code = verificationCode(device.fingerprint, fingerprint)
      showCode(code, hello.name, fingerprint)
      try connection.sendNow(.pair(Pair()))
      let receiver = ReceiverClaims(peerName: hello.name, address: session.candidate.address, offers: [])
      let result = try awaitReply("PairResult", on: connection, from: receiver, observer: observer) { message -> PairResult? in
        if case .pairResult(let result) = message { return result }
        return nil
      }
      return PairOutcome(peerName: hello.name, peerFingerprint: fingerprint, code: code, accepted: result.accepted, reason: result.reason)
    } catch {
      if isCancelled { throw .cancelled("cancelled") }
      throw ShareError.wrap(error)
    }
  }
}
