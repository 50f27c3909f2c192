/// The framing of a share connection, inside TLS.
///
/// Every unit on the wire is a frame: a 5-byte header (kind, then a big-endian 32-bit
/// payload length) followed by the payload. Control messages are JSON; item bytes travel as
/// data frames between a `begin` and an `end` frame. Framing is pure: no I/O happens here.
package enum FrameKind: UInt8, Sendable, CaseIterable {
  /// A JSON control message (`Hello`, `Ask`, `Answer`, `Receipt`, `Failure`).
  case control = 1
  /// Raw bytes of the payload that the last `begin` frame opened.
  case data = 2
  /// The end of a payload: 32 bytes of SHA-256 over the whole item, or empty when the
  /// sender abandons the payload (cancelled, source unreadable).
  case end = 3
  /// Opens a payload: which item (and folder entry) follows, and from which offset.
  case begin = 4
}

/// A decoded frame header.
package struct FrameHeader: Equatable, Sendable {
  /// Bytes in an encoded header.
  package static let size = 5

  package var kind: FrameKind
  package var length: Int

  package init(kind: FrameKind, length: Int) {
    self.kind = kind
    self.length = length
  }

  /// Decodes a header and checks its length against the limits for its kind.
  package init(decoding bytes: some Collection<UInt8>, limits: WireLimits) throws(WireError) {
    guard bytes.count == FrameHeader.size else { throw .truncated }
    var iterator = bytes.makeIterator()
    let rawKind = iterator.next() ?? 0
    guard let kind = FrameKind(rawValue: rawKind) else { throw .unknownFrameKind(rawKind) }
    var length = 0
    for _ in 0..<4 { length = length << 8 | Int(iterator.next() ?? 0) }
    let cap: Int
    switch kind {
    case .control: cap = limits.maxControlBytes
    case .data: cap = limits.maxChunkBytes
    case .end: cap = Digest.size
    case .begin: cap = BeginFrame.maxSize
    }
    guard length <= cap else { throw .frameTooLarge(kind: kind, length: length, limit: cap) }
    if kind == .end, length != 0, length != Digest.size { throw .malformedEnd(length) }
    self.kind = kind
    self.length = length
  }

  /// The 5 header bytes.
  package var encoded: [UInt8] {
    let n = UInt32(truncatingIfNeeded: length)
    return [kind.rawValue, UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)]
  }

  /// Writes the 5 header bytes into `buffer` (which must hold at least `size` bytes).
  package func encode(into buffer: UnsafeMutableRawBufferPointer) {
    precondition(buffer.count >= FrameHeader.size, "header buffer too small")
    let n = UInt32(truncatingIfNeeded: length)
    buffer[0] = kind.rawValue
    buffer[1] = UInt8(n >> 24)
    buffer[2] = UInt8(n >> 16 & 0xff)
    buffer[3] = UInt8(n >> 8 & 0xff)
    buffer[4] = UInt8(n & 0xff)
  }
}

/// Size caps that protect a peer from a hostile counterpart.
package struct WireLimits: Sendable, Equatable {
  /// Largest JSON control message accepted.
  package var maxControlBytes: Int
  /// Largest data frame accepted.
  package var maxChunkBytes: Int
  /// Most items one Ask may list (folder entries count too).
  package var maxItemsPerAsk: Int
  /// Longest item name, in UTF-8 bytes, before the receiver even considers it.
  package var maxNameBytes: Int

  package init(
    maxControlBytes: Int = 16 << 20, maxChunkBytes: Int = 4 << 20,
    maxItemsPerAsk: Int = 100_000, maxNameBytes: Int = 4096
  ) {
    self.maxControlBytes = maxControlBytes
    self.maxChunkBytes = maxChunkBytes
    self.maxItemsPerAsk = maxItemsPerAsk
    self.maxNameBytes = maxNameBytes
  }

  package static let `default` = WireLimits()
}
