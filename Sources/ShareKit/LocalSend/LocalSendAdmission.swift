import LocalSend
import System
import TLS

/// The LocalSend server's door is share's: `Admission`'s caps, carried out by a
/// `ConnectionTable` (the TLS handshake must be done by one deadline that no read extends;
/// unauthenticated connections capped per address and in total, the oldest of the most crowded
/// address making room; a reserve of slots for contacts, recognised by their certificates), and
/// failures before that logged once per address per burst.
///
/// LocalSend has no Hello: a connection counts as proven once its handshake is done. A sender
/// turned away is closed (HTTP has no `busy` a LocalSend app would show). A stranger's connection
/// between requests, or dripping one, is not at work and makes room for another when strangers
/// hold every slot (`Admission.helloAccepted`).
final class LocalSendAdmission: LocalSendDoor {
  private let table: ConnectionTable
  private let isContact: @Sendable (LocalSendFingerprint) -> Bool

  init(
    configuration: ReceiverConfiguration, isContact: @escaping @Sendable (LocalSendFingerprint) -> Bool,
    events: @escaping @Sendable (ReceiverEvent) -> Void
  ) {
    table = ConnectionTable(limits: configuration.admissionLimits, helloTimeout: configuration.helloTimeout, events: events)
    self.isContact = isContact
  }

  func arrive(_ socket: Socket) -> (id: Int, deadline: ContinuousClock.Instant)? {
    switch table.arrive(socket) {
    case .admitted(let id, let deadline):
      return (id, deadline)
    case .refuse(let why):
      table.report(.connectionFailed(address: socket.peerAddress, peer: nil, error: Receiver.busy(why)))
      table.refused()
      return nil
    case .close:
      return nil
    }
  }

  func handshakeDone(_ id: Int, certificate: LocalSendFingerprint?) -> Bool {
    let contact = certificate.flatMap { isContact($0) ? "localsend:\($0)" : nil }
    return table.handshakeDone(id, contact: contact) == nil && table.proven(id) == nil
  }

  func engaged(_ id: Int, _ engaged: Bool) { table.engaged(id, engaged) }

  func leave(_ id: Int) { table.leave(id) }
}
