import CZlib

/// zlib's `inflate` over bytes of a head: the one place UniformTypes calls zlib. Pure (no I/O);
/// any thread may call it, each call owns its own `z_stream`.
enum Inflate {
  /// How the compressed bytes are framed.
  enum Format {
    /// Raw deflate, as a ZIP entry stores it.
    case raw
    /// A gzip (or zlib) stream, header and all.
    case gzip

    var windowBits: Int32 { self == .raw ? -MAX_WBITS : MAX_WBITS + 32 }
  }

  /// What `compressed` inflates to, at most `limit` bytes: all of it, or what came before the
  /// input ran out (a head cuts streams short) or turned out corrupt. Nil when nothing came.
  static func inflated(_ compressed: UnsafeRawBufferPointer, format: Format, limit: Int) -> [UInt8]? {
    guard let input = compressed.baseAddress, !compressed.isEmpty, limit > 0 else { return nil }
    var stream = z_stream()
    guard share_inflate_init(&stream, format.windowBits) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    // zlib never writes through next_in; its declaration lacks the const.
    stream.next_in = UnsafeMutablePointer(mutating: input.assumingMemoryBound(to: Bytef.self))
    stream.avail_in = uInt(compressed.count)
    var output = [UInt8](repeating: 0, count: limit)
    let produced = output.withUnsafeMutableBytes { buffer -> Int in
      guard let base = buffer.baseAddress else { return 0 }
      stream.next_out = base.assumingMemoryBound(to: Bytef.self)
      stream.avail_out = uInt(buffer.count)
      // Z_STREAM_END, or Z_BUF_ERROR (input cut, or the limit reached), or Z_DATA_ERROR: in
      // each case what was written before stands.
      _ = inflate(&stream, Z_FINISH)
      return buffer.count - Int(stream.avail_out)
    }
    guard produced > 0 else { return nil }
    output.removeLast(limit - produced)
    return output
  }
}
