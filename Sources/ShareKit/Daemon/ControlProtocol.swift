import Foundation

/// A request on the daemon's control socket: one JSON object per line, one request per
/// connection, e.g. `{"command":"accept","id":3,"trust":true}`.
package enum ControlRequest: Sendable, Equatable {
  /// The longest request line the daemon reads (a request is a command and a few fields).
  static let maxBytes = 64 << 10

  /// What the daemon is doing (`share status`).
  case status
  /// The asks waiting for the person (`share requests`).
  case requests
  /// Lets a waiting ask through; `trust`: its sender becomes a contact too.
  case accept(id: Int, trust: Bool)
  case decline(id: Int)
  /// Changes the receive mode; with `everyone`, `forSeconds` until it falls back to `contacts`.
  case receive(mode: ReceiveMode, forSeconds: Double?)
  /// Re-reads the declarations and the contacts.
  case reload
  /// The LocalSend devices heard, after announcing and waiting up to `waitSeconds` for answers.
  case localSendPeers(waitSeconds: Double?)

  /// A request that is well-formed JSON but not one the daemon knows, with what to say.
  package struct Invalid: Error, Sendable, Equatable {
    package var message: String
  }
}

extension ControlRequest: Codable {
  /// The JSON shape: a command and the fields it takes.
  private struct Fields: Codable {
    var command: String
    var id: Int?
    var mode: ReceiveMode?
    var forSeconds: Double?
    var trust: Bool?
  }

  package init(from decoder: any Decoder) throws {
    let fields = try Fields(from: decoder)
    switch fields.command {
    case "status": self = .status
    case "requests": self = .requests
    case "reload": self = .reload
    case "localsend_peers": self = .localSendPeers(waitSeconds: fields.forSeconds)
    case "accept", "decline":
      guard let id = fields.id else { throw Invalid(message: "which ask? (an ID from 'share requests')") }
      self = fields.command == "accept" ? .accept(id: id, trust: fields.trust ?? false) : .decline(id: id)
    case "receive":
      guard let mode = fields.mode else { throw Invalid(message: "which mode?") }
      self = .receive(mode: mode, forSeconds: fields.forSeconds)
    default:
      throw Invalid(message: "unknown request \(fields.command)")
    }
  }

  package func encode(to encoder: any Encoder) throws {
    let fields: Fields
    switch self {
    case .status: fields = Fields(command: "status")
    case .requests: fields = Fields(command: "requests")
    case .reload: fields = Fields(command: "reload")
    case .localSendPeers(let seconds): fields = Fields(command: "localsend_peers", forSeconds: seconds)
    case .accept(let id, let trust): fields = Fields(command: "accept", id: id, trust: trust)
    case .decline(let id): fields = Fields(command: "decline", id: id, trust: false)
    case .receive(let mode, let seconds): fields = Fields(command: "receive", mode: mode, forSeconds: seconds)
    }
    try fields.encode(to: encoder)
  }
}

/// The daemon's answer.
package struct ControlResponse: Codable, Sendable, Equatable {
  /// The longest answer a command reads: every waiting ask (16 at most) lists at most
  /// `PendingAsk.listedItems` items, each with a name of at most 4 KiB.
  static let maxBytes = 16 << 20

  package var ok: Bool
  package var error: String?
  package var status: DaemonStatus?
  package var requests: [PendingAsk]?
  /// For accept/decline: the ask decided.
  package var decided: PendingAsk?
  /// For `localsend_peers`: the LocalSend devices heard (nil when LocalSend is off).
  package var localsendPeers: [LocalSendPeer]? = nil

  package init(ok: Bool, error: String? = nil, status: DaemonStatus? = nil, requests: [PendingAsk]? = nil, decided: PendingAsk? = nil) {
    self.ok = ok
    self.error = error
    self.status = status
    self.requests = requests
    self.decided = decided
  }
}

/// What `share status` shows.
package struct DaemonStatus: Codable, Sendable, Equatable {
  package var name: String
  package var id: String
  package var pid: Int32
  package var port: UInt16
  package var mode: ReceiveMode
  /// When `everyone` falls back to `contacts`.
  package var modeUntil: Date?
  /// The name Avahi advertises (it may differ after a collision); nil when not advertised.
  package var advertisedAs: String?
  package var advertising: String
  package var inbox: String
  package var declarations: String
  package var startedAt: Date
  package var transfers: [TransferStatus]
  package var pending: [PendingAsk]
  /// The LocalSend receiver, when on.
  package var localsend: LocalSendStatus? = nil
  /// Parts of interrupted items kept for resuming, their bytes, and for how long each is kept.
  package var partsKept: Int = 0
  package var partsKeptBytes: Int64 = 0
  package var partsKeptDays: Int = 7
}

enum ControlCoding {
  static let encoder = JSONCoding.encoder()
  static let decoder = JSONCoding.decoder()
}
