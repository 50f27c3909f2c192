import Glibc

/// Where a payload's bytes are read from.
enum ByteSource {
  case memory([UInt8])
  case descriptor(Int32)
  /// A file read with pread from offset 0, so several senders can share one descriptor.
  case positioned(Int32)
  case failed(String)

  /// Reads up to `buffer.count` bytes; 0 at the end, -1 on error (errno set).
  func read(into buffer: UnsafeMutableRawBufferPointer, at offset: inout Int) -> Int {
    switch self {
    case .memory(let bytes):
      let count = min(buffer.count, bytes.count - offset)
      guard count > 0 else { return 0 }
      bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
      offset += count
      return count
    case .descriptor(let fd):
      while true {
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n < 0 && errno == EINTR { continue }
        return n
      }
    case .positioned(let fd):
      while true {
        let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
        if n < 0 && errno == EINTR { continue }
        if n > 0 { offset += n }
        return n
      }
    case .failed:
      return -1
    }
  }
}
