import Discovery
import InboxStore
import System
import TLS
import TextEscaping
import Wire

/// A failure at the ShareKit level. `description` is one sentence for a person; `detail` adds
/// what the layer below reported (OpenSSL's error queue, errno, Avahi's message) for `--verbose`.
package enum ShareError: Error, CustomStringConvertible, Sendable {
  /// A configuration file or option is wrong.
  case configuration(String)
  /// Reaching or talking to the peer failed in the TLS or socket layer.
  case transport(String, detail: String)
  /// The peer broke the protocol.
  case wire(WireError)
  /// The peer gave up and said why (in its words: shown escaped and cut).
  case peerFailure(code: String, message: PeerText)
  /// A receiver said something that cannot be true (an answer about an item never offered, a
  /// resume offset past the end of a file): `peer` is its name (escaped), `address` where it
  /// was reached.
  case protocolViolation(peer: String, address: String, problem: String)
  /// A receiver turned this send away at its door (too many connections starting, every slot
  /// taken): `peer` is its name (escaped), `address` where it was reached, `reason` what it said
  /// (escaped). Trying again in a moment may work.
  case busy(peer: String, address: String, reason: String)
  /// The peer's certificate is not the one expected.
  case identityMismatch(expected: String, actual: String, peer: PeerText)
  /// The peer's certificate is not the ID its record nearby claims, for a name this home knows
  /// nothing of yet (no ID remembered for it, no contact of it).
  case advertisedIdentityMismatch(advertised: String, actual: String, peer: PeerText)
  /// The Inbox or staging area failed.
  case inbox(InboxError)
  /// A source to send cannot be read.
  case source(path: String, reason: String)
  /// The operation was cancelled (Ctrl-C, shutdown).
  case cancelled(String)
  /// Finding peers failed (Avahi unreachable, ...).
  case discovery(DiscoveryError)
  /// This side (a receiver) turned the peer away and told it why (`message`): what its own log
  /// says of the connection.
  case refusedHere(message: String)
  /// This receiver proved the device ID of another receiver of the same send (`other`, as its
  /// `--to` named it): the items go to that device once.
  case sameReceiver(as: PeerText)

  /// Whether the peer's certificate was not the one expected (`identityMismatch`,
  /// `advertisedIdentityMismatch`).
  package var isIdentityMismatch: Bool {
    switch self {
    case .identityMismatch, .advertisedIdentityMismatch: return true
    default: return false
    }
  }

  /// Whether the connection failed (reset, closed, timed out) rather than a peer or a check
  /// refusing something.
  package var isTransport: Bool {
    if case .transport = self { return true }
    return false
  }

  package var description: String {
    switch self {
    case .configuration(let message): return message
    case .transport(let message, _): return message
    case .wire(let error): return error.description
    case .peerFailure(_, let message): return "the peer refused: \(message)"
    case .protocolViolation(let peer, let address, let problem):
      return "\(peer) at \(address) broke the share protocol: \(problem)"
    case .busy(let peer, let address, let reason):
      return "\(peer) at \(address) is busy (\(reason)); try again in a moment"
    case .advertisedIdentityMismatch(let expected, let actual, let peer):
      // Review 41: this said "if it really has a new identity, run 'share trust forget'", which
      // answered that nothing was remembered: nothing was; the record and the device disagree.
      return
        "\(peer)'s record nearby advertises the device ID \(expected), but the device at its address presented certificate \(actual): refusing to send (a forged or broken advertisement; this home knows nothing of \(peer) yet — compare IDs with its owner ('share id' there), or send by HOST:PORT)"
    case .identityMismatch(let expected, let actual, let peer):
      return
        "\(peer) presented certificate \(actual), not the expected \(expected): refusing to send (possible impersonation; if \(peer) really has a new identity, check its ID and run \(ShellWords.suggestion(["share", "trust", "forget", peer.unescaped])), or \(ShellWords.suggestion(["share", "trust", "remove", peer.unescaped])) and pair again if it is your contact)"
    case .inbox(let error): return error.description
    case .source(let path, let reason): return "cannot send \(Escaping.escaped(path, maximumLength: 4096)): \(reason)"
    case .cancelled(let why): return why
    case .discovery(let error): return error.description
    case .refusedHere(let message): return "refused: \(message)"
    case .sameReceiver(let other): return "the same device as \(other), already a receiver of this send: its items go there once"
    }
  }

  package var detail: String {
    switch self {
    case .transport(_, let detail): return detail
    case .inbox(let error): return error.detail
    case .discovery(let error): return error.detail ?? error.description
    default: return description
    }
  }

  /// Wraps any error from the layers below.
  package static func wrap(_ error: any Error) -> ShareError {
    switch error {
    case let error as ShareError: return error
    case let error as WireError: return .wire(error)
    case let error as InboxError: return .inbox(error)
    case let error as TLSError: return .transport(error.description, detail: error.detail)
    case let error as SocketError: return .transport(error.description, detail: error.detail)
    case let error as DiscoveryError: return .discovery(error)
    default: return .transport("\(error)", detail: String(reflecting: error))
    }
  }
}
