import InboxStore
import Wire

/// The verdict on an offered item before any of its bytes move.
public struct OfferVerdict: Sendable, Equatable {
  public var accepted: Bool
  /// Why, in words a person understands.
  public var reason: String
  /// The type decided from the name, when known.
  public var type: String?
  /// The name the item will be stored under (before collision suffixes).
  public var storedName: String?

  public static func rejected(_ reason: String, type: String? = nil) -> OfferVerdict {
    OfferVerdict(accepted: false, reason: reason, type: type, storedName: nil)
  }
}

/// The verdict on an item's first bytes.
public struct ContentVerdict: Sendable, Equatable {
  public var accepted: Bool
  public var reason: String
  public var type: String?

  public init(accepted: Bool, reason: String, type: String?) {
    self.accepted = accepted
    self.reason = reason
    self.type = type
  }
}

/// Decides what a receiver takes: names, kinds and sizes here; type rules through `TypeGate`.
public struct ReceivePolicy: Sendable {
  /// The largest single item accepted.
  public var maxItemBytes: Int64
  /// The largest total of one Ask.
  public var maxAskBytes: Int64
  /// The largest URL or text item.
  public static let maxInlineBytes: Int64 = 1 << 20
  /// The type rules, when the home has them.
  public var types: TypeGate?

  public init(maxItemBytes: Int64 = 1 << 40, maxAskBytes: Int64 = 1 << 42, types: TypeGate? = nil) {
    self.maxItemBytes = maxItemBytes
    self.maxAskBytes = maxAskBytes
    self.types = types
  }

  /// Judges one offered item from what it says of itself.
  public func judge(_ offer: ItemOffer) -> OfferVerdict {
    var name: String
    do {
      name = try InboxName.sanitize(offer.name)
    } catch {
      return .rejected("unsafe name: \(error)")
    }
    // A URL or a text is stored as what it is, whatever name it came with.
    switch offer.kind {
    case .url: name = InboxName.withExtension(name, "url")
    case .text: name = InboxName.withExtension(name, "txt")
    default: break
    }
    if offer.kind == .folder, offer.entries == nil { return .rejected("a folder without its entries") }
    if offer.kind != .folder, offer.entries != nil { return .rejected("only a folder has entries") }
    if offer.kind == .url || offer.kind == .text, (offer.size ?? Int64.max) > ReceivePolicy.maxInlineBytes {
      return .rejected("a \(offer.kind.rawValue) item is limited to \(formatBytes(ReceivePolicy.maxInlineBytes))")
    }
    if let size = offer.size {
      if size < 0 { return .rejected("invalid size \(size)") }
      if size > maxItemBytes {
        return .rejected("too large: \(formatBytes(size)) is over this receiver's limit of \(formatBytes(maxItemBytes))")
      }
    }
    guard let types else {
      return OfferVerdict(accepted: true, reason: "accepted", type: nil, storedName: name)
    }
    var verdict = types.judge(name: name, kind: offer.kind)
    verdict.storedName = verdict.accepted ? name : nil
    return verdict
  }

  /// Judges an item's first bytes (all of them when the item is shorter than the sniff length).
  public func judgeContent(name: String, kind: ItemKind, head: [UInt8], size: Int64?) -> ContentVerdict {
    guard let types else { return ContentVerdict(accepted: true, reason: "accepted", type: nil) }
    return types.judgeContent(name: name, kind: kind, head: head, size: size)
  }

  /// How many leading bytes `judgeContent` wants.
  public var sniffLength: Int { types?.sniffLength ?? 0 }

  /// What to tell senders this receiver accepts.
  public var summary: AcceptsSummary? { types?.summary }
}

/// Bytes for people: "1.5 GiB".
public func formatBytes(_ bytes: Int64) -> String {
  let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"]
  var value = Double(bytes)
  var unit = 0
  while value >= 1024 && unit < units.count - 1 {
    value /= 1024
    unit += 1
  }
  if unit == 0 { return "\(bytes) bytes" }
  return value >= 100 ? "\(Int(value.rounded())) \(units[unit])" : "\((value * 10).rounded() / 10) \(units[unit])"
}
