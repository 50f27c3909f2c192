import Glibc
import System

/// Where a payload's bytes are read from.
enum ByteSource {
  case memory([UInt8])
  /// A file, and what it was when it was opened (`changedWhileRead`).
  case file(Int32, FileStamp)
  /// Bytes already read from a stream, then the rest of it.
  case prefixed([UInt8], Int32)
  /// A file read with pread from offset 0, so several senders can share one descriptor.
  case positioned(Int32)
  /// A source that could not be opened: the payload is abandoned with this reason before any
  /// read (callers check for it first).
  case failed(String)

  /// Reads up to `buffer.count` bytes; 0 at the end. A stream (`prefixed`) is waited for a
  /// quarter second at a time, `cancelled` asked in between: a send of standard input stopped
  /// with Ctrl-C while the command before `|` wrote nothing went on until it did (review 38).
  /// A cancelled wait throws `EINTR`.
  func read(
    into buffer: UnsafeMutableRawBufferPointer, at offset: inout Int, cancelled: () -> Bool = { false }
  ) throws(Errno) -> Int {
    switch self {
    case .memory(let bytes):
      let count = min(buffer.count, bytes.count - offset)
      guard count > 0 else { return 0 }
      bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
      offset += count
      return count
    case .file(let fd, _):
      return try FileDescriptor(rawValue: fd).read(into: buffer)
    case .prefixed(let head, let fd):
      guard offset < head.count else {
        while try pollUntil(fd, events: Int16(POLLIN), deadline: .now + .milliseconds(250)) == 0 {
          if cancelled() { throw .interrupted }
        }
        if cancelled() { throw .interrupted }
        return try FileDescriptor(rawValue: fd).read(into: buffer)
      }
      let count = min(buffer.count, head.count - offset)
      head.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
      offset += count
      return count
    case .positioned(let fd):
      let n = try FileDescriptor(rawValue: fd).read(fromAbsoluteOffset: Int64(offset), into: buffer)
      offset += n
      return n
    case .failed:
      throw .badFileDescriptor
    }
  }

  /// How a file changed since it was opened (its size or modification time), in words; nil
  /// when it did not, and for other sources. Asked once all its bytes were read and hashed,
  /// before their digest vouches for them: bytes of two versions are no version.
  func changedWhileRead() -> String? {
    guard case .file(let fd, let opened) = self else { return nil }
    guard let now = try? FileDescriptor(rawValue: fd).status() else { return "it could not be looked at after it was read" }
    return opened.change(to: FileStamp(now)).map { "it changed while being sent: \($0)" }
  }
}
