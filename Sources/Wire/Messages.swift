import Foundation
import TextEscaping

/// The protocol version this build speaks. Peers must speak the same version.
package let protocolVersion = 1

/// What an offered item is.
package enum ItemKind: String, Codable, Sendable, CaseIterable {
  case file, folder, url, text
}

/// `Hello`: the first message each way. The sender speaks first.
package struct Hello: Codable, Sendable, Equatable {
  package var version: Int
  /// The device name, as its owner chose it.
  package var name: PeerText
  /// The device ID (64 hex digits); must equal the fingerprint of the certificate presented.
  package var id: String
  /// The receiver's summary of what it accepts; nil from a sender.
  package var accepts: AcceptsSummary?
  /// The most a sender's Hello may take (a name, an ID and a version: a few hundred bytes); the
  /// receiver reads it before anything is proven.
  package static let maxBytes = 64 << 10

  package init(version: Int = protocolVersion, name: PeerText, id: String, accepts: AcceptsSummary? = nil) {
    self.version = version
    self.name = name
    self.id = id
    self.accepts = accepts
  }
}

/// What a receiver accepts, so a sender can warn before it sends bytes: its declarations in
/// brief (the same shape as the type layer's summary, which ShareKit converts to and from).
package struct AcceptsSummary: Codable, Sendable, Equatable {
  /// Accepted groups: a name and the type identifiers it accepts.
  package var documentTypes: [DocumentTypeSummary]
  /// Type identifiers excluded even when they would conform.
  package var excludedTypes: [String]
  /// The receiver's own type declarations, so the sender can map names to them.
  package var declaredTypes: [DeclaredType]

  package init(documentTypes: [DocumentTypeSummary], excludedTypes: [String], declaredTypes: [DeclaredType] = []) {
    self.documentTypes = documentTypes
    self.excludedTypes = excludedTypes
    self.declaredTypes = declaredTypes
  }
}

/// One accepted group of a receiver's declarations.
package struct DocumentTypeSummary: Codable, Sendable, Equatable {
  package var name: String
  package var contentTypes: [String]

  package init(name: String, contentTypes: [String]) {
    self.name = name
    self.contentTypes = contentTypes
  }
}

/// A receiver-declared type, as summarised in its Hello.
package struct DeclaredType: Codable, Sendable, Equatable {
  package var identifier: String
  package var conformsTo: [String]
  package var filenameExtensions: [String]

  package init(identifier: String, conformsTo: [String], filenameExtensions: [String]) {
    self.identifier = identifier
    self.conformsTo = conformsTo
    self.filenameExtensions = filenameExtensions
  }
}

/// `Ask`: the items a sender offers, each describing itself before any byte is read.
package struct Ask: Codable, Sendable, Equatable {
  package var items: [ItemOffer]
  package init(items: [ItemOffer]) { self.items = items }
}

