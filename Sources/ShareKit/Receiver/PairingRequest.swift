import TLS
import TextEscaping
import Wire

/// A peer's request to become a contact, in place of an Ask: the owner compares the code both
/// sides derive from both certificates and both nonces (`exchangeNonces`) and accepts or
/// declines it; accepted, and confirmed by the sender's person (`PairConfirm`), the peer joins
/// the trust store. A "no" on either side, or a sender that goes away, trusts nobody.
struct PairingRequest {
  let connection: FramedConnection
  let context: SessionContext
  let peer: PeerInfo
  /// The `Pair`'s exchange: `Pair.currentExchange`, or nil from an older sender.
  let exchange: Int?

  /// Asks the owner (the sender is told it waits), then answers with a `PairResult`.
  func answer() throws {
    guard let gatekeeper = context.gatekeeper else {
      try connection.sendNow(.pairResult(PairResult(accepted: false, reason: "this receiver does not pair")))
      return
    }
    guard exchange == Pair.currentExchange else {
      let reason: PeerText =
        "this receiver pairs only with a newer share, whose codes a device in the middle cannot match; update share on the sending device"
      try connection.sendNow(.pairResult(PairResult(accepted: false, reason: reason)))
      return
    }
    let code = verificationCode(context.device.fingerprint, peer.fingerprint, nonces: try exchangeNonces())
    let connection = self.connection
    var watch: PeerWatch? = nil
    let refusal = gatekeeper.consent(
      peerName: peer.name, peer: peer.fingerprint, address: peer.address, items: [], pairingCode: code
    ) { ask, senderLeft in
      let seconds = Int(gatekeeper.askTimeout / .seconds(1))
      try? connection.sendNow(
        .wait(Wait(message: PeerText("waiting for the receiver's owner to compare the code (ask \(ask.id))"), timeout: seconds)))
      watch = PeerWatch(connection.tls, departed: senderLeft)
    }
    watch?.stop()
    if let refusal {
      try connection.sendNow(.pairResult(PairResult(accepted: false, reason: PeerText(refusal.message))))
      return
    }
    // Accepted here; the sender's person confirms the code too before anyone is trusted.
    try connection.sendNow(.pairResult(PairResult(accepted: true, reason: "accepted by the receiver's owner")))
    try connection.tls.setIdleTimeout(gatekeeper.askTimeout)
    guard case .pairConfirm(let confirm) = try connection.receiveMessage(expecting: "PairConfirm"), confirm.confirmed else {
      let why = ShareError.cancelled("the pairing was not confirmed on the sender's side; nobody was trusted")
      context.emit(.connectionFailed(address: peer.address, peer: peer, error: why))
      return
    }
    // The mode may have changed while the sender's person compared (review 40).
    guard gatekeeper.mode.effective() == .everyone else {
      let reason =
        "the receiver stopped taking pairings (mode \(gatekeeper.mode.effective().rawValue)) before it was confirmed; nobody was trusted"
      try connection.sendNow(.pairResult(PairResult(accepted: false, reason: PeerText(reason))))
      context.emit(.connectionFailed(address: peer.address, peer: peer, error: .refusedHere(message: reason)))
      return
    }
    let clash: TrustedPeer?
    do {
      clash = try context.trustUnlessNameTaken(TrustedPeer(id: peer.fingerprint, name: peer.name))
    } catch {
      try connection.sendNow(.pairResult(PairResult(accepted: false, reason: "the receiver could not save its contacts")))
      context.emit(.connectionFailed(address: peer.address, peer: peer, error: error))
      return
    }
    if let other = clash {
      let reason = "meanwhile another device (\(other.id.short)) became a contact called \(other.name) here; nobody was trusted"
      try connection.sendNow(.pairResult(PairResult(accepted: false, reason: PeerText(reason))))
      context.emit(.connectionFailed(address: peer.address, peer: peer, error: .refusedHere(message: reason)))
      return
    }
    try connection.sendNow(.pairResult(PairResult(accepted: true)))
    context.emit(.paired(peer))
  }

  /// Commits to a nonce of this side, takes the sender's, then shows this side's: the sender's
  /// nonce comes only after this side can no longer choose its own (review 39).
  private func exchangeNonces() throws -> PairingNonces {
    let mine = PairingNonces.random()
    try connection.sendNow(.pairKey(PairKey(commitment: PairingNonces.commitment(to: mine))))
    guard case .pairKey(let key) = try connection.receiveMessage(expecting: "PairKey"), let theirs = key.nonce else {
      throw WireError.unexpected(expected: "PairKey", got: "a PairKey without a nonce")
    }
    try connection.sendNow(.pairKey(PairKey(nonce: mine)))
    return PairingNonces(sender: theirs, receiver: mine)
  }
}
