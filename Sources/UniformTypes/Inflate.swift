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
  /// The output grows as it fills (from 64 KiB), so a high limit costs only what is produced.
  static func inflated(_ compressed: UnsafeRawBufferPointer, format: Format, limit: Int) -> [UInt8]? {
    guard let input = compressed.baseAddress, !compressed.isEmpty, limit > 0 else { return nil }
    var stream = z_stream()
    guard share_inflate_init(&stream, format.windowBits) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    // zlib never writes through next_in; its declaration lacks the const.
    stream.next_in = UnsafeMutablePointer(mutating: input.assumingMemoryBound(to: Bytef.self))
    stream.avail_in = uInt(compressed.count)
    var output: [UInt8] = []
    var status = Z_OK
    // Z_STREAM_END, or Z_BUF_ERROR (input cut, or the limit reached), or Z_DATA_ERROR: in each
    // case what was written before stands.
    while status == Z_OK, output.count < limit {
      let produced = output.count
      let room = min(limit, max(64 << 10, produced * 2)) - produced
      output += repeatElement(0, count: room)
      let written = output.withUnsafeMutableBytes { buffer -> Int in
        let space = UnsafeMutableRawBufferPointer(rebasing: buffer[produced...])
        stream.next_out = space.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(space.count)
        status = inflate(&stream, Z_NO_FLUSH)
        return space.count - Int(stream.avail_out)
      }
      output.removeLast(room - written)
      if written == 0 { break }
    }
    return output.isEmpty ? nil : output
  }
}
