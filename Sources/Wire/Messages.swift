import Foundation

/// The protocol version this build speaks. Peers must speak the same version.
public let protocolVersion = 1

/// What an offered item is.
public enum ItemKind: String, Codable, Sendable, CaseIterable {
  case file, folder, url, text
}

/// `Hello`: the first message each way. The sender speaks first.
public struct Hello: Codable, Sendable, Equatable {
  public var version: Int
  /// The device name, as its owner chose it (untrusted: escape before display).
  public var name: String
  /// The device ID (64 hex digits); must equal the fingerprint of the certificate presented.
  public var id: String
  /// The receiver's summary of what it accepts; nil from a sender.
  public var accepts: AcceptsSummary?

  public init(version: Int = protocolVersion, name: String, id: String, accepts: AcceptsSummary? = nil) {
    self.version = version
    self.name = name
    self.id = id
    self.accepts = accepts
  }
}

/// What a receiver accepts, so a sender can warn before it sends bytes: its declarations in
/// brief (the same shape as the type layer's summary, which ShareKit converts to and from).
public struct AcceptsSummary: Codable, Sendable, Equatable {
  /// Accepted groups: a name and the type identifiers it accepts.
  public var documentTypes: [DocumentTypeSummary]
  /// Type identifiers excluded even when they would conform.
  public var excludedTypes: [String]
  /// The receiver's own type declarations, so the sender can map names to them.
  public var declaredTypes: [DeclaredType]

  public init(documentTypes: [DocumentTypeSummary], excludedTypes: [String], declaredTypes: [DeclaredType] = []) {
    self.documentTypes = documentTypes
    self.excludedTypes = excludedTypes
    self.declaredTypes = declaredTypes
  }
}

/// One accepted group of a receiver's declarations.
public struct DocumentTypeSummary: Codable, Sendable, Equatable {
  public var name: String
  public var contentTypes: [String]

  public init(name: String, contentTypes: [String]) {
    self.name = name
    self.contentTypes = contentTypes
  }
}

/// A receiver-declared type, as summarised in its Hello.
public struct DeclaredType: Codable, Sendable, Equatable {
  public var identifier: String
  public var conformsTo: [String]
  public var filenameExtensions: [String]

  public init(identifier: String, conformsTo: [String], filenameExtensions: [String]) {
    self.identifier = identifier
    self.conformsTo = conformsTo
    self.filenameExtensions = filenameExtensions
  }
}

/// `Ask`: the items a sender offers, each describing itself before any byte is read.
public struct Ask: Codable, Sendable, Equatable {
  public var items: [ItemOffer]
  public init(items: [ItemOffer]) { self.items = items }
}

/// One offered item.
public struct ItemOffer: Codable, Sendable, Equatable {
  /// Unique within the Ask.
  public var id: Int
  public var kind: ItemKind
  /// A single file name (never a path): the receiver refuses anything else.
  public var name: String
  /// Total bytes, or nil when unknown in advance (standard input).
  public var size: Int64?
  /// The sender's idea of the type: a hint for display, never trusted by the receiver.
  public var type: String?
  /// An opaque key that is the same when the same source is offered again, for resuming.
  public var resumeKey: String?
  /// For a folder: its entries, in the order their bytes will be sent.
  public var entries: [EntryOffer]?

  public init(
    id: Int, kind: ItemKind, name: String, size: Int64?, type: String? = nil,
    resumeKey: String? = nil, entries: [EntryOffer]? = nil
  ) {
    self.id = id
    self.kind = kind
    self.name = name
    self.size = size
    self.type = type
    self.resumeKey = resumeKey
    self.entries = entries
  }
}

/// One entry of an offered folder.
public struct EntryOffer: Codable, Sendable, Equatable {
  /// Relative path inside the folder, components joined by "/".
  public var path: String
  /// `.file` or `.folder`.
  public var kind: ItemKind
  /// Bytes of a file entry (0 for a folder).
  public var size: Int64

  public init(path: String, kind: ItemKind, size: Int64) {
    self.path = path
    self.kind = kind
    self.size = size
  }
}

/// `Answer`: the receiver's verdict on each offered item.
public struct Answer: Codable, Sendable, Equatable {
  public var items: [ItemAnswer]
  public init(items: [ItemAnswer]) { self.items = items }
}

/// The verdict on one item.
public struct ItemAnswer: Codable, Sendable, Equatable {
  public var id: Int
  public var accepted: Bool
  /// Why, in words a person understands.
  public var reason: String?
  /// The type the receiver decided on from the name.
  public var type: String?
  /// Where to start sending: the receiver already holds the bytes before it.
  public var offset: Int64?
  /// For a folder: a verdict per offered entry, in the same order.
  public var entries: [EntryAnswer]?

  public init(
    id: Int, accepted: Bool, reason: String? = nil, type: String? = nil, offset: Int64? = nil,
    entries: [EntryAnswer]? = nil
  ) {
    self.id = id
    self.accepted = accepted
    self.reason = reason
    self.type = type
    self.offset = offset
    self.entries = entries
  }
}

