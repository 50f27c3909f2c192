import TLS
import TextEscaping
import Wire

extension Sender {
  /// What pairing ended with.
  package struct PairOutcome: Sendable {
    package var peerName: PeerText
    package var peerFingerprint: Fingerprint
    /// The six digits both people compare.
    package var code: String
    package var accepted: Bool
    package var reason: PeerText?
    /// This side's person said the codes do not match (so nobody trusts anybody).
    package var declinedHere = false
  }

  /// Asks the receiver to make this device a contact. `showCode` is called as soon as the code
  /// is known (both sides derive it from both certificates), before the receiver's owner answers;
  /// `confirm`, once the owner accepted, asks this side's person whether the codes match. Only
  /// a confirmed pairing is trusted by the receiver (`accepted`); then the caller trusts it here.
  package func pair(
    with endpoint: Endpoint, refuse: (PeerText, Fingerprint) -> String? = { _, _ in nil },
    showCode: (String, PeerText, Fingerprint) -> Void, confirm: () -> Bool,
    observer: @escaping (SendEvent) -> Void = { _ in }
  ) throws(ShareError) -> PairOutcome {
    do {
      let session = try openSession(endpoint, observer: observer)
      let (connection, hello) = (session.connection, session.hello)
      let fingerprint = connection.tls.peerFingerprint
      defer { connection.close() }
      let code = verificationCode(device.fingerprint, fingerprint)
      var outcome = PairOutcome(peerName: hello.name, peerFingerprint: fingerprint, code: code, accepted: false)
      // Refused here once the peer is known, before its owner is asked (review 36 L7: a name
      // clash was refused only after the request had been shown on the other device).
      if let reason = refuse(hello.name, fingerprint) {
        (outcome.reason, outcome.declinedHere) = (PeerText(reason), true)
        return outcome
      }
      showCode(code, hello.name, fingerprint)
      try connection.sendNow(.pair(Pair()))
      let receiver = ReceiverClaims(peerName: hello.name, address: session.candidate.address, offers: [])
      let answer = try pairResult(on: connection, from: receiver, observer: observer)
      guard answer.accepted else {
        outcome.reason = answer.reason
        return outcome
      }
      let confirmed = confirm()
      try connection.sendNow(.pairConfirm(PairConfirm(confirmed: confirmed)))
      guard confirmed else {
        (outcome.reason, outcome.declinedHere) = ("the codes were not confirmed here", true)
        return outcome
      }
      let result = try pairResult(on: connection, from: receiver, observer: observer)
      (outcome.accepted, outcome.reason) = (result.accepted, result.reason)
      return outcome
    } catch {
      if isCancelled { throw .cancelled("cancelled") }
      throw ShareError.wrap(error)
    }
  }

  /// The receiver's PairResult, within the bounded wait every answer gets (`awaitReply`).
  private func pairResult(
    on connection: FramedConnection, from receiver: ReceiverClaims, observer: @escaping (SendEvent) -> Void
  ) throws -> PairResult {
    try awaitReply("PairResult", on: connection, from: receiver, observer: observer) { message -> PairResult? in
      if case .pairResult(let result) = message { return result }
      return nil
    }
  }
}
