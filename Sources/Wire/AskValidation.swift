import TextEscaping

/// An Ask whose shape `Ask.validate(limits:)` checked: at least one item and not too many (folder
/// entries count), unique ids in range, names and paths of bounded length, no negative size, and
/// entries only on folders. What a receiver then decides about the items (names, kinds, types,
/// sizes against its limits) starts from this and never checks the shape again.
package struct ValidatedAsk: Sendable, Equatable {
  package let items: [ItemOffer]

  /// Only `Ask.validate(limits:)` makes one.
  fileprivate init(_ items: [ItemOffer]) { self.items = items }
}

extension Ask {
  /// Checks what a receiver must be able to rely on before judging items (see `ValidatedAsk`).
  @discardableResult
  package func validate(limits: WireLimits) throws(WireError) -> ValidatedAsk {
    var count = items.count
    var ids = Set<Int>()
    for item in items {
      guard ids.insert(item.id).inserted else { throw .invalidAsk("item id \(item.id) appears twice") }
      guard item.id >= 0, item.id <= Int(UInt32.max - 1) else { throw .invalidAsk("item id \(item.id) out of range") }
      guard item.name.unescaped.utf8.count <= limits.maxNameBytes else { throw .invalidAsk("a name is over \(limits.maxNameBytes) bytes") }
      if let size = item.size, size < 0 { throw .invalidAsk("a size is negative") }
      if let entries = item.entries {
        guard item.kind == .folder else { throw .invalidAsk("only a folder has entries") }
        count += entries.count
        var total: Int64 = 0
        for entry in entries {
          guard entry.size >= 0 else { throw .invalidAsk("a size is negative") }
          guard entry.path.unescaped.utf8.count <= limits.maxNameBytes else {
            throw .invalidAsk("a path is over \(limits.maxNameBytes) bytes")
          }
          let (sum, overflow) = total.addingReportingOverflow(entry.size)
          guard !overflow else { throw .invalidAsk("a folder's entries are too large") }
          total = sum
        }
        // A share sender gives a folder the sum of its entries' sizes; another size would be
        // shown to the owner as the folder's (review 19: "1 byte" for 60 MiB).
        if let size = item.size, size != total { throw .invalidAsk("a folder's size is not the sum of its entries' sizes") }
      }
      guard count <= limits.maxItemsPerAsk else { throw .invalidAsk("more than \(limits.maxItemsPerAsk) items") }
    }
    guard !items.isEmpty else { throw .invalidAsk("no items") }
    return ValidatedAsk(items)
  }
}