/// The verdict on one folder entry.
public struct EntryAnswer: Codable, Sendable, Equatable {
  public var accepted: Bool
  public var reason: String?
  public init(accepted: Bool, reason: String? = nil) {
    self.accepted = accepted
    self.reason = reason
  }
}

/// `Receipt`: what became of each item, sent once everything is durable.
public struct Receipt: Codable, Sendable, Equatable {
  public var items: [ItemReceipt]
  public init(items: [ItemReceipt]) { self.items = items }
}

/// The outcome for one item.
public struct ItemReceipt: Codable, Sendable, Equatable {
  public enum Status: String, Codable, Sendable {
    /// Durably in the Inbox under `storedAs`.
    case stored
    /// Refused by the receiver, at Ask time or on its content; nothing kept.
    case rejected
    /// Accepted but not stored (bad digest, short data, disk full, ...); nothing kept in the Inbox.
    case failed
  }
  public var id: Int
  public var status: Status
  /// The name in the receiver's Inbox.
  public var storedAs: String?
  public var reason: String?
  public var type: String?
  public var size: Int64?
  public var sha256: Digest?
  /// For a folder: how many entries were stored and how many were not.
  public var entriesStored: Int?
  public var entriesRefused: Int?
  /// For a folder: its entries that were not stored, each with why (the first few, in offer
  /// order; `entriesRefused` counts them all). Absent from older receivers.
  public var refusedEntries: [RefusedEntry]?

  /// One entry of a folder that was not stored, and why.
  public struct RefusedEntry: Codable, Sendable, Equatable {
    /// Its path inside the folder, as offered.
    public var path: String
    public var reason: String
    public init(path: String, reason: String) {
      self.path = path
      self.reason = reason
    }
  }

  public init(
    id: Int, status: Status, storedAs: String? = nil, reason: String? = nil, type: String? = nil,
    size: Int64? = nil, sha256: Digest? = nil, entriesStored: Int? = nil, entriesRefused: Int? = nil,
    refusedEntries: [RefusedEntry]? = nil
  ) {
    self.id = id
    self.status = status
    self.storedAs = storedAs
    self.reason = reason
    self.type = type
    self.size = size
    self.sha256 = sha256
    self.entriesStored = entriesStored
    self.entriesRefused = entriesRefused
    self.refusedEntries = refusedEntries
  }
}

/// `Failure`: the peer gives up on the connection and says why.
public struct Failure: Codable, Sendable, Equatable {
  /// A stable code: "version", "protocol", "busy", "refused", "shutdown", "internal".
  public var code: String
  public var message: String
  public init(code: String, message: String) {
    self.code = code
    self.message = message
  }
}

/// `Wait`: the receiver will answer later (a person is being asked); the sender keeps waiting.
public struct Wait: Codable, Sendable, Equatable {
  public var message: String
  /// Seconds the receiver will wait for the person at most.
  public var timeout: Int?
  public init(message: String, timeout: Int? = nil) {
    self.message = message
    self.timeout = timeout
  }
}

/// `Pair`: instead of an Ask, the sender asks to become a contact. Both people compare a code
/// derived from both certificates; the receiver's owner accepts with `share accept`.
public struct Pair: Codable, Sendable, Equatable {
  public init() {}
}

/// `PairResult`: the receiver's answer to a `Pair`. The first says whether its owner accepted
/// (nobody is trusted yet); after the sender's `PairConfirm`, a second says whether the receiver
/// now trusts the sender.
public struct PairResult: Codable, Sendable, Equatable {
  public var accepted: Bool
  public var reason: String?
  public init(accepted: Bool, reason: String? = nil) {
    self.accepted = accepted
    self.reason = reason
  }
}

/// `PairConfirm`: the sender's person says whether the codes matched, once the receiver's owner
/// accepted. Only a confirmed pairing makes either side trust the other, so a "no" on either
/// side leaves no one-sided trust behind.
public struct PairConfirm: Codable, Sendable, Equatable {
  public var confirmed: Bool
  public init(confirmed: Bool) { self.confirmed = confirmed }
}

/// `Skip`: the receiver refuses an item (or folder entry) on its first bytes, or can keep no more
/// of it (its disk reserve), while the sender is still sending it: stop and end it empty;
/// whatever is in flight is dropped.
public struct Skip: Codable, Sendable, Equatable {
  public var item: Int
  public var entry: Int?
  public var reason: String
  public init(item: Int, entry: Int? = nil, reason: String) {
    self.item = item
    self.entry = entry
    self.reason = reason
  }
}

/// Any control message.
public enum Message: Sendable, Equatable {
  case hello(Hello)
  case ask(Ask)
  case answer(Answer)
  case receipt(Receipt)
  case failure(Failure)
  case wait(Wait)
  case pair(Pair)
  case pairResult(PairResult)
  case pairConfirm(PairConfirm)
  case skip(Skip)

  /// The `type` field on the wire.
  public var typeName: String {
    switch self {
    case .hello: return "hello"
    case .ask: return "ask"
    case .answer: return "answer"
    case .receipt: return "receipt"
    case .failure: return "failure"
    case .wait: return "wait"
    case .pair: return "pair"
    case .pairResult: return "pair_result"
    case .pairConfirm: return "pair_confirm"
    case .skip: return "skip"
    }
  }
}
