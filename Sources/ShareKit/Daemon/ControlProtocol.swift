import Foundation

/// A request on the daemon's control socket: one JSON object per line, one request per
/// connection.
public struct ControlRequest: Codable, Sendable, Equatable {
  /// `status`, `requests`, `accept`, `decline`, `receive`, `reload`.
  public var command: String
  /// The ask to accept or decline.
  public var id: Int?
  /// For `receive`: the new mode.
  public var mode: ReceiveMode?
  /// For `receive everyone`: seconds until it falls back to `contacts`.
  public var forSeconds: Double?
  /// For `accept`: also trust the peer from now on.
  public var trust: Bool?

  public init(command: String, id: Int? = nil, mode: ReceiveMode? = nil, forSeconds: Double? = nil, trust: Bool? = nil) {
    self.command = command
    self.id = id
    self.mode = mode
    self.forSeconds = forSeconds
    self.trust = trust
  }
}

/// The daemon's answer.
public struct ControlResponse: Codable, Sendable, Equatable {
  public var ok: Bool
  public var error: String?
  public var status: DaemonStatus?
  public var requests: [PendingAsk]?
  /// For accept/decline: the ask decided.
  public var decided: PendingAsk?

  public init(ok: Bool, error: String? = nil, status: DaemonStatus? = nil, requests: [PendingAsk]? = nil, decided: PendingAsk? = nil) {
    self.ok = ok
    self.error = error
    self.status = status
    self.requests = requests
    self.decided = decided
  }
}

/// What `share status` shows.
public struct DaemonStatus: Codable, Sendable, Equatable {
  public var name: String
  public var id: String
  public var pid: Int32
  public var port: UInt16
  public var mode: ReceiveMode
  /// When `everyone` falls back to `contacts`.
  public var modeUntil: Date?
  /// The name Avahi advertises (it may differ after a collision); nil when not advertised.
  public var advertisedAs: String?
  public var advertising: String
  public var inbox: String
  public var declarations: String
  public var startedAt: Date
  public var transfers: [TransferStatus]
  public var pending: [PendingAsk]
}

enum ControlCoding {
  static let encoder = JSONCoding.encoder()
  static let decoder = JSONCoding.decoder()
}
