import System

/// Where the bytes of a file being sent come from, read in order.
package protocol UploadSource: AnyObject {
  /// Fills the start of `buffer`; returns how many bytes, 0 at the end.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(LocalSendError) -> Int
}

/// A regular file, read sequentially. Owns its descriptor.
package final class FileSource: UploadSource {
  package let path: String
  private let descriptor: FileDescriptor

  /// Opens `path` read-only.
  package init(path: String) throws(LocalSendError) {
    self.path = path
    do {
      descriptor = try FileDescriptor.open(path, .readOnly)
    } catch {
      throw .source(path: path, errno: error)
    }
  }

  deinit {
    try? descriptor.close()
  }

  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(LocalSendError) -> Int {
    do {
      return try retryOnInterrupt { () throws(Errno) in try descriptor.read(into: buffer) }
    } catch {
      throw .source(path: path, errno: error)
    }
  }
}

/// Bytes in memory (a text message).
package final class BytesSource: UploadSource {
  private let bytes: [UInt8]
  private var offset = 0

  package init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(LocalSendError) -> Int {
    let count = min(buffer.count, bytes.count - offset)
    bytes.withUnsafeBytes { raw in
      buffer.baseAddress?.copyMemory(from: raw.baseAddress! + offset, byteCount: count)
    }
    offset += count
    return count
  }
}
