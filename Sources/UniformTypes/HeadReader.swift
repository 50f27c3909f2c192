import TextEscaping
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A file whose first bytes could not be read, with the failing call and errno.
public struct FileReadError: Error, Sendable, Equatable, CustomStringConvertible {
  public var path: String
  /// The C function that failed (`open`, `fstat`, `read`), or `type` for something that is
  /// neither a regular file nor a directory.
  public var function: String
  public var errno: Int32

  public var description: String {
    if function == "type" { return "\(Escaping.quoted(path)) is neither a regular file nor a folder" }
    return "cannot read \(Escaping.quoted(path)): \(function): \(String(cString: strerror(errno))) (errno \(errno))"
  }
}

/// Reads the first bytes of a file for sniffing.
enum HeadReader {
  struct Head {
    var bytes: [UInt8]
    var size: Int64
    var isDirectory: Bool
  }

  /// Opens `path` (non-blocking, so a FIFO cannot hang the caller), checks it is a regular file
  /// or a directory with fstat(2), and reads up to `limit` bytes with read(2). Any thread.
  static func read(path: String, limit: Int) throws(FileReadError) -> Head {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw FileReadError(path: path, function: "open", errno: errno) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw FileReadError(path: path, function: "fstat", errno: errno) }
    let mode = info.st_mode & S_IFMT
    if mode == S_IFDIR { return Head(bytes: [], size: 0, isDirectory: true) }
    guard mode == S_IFREG else { throw FileReadError(path: path, function: "type", errno: 0) }
    var bytes = [UInt8](repeating: 0, count: limit)
    var filled = 0
    while filled < limit {
      let count = bytes.withUnsafeMutableBytes { buffer in
        Glibc.read(fd, buffer.baseAddress.map { $0 + filled }, limit - filled)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw FileReadError(path: path, function: "read", errno: errno)
      }
      if count == 0 { break }
      filled += count
    }
    bytes.removeLast(limit - filled)
    return Head(bytes: bytes, size: Int64(info.st_size), isDirectory: false)
  }
}
