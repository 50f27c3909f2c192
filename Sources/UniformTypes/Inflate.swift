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

  /// Inflates a stream whose compressed bytes `input` hands out a piece at a time (nil or
  /// empty: no more), handing what comes out to `body` at most `pieceSize` bytes at a time, so a
  /// part of any size costs one piece of memory. Ends where the stream does, turns out corrupt,
  /// or the input runs out; false when `body` stopped it (returned false).
  static func inflating(
    _ input: () -> [UInt8]?, format: Format, pieceSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) -> Bool
  ) -> Bool {
    var stream = z_stream()
    guard share_inflate_init(&stream, format.windowBits) == Z_OK else { return true }
    defer { inflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: max(1, pieceSize))
    var stopped = false
    while let compressed = input(), !compressed.isEmpty {
      let wantsMore = compressed.withUnsafeBytes { raw -> Bool in
        // zlib never writes through next_in; its declaration lacks the const.
        stream.next_in = UnsafeMutablePointer(mutating: raw.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(raw.count)
        while true {
          var status = Z_OK
          let written = output.withUnsafeMutableBytes { buffer -> Int in
            stream.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(buffer.count)
            status = inflate(&stream, Z_NO_FLUSH)
            return buffer.count - Int(stream.avail_out)
          }
          if written > 0, !output.withUnsafeBytes({ body(UnsafeRawBufferPointer(rebasing: $0[..<written])) }) {
            stopped = true
            return false
          }
          // Z_BUF_ERROR: nothing more without more input. Z_STREAM_END or Z_DATA_ERROR: done.
          if status == Z_BUF_ERROR || (status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0) { return true }
          if status != Z_OK { return false }
        }
      }
      if !wantsMore { break }
    }
    return !stopped
  }
}
