import TextEscaping
import Wire

/// What a running daemon reports, for its log and `--json` events: the receiver's events, with
/// items named by the names they were offered under rather than by the wire's offers. Names
/// and reasons are `PeerText`: the log shows them escaped, `--json` carries them whole.
package enum DaemonEvent: Sendable {
  case listening(port: UInt16)
  case connected(PeerInfo)
  /// An ask from a stranger (or a pairing request) waits for the owner: `share accept` it by
  /// its number.
  case ask(PendingAsk)
  /// A waiting ask was withdrawn: every connection that waited on it went away (the sender
  /// pressed Ctrl-C); `share accept` of it now says it is gone.
  case withdrawn(PendingAsk)
  /// An ask arrived: how many items it offers, and how many of them were accepted.
  case asked(PeerInfo, offered: Int, accepted: Int)
  case stored(PeerInfo, item: PeerText, storedAs: PeerText, size: Int64, type: String?)
  /// `acceptWith`: for the receiver's owner, the command that would accept the item (`share types accept .iso`).
  case refused(PeerInfo, item: PeerText, reason: PeerText, acceptWith: String?)
  /// More refusals of one ask than are logged one by one (`ReceiverEvent.refusedMore`).
  case refusedMore(PeerInfo, count: Int, reason: PeerText)
  case failed(PeerInfo, item: PeerText, reason: PeerText)
  /// More failures of one ask than are logged one by one (`ReceiverEvent.failedMore`).
  case failedMore(PeerInfo, count: Int, reason: PeerText)
  /// A connection ended with an error (before or during the exchange).
  case connectionFailed(address: String, peer: PeerInfo?, error: ShareError)
  case finished(PeerInfo, stored: Int, refused: Int, failed: Int)
  /// The owner accepted a pairing request: the peer is now a contact.
  case paired(PeerInfo)

  /// `types`: the rules the item was judged by, to tell the owner how to accept a refused one.
  init(_ event: ReceiverEvent, types: TypeGate? = nil) {
    switch event {
    case .listening(let port): self = .listening(port: port)
    case .connected(let peer): self = .connected(peer)
    case .asked(let peer, let items, let answers):
      self = .asked(peer, offered: items.count, accepted: answers.filter(\.accepted).count)
    case .stored(let peer, let item, let storedAs, let size, let type, _):
      self = .stored(peer, item: item.name, storedAs: PeerText(storedAs), size: size, type: type?.rawValue)
    case .refused(let peer, let item, let reason):
      self = .refused(
        peer, item: item.name, reason: PeerText(reason), acceptWith: types?.acceptCommand(name: item.name.unescaped, kind: item.kind))
    case .refusedMore(let peer, let count, let reason): self = .refusedMore(peer, count: count, reason: PeerText(reason))
    case .failed(let peer, let item, let reason): self = .failed(peer, item: item.name, reason: PeerText(reason))
    case .failedMore(let peer, let count, let reason): self = .failedMore(peer, count: count, reason: PeerText(reason))
    case .connectionFailed(let address, let peer, let error): self = .connectionFailed(address: address, peer: peer, error: error)
    case .finished(let peer, let stored, let refused, let failed):
      self = .finished(peer, stored: stored, refused: refused, failed: failed)
    case .paired(let peer): self = .paired(peer)
    }
  }
}
