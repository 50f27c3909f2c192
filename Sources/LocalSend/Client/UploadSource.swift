import System

/// Where the bytes of a file being sent come from, read in order.
public protocol UploadSource: AnyObject {
  /// Fills the start of `buffer`; returns how many bytes, 0 at the end.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(LocalSendError) -> Int
}

/// A regular file, read sequentially. Owns its descriptor.
public final class FileSource: UploadSource {
  public let path: String
  private let descriptor: FileDescriptor

  /// Opens `path` read-only.
  public init(path: String) throws(LocalSendError) {
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

  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(LocalSendError) -> Int {
    do {
      return try retryOnInterrupt { () throws(Errno) in try descriptor.read(into: buffer) }
    } catch {
      throw .source(path: path, errno: error)
    }
  }
}

/// Bytes in memory (a text message).
public final class BytesSource: UploadSource {
  private let bytes: [UInt8]
  private var offset = 0

  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(LocalSendError) -> Int {
    let count = min(buffer.count, bytes.count - offset)
    bytes.withUnsafeBytes { raw in
      buffer.baseAddress?.copyMemory(from: raw.baseAddress! + offset, byteCount: count)
    }
    offset += count
    return count
  }
}
