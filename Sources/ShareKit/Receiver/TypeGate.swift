import Wire

/// The receiver's type rules (declarations + registry + content sniffing). Filled in by the
/// type-declarations layer.
public struct TypeGate: Sendable {
  public var sniffLength: Int { 0 }
  public var summary: AcceptsSummary? { nil }

  public func judge(name: String, kind: ItemKind) -> OfferVerdict {
    OfferVerdict(accepted: true, reason: "accepted", type: nil, storedName: name)
  }

  public func judgeContent(name: String, kind: ItemKind, head: [UInt8], size: Int64?) -> ContentVerdict {
    ContentVerdict(accepted: true, reason: "accepted", type: nil)
  }
}
