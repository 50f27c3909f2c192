/// The payload of a `begin` frame: which item's bytes follow, and from where.
///
/// Binary rather than JSON because it precedes every item, including thousands of small ones.
/// Layout (big-endian): item id (4 bytes), entry index (4 bytes, `0xFFFF_FFFF` for none), offset
/// (8 bytes), then, only when the offset is not zero, the 32-byte SHA-256 of the bytes before
/// the offset, so the receiver can prove the prefix it holds is the sender's.
package struct BeginFrame: Equatable, Sendable {
  /// Largest encoded size.
  package static let maxSize = 16 + Digest.size
  private static let noEntry: UInt32 = 0xFFFF_FFFF

  package var item: Int
  /// The index into the offered folder's entries, or nil for an item that is not a folder.
  package var entry: Int?
  /// Where the bytes that follow start within the item.
  package var offset: Int64
  /// SHA-256 of bytes `0..<offset` of the item; present exactly when `offset > 0`.
  package var prefixDigest: Digest?

  package init(item: Int, entry: Int? = nil, offset: Int64 = 0, prefixDigest: Digest? = nil) {
    self.item = item
    self.entry = entry
    self.offset = offset
    self.prefixDigest = prefixDigest
  }

  /// The frame payload (header not included).
  package var encoded: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(BeginFrame.maxSize)
    append(UInt64(UInt32(truncatingIfNeeded: item)), bytes: 4, to: &out)
    append(UInt64(entry.map { UInt32(truncatingIfNeeded: $0) } ?? BeginFrame.noEntry), bytes: 4, to: &out)
    append(UInt64(bitPattern: offset), bytes: 8, to: &out)
    if offset > 0, let prefixDigest { out += prefixDigest.bytes }
    return out
  }

  /// Decodes a payload; rejects negative offsets and a digest that does not match the offset.
  package init(decoding bytes: [UInt8]) throws(WireError) {
    guard bytes.count == 16 || bytes.count == BeginFrame.maxSize else {
      throw .malformedBegin("\(bytes.count) bytes")
    }
    let rawItem = read(bytes, at: 0, count: 4)
    let rawEntry = read(bytes, at: 4, count: 4)
    let rawOffset = Int64(bitPattern: read(bytes, at: 8, count: 8))
    guard rawOffset >= 0 else { throw .malformedBegin("negative offset") }
    item = Int(rawItem)
    entry = rawEntry == UInt64(BeginFrame.noEntry) ? nil : Int(rawEntry)
    offset = rawOffset
    if bytes.count == BeginFrame.maxSize {
      guard rawOffset > 0 else { throw .malformedBegin("prefix digest without an offset") }
      prefixDigest = Digest(bytes: Array(bytes[16...]))
    } else {
      guard rawOffset == 0 else { throw .malformedBegin("offset without a prefix digest") }
      prefixDigest = nil
    }
  }
}

private func append(_ value: UInt64, bytes count: Int, to out: inout [UInt8]) {
  for shift in stride(from: (count - 1) * 8, through: 0, by: -8) {
    out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
  }
}

private func read(_ bytes: [UInt8], at start: Int, count: Int) -> UInt64 {
  var value: UInt64 = 0
  for i in start..<(start + count) { value = value << 8 | UInt64(bytes[i]) }
  return value
}
