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
  /// is known (both sides derive it from both certificates and both nonces), before the
  /// receiver's owner answers;
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
      var outcome = PairOutcome(peerName: hello.name, peerFingerprint: fingerprint, code: "", accepted: false)
      // Refused here once the peer is known, before its owner is asked (review 36 L7: a name
      // clash was refused only after the request had been shown on the other device).
      if let reason = refuse(hello.name, fingerprint) {
        (outcome.reason, outcome.declinedHere) = (PeerText(reason), true)
        return outcome
      }
      try connection.sendNow(.pair(Pair()))
      let receiver = ReceiverClaims(peerName: hello.name, address: session.candidate.address, offers: [])
      guard let nonces = try exchangeNonces(on: connection, from: receiver, refused: &outcome, observer: observer) else {
        return outcome
      }
      outcome.code = verificationCode(device.fingerprint, fingerprint, nonces: nonces)
      showCode(outcome.code, hello.name, fingerprint)
      let answer = try pairResult(on: connection, from: receiver, observer: observer)
      guard answer.accepted else {
        outcome.reason = answer.reason
        return outcome
      }
      // Checked again now the owner there has accepted: a contact here may have taken the name
      // meanwhile, and after a confirmation the other device trusts this one (review 40).
      if let reason = refuse(hello.name, fingerprint) {
        try connection.sendNow(.pairConfirm(PairConfirm(confirmed: false)))
        (outcome.reason, outcome.declinedHere) = (PeerText(reason), true)
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

  /// The nonces of both sides: the receiver's commitment, this side's nonce, the receiver's,
  /// which must be the one it committed to (a device in the middle that could choose its nonce
  /// after seeing this one could make both codes match: review 39). Nil when the receiver
  /// refused to pair (`refused` then has its reason).
  private func exchangeNonces(
    on connection: FramedConnection, from receiver: ReceiverClaims, refused outcome: inout PairOutcome,
    observer: @escaping (SendEvent) -> Void
  ) throws -> PairingNonces? {
    enum Step {
      case key(PairKey)
      case refused(PeerText?)
      /// An accepting PairResult with no exchange: an older receiver, whose code is of the
      /// certificates alone.
      case older
    }
    func next() throws -> Step {
      try awaitReply("PairKey", on: connection, from: receiver, observer: observer) { message -> Step? in
        switch message {
        case .pairKey(let key): return .key(key)
        case .pairResult(let result): return result.accepted ? .older : .refused(result.reason)
        default: return nil
        }
      }
    }
    let first = try next()
    guard case .key(let committed) = first, let commitment = committed.commitment else {
      if case .refused(let reason) = first {
        outcome.reason = reason
        return nil
      }
      guard case .older = first else {
        throw ShareError.peerFailure(code: "protocol", message: "the receiver did not commit to its pairing nonce; nobody was trusted")
      }
      throw ShareError.peerFailure(
        code: "version",
        message: "the receiver pairs as an older share does, whose codes a device in the middle can match; update share there")
    }
    let mine = PairingNonces.random()
    try connection.sendNow(.pairKey(PairKey(nonce: mine)))
    guard case .key(let revealed) = try next(), let theirs = revealed.nonce,
      PairingNonces.commitment(to: theirs) == commitment
    else {
      throw ShareError.peerFailure(
        code: "protocol",
        message: "the receiver's pairing nonce is not the one it committed to (a device in the middle?); nobody was trusted")
    }
    return PairingNonces(sender: mine, receiver: theirs)
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
