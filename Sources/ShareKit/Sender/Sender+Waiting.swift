import Foundation
import TLS
import TextEscaping
import Wire

/// Waiting for the receiver's reply to an offer or a pairing request, boundedly.
extension Sender {
  /// The reply `pick` takes. The receiver has `answerTimeout` to reply, unless it says it is
  /// asking its owner (`Wait`): then as long as it announced, counted from that Wait, and never
  /// more than `maximumWait` after its first Wait (plus `replyGrace` for the reply to arrive);
  /// a receiver that never announces a time gets `maximumWait`. Each Wait is reported with the
  /// time left. Past the deadline, or on `cancel()` (Ctrl-C), the wait ends at once — never a
  /// long stall per read. A `Failure` becomes the peer's error; anything else breaks the protocol.
  func awaitReply<Value>(
    _ expected: String, on connection: FramedConnection, from receiver: ReceiverClaims,
    observer: (SendEvent) -> Void, _ pick: (Message) -> Value?
  ) throws -> Value {
    var deadline = ContinuousClock.now + answerTimeout
    var limit: ContinuousClock.Instant? = nil
    var waited = false
    while true {
      let left = deadline - ContinuousClock.now
      guard left > .zero else { throw noReply(from: receiver, waited: waited) }
      try connection.tls.setIdleTimeout(left)
      let message: Message
      do {
        message = try connection.receiveMessage(expecting: expected)
      } catch TLSError.timedOut {
        throw noReply(from: receiver, waited: waited)
      }
      if let value = pick(message) { return value }
      switch message {
      case .wait(let wait):
        let now = ContinuousClock.now
        let cap = limit ?? now + maximumWait
        limit = cap
        waited = true
        let announced = wait.timeout.map { Duration.seconds(min(max(0, $0), 1 << 30)) } ?? maximumWait
        deadline = min(cap, now + announced) + replyGrace
        observer(.waiting(wait.message, timeLeft: deadline - now))
      case .failure(let f):
        throw ShareError.peerFailure(code: f.code, message: f.message)
      default:
        throw WireError.unexpected(expected: expected, got: "a \(message.typeName) message")
      }
    }
  }

  private func noReply(from receiver: ReceiverClaims, waited: Bool) -> ShareError {
    let who = "\(receiver.peerName.shown(limit: Escaping.maximumLength)) at \(receiver.address)"
    let why = waited ? "in the time it said its owner had to answer" : "within \(Int(answerTimeout / .seconds(1))) seconds"
    return .transport("\(who) did not reply \(why); nothing was sent", detail: "no reply before the deadline")
  }
}