/// One offered item.
package struct ItemOffer: Codable, Sendable, Equatable {
  /// Unique within the Ask.
  package var id: Int
  package var kind: ItemKind
  /// A single file name (never a path): the receiver refuses anything else.
  package var name: PeerText
  /// Total bytes, or nil when unknown in advance (standard input).
  package var size: Int64?
  /// The sender's idea of the type: a hint for display, never trusted by the receiver.
  package var type: String?
  /// An opaque key that is the same when the same source is offered again, for resuming.
  package var resumeKey: String?
  /// For a folder: its entries, in the order their bytes will be sent.
  package var entries: [EntryOffer]?

  package init(
    id: Int, kind: ItemKind, name: PeerText, size: Int64?, type: String? = nil,
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
package struct EntryOffer: Codable, Sendable, Equatable {
  /// Relative path inside the folder, components joined by "/".
  package var path: PeerText
  /// `.file` or `.folder`.
  package var kind: ItemKind
  /// Bytes of a file entry (0 for a folder).
  package var size: Int64

  package init(path: PeerText, kind: ItemKind, size: Int64) {
    self.path = path
    self.kind = kind
    self.size = size
  }
}

/// `Answer`: the receiver's verdict on each offered item.
package struct Answer: Codable, Sendable, Equatable {
  package var items: [ItemAnswer]
  package init(items: [ItemAnswer]) { self.items = items }
}

/// The verdict on one item.
package struct ItemAnswer: Codable, Sendable, Equatable {
  package var id: Int
  package var accepted: Bool
  /// Why, in words a person understands.
  package var reason: PeerText?
  /// The type the receiver decided on from the name.
  package var type: String?
  /// Where to start sending: the receiver already holds the bytes before it.
  package var offset: Int64?
  /// For a folder: a verdict per offered entry, in the same order.
  package var entries: [EntryAnswer]?

  package init(
    id: Int, accepted: Bool, reason: PeerText? = nil, type: String? = nil, offset: Int64? = nil,
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
package struct EntryAnswer: Codable, Sendable, Equatable {
  package var accepted: Bool
  package var reason: PeerText?
  package init(accepted: Bool, reason: PeerText? = nil) {
    self.accepted = accepted
    self.reason = reason
  }
}

/// `Receipt`: what became of each item, sent once everything is durable.
package struct Receipt: Codable, Sendable, Equatable {
  package var items: [ItemReceipt]
  package init(items: [ItemReceipt]) { self.items = items }
}

/// The outcome for one item.
package struct ItemReceipt: Codable, Sendable, Equatable {
  /// The reason a receiver gives for an item whose sender ended it without its digest: all the
  /// receiver knows. The sender, which knows why, says its own words instead.
  package static let senderGaveUp = "the sender gave up on it"

  package enum Status: String, Codable, Sendable {
    /// Durably in the Inbox under `storedAs`.
    case stored
    /// Refused by the receiver, at Ask time or on its content; nothing kept.
    case rejected
    /// Accepted but not stored (bad digest, short data, disk full, ...); nothing kept in the Inbox.
    case failed
  }
  package var id: Int
  package var status: Status
  /// The name in the receiver's Inbox.
  package var storedAs: PeerText?
  package var reason: PeerText?
  package var type: String?
  package var size: Int64?
  package var sha256: Digest?
  /// For a folder: how many entries were stored and how many were not.
  package var entriesStored: Int?
  package var entriesRefused: Int?
  /// For a folder: its entries that were not stored, each with why (the first few, in offer
  /// order; `entriesRefused` counts them all). Absent from older receivers.
  package var refusedEntries: [RefusedEntry]?

  /// One entry of a folder that was not stored, and why.
  package struct RefusedEntry: Codable, Sendable, Equatable {
    /// Its path inside the folder, as offered.
    package var path: PeerText
    package var reason: PeerText
    package init(path: PeerText, reason: PeerText) {
      self.path = path
      self.reason = reason
    }
  }

  package init(
    id: Int, status: Status, storedAs: PeerText? = nil, reason: PeerText? = nil, type: String? = nil,
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
package struct Failure: Codable, Sendable, Equatable {
  /// A stable code: "version", "protocol", "busy", "refused", "shutdown", "internal".
  package var code: String
  package var message: PeerText
  package init(code: String, message: PeerText) {
    self.code = code
    self.message = message
  }
}

/// `Wait`: the receiver will answer later (a person is being asked); the sender keeps waiting.
package struct Wait: Codable, Sendable, Equatable {
  package var message: PeerText
  /// Seconds the receiver will wait for the person at most.
  package var timeout: Int?
  package init(message: PeerText, timeout: Int? = nil) {
    self.message = message
    self.timeout = timeout
  }
}

/// `Pair`: instead of an Ask, the sender asks to become a contact. Both people compare a code
/// derived from both certificates and from a nonce of each side, exchanged by `PairKey` with
/// the receiver committed to its own before it sees the sender's (`exchange` 2); the
/// receiver's owner accepts with `share accept`. A `Pair` without `exchange` is an older
/// sender's, whose code came from the certificates alone: refused (review 39).
package struct Pair: Codable, Sendable, Equatable {
  package var exchange: Int?
  package init(exchange: Int? = Pair.currentExchange) { self.exchange = exchange }
  /// The commit-and-reveal exchange of nonces.
  package static let currentExchange = 2
}

/// `PairKey`: one step of a pairing's nonce exchange, after `Pair` — the receiver's commitment
/// to its nonce (the SHA-256 of it, hex), then the sender's nonce, then the receiver's (32
/// random bytes each, hex). As in Bluetooth's numeric comparison: a device in the middle must
/// commit to its nonce on one side before it learns the other side's, so it cannot choose the
/// two codes to match (review 39: a code of the two certificates alone was matched in 0.1 s
/// with keys made for it).
package struct PairKey: Codable, Sendable, Equatable {
  package var commitment: Digest?
  package var nonce: Digest?
  package init(commitment: Digest? = nil, nonce: Digest? = nil) {
    self.commitment = commitment
    self.nonce = nonce
  }
}

/// `PairResult`: the receiver's answer to a `Pair`. The first says whether its owner accepted
/// (nobody is trusted yet); after the sender's `PairConfirm`, a second says whether the receiver
/// now trusts the sender.
package struct PairResult: Codable, Sendable, Equatable {
  package var accepted: Bool
  package var reason: PeerText?
  package init(accepted: Bool, reason: PeerText? = nil) {
    self.accepted = accepted
    self.reason = reason
  }
}

/// `PairConfirm`: the sender's person says whether the codes matched, once the receiver's owner
/// accepted. Only a confirmed pairing makes either side trust the other, so a "no" on either
/// side leaves no one-sided trust behind.
package struct PairConfirm: Codable, Sendable, Equatable {
  package var confirmed: Bool
  package init(confirmed: Bool) { self.confirmed = confirmed }
}

/// `Skip`: the receiver refuses an item (or folder entry) on its first bytes, or can keep no more
/// of it (its disk reserve), while the sender is still sending it: stop and end it empty;
/// whatever is in flight is dropped.
package struct Skip: Codable, Sendable, Equatable {
  package var item: Int
  package var entry: Int?
  package var reason: PeerText
  package init(item: Int, entry: Int? = nil, reason: PeerText) {
    self.item = item
    self.entry = entry
    self.reason = reason
  }
}

/// Any control message.
package enum Message: Sendable, Equatable {
  case hello(Hello)
  case ask(Ask)
  case answer(Answer)
  case receipt(Receipt)
  case failure(Failure)
  case wait(Wait)
  case pair(Pair)
  case pairKey(PairKey)
  case pairResult(PairResult)
  case pairConfirm(PairConfirm)
  case skip(Skip)

  /// The `type` field on the wire.
  package var typeName: String {
    switch self {
    case .hello: return "hello"
    case .ask: return "ask"
    case .answer: return "answer"
    case .receipt: return "receipt"
    case .failure: return "failure"
    case .wait: return "wait"
    case .pair: return "pair"
    case .pairKey: return "pair_key"
    case .pairResult: return "pair_result"
    case .pairConfirm: return "pair_confirm"
    case .skip: return "skip"
    }
  }
}
