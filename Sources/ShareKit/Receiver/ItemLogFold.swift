/// Which of one Ask's refusals and failures this machine's log shows one by one: the first
/// `limit` of either kind; the rest are counted, by kind, with the reason of the first of them,
/// to be told in one line each (`ReceiptBook`).
struct ItemLogFold {
  enum Kind { case refused, failed }

  /// Items not logged on their own, and why the first of them was not stored.
  struct Folded: Equatable {
    var count: Int
    var first: String
  }

  let limit: Int
  private var logged = 0
  private var refused: Folded?
  private var failed: Folded?

  init(limit: Int) { self.limit = limit }

  /// Whether an item refused or failed for `reason` is logged on its own; if not, it is counted.
  mutating func admit(_ kind: Kind, reason: String) -> Bool {
    if logged < limit {
      logged += 1
      return true
    }
    switch kind {
    case .refused: refused = Folded(count: (refused?.count ?? 0) + 1, first: refused?.first ?? reason)
    case .failed: failed = Folded(count: (failed?.count ?? 0) + 1, first: failed?.first ?? reason)
    }
    return false
  }

  /// The items counted so far, by kind; the count starts again (the one-by-one budget does not).
  mutating func take() -> (refused: Folded?, failed: Folded?) {
    defer { (refused, failed) = (nil, nil) }
    return (refused, failed)
  }
}
