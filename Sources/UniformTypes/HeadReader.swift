import System
import TextEscaping

/// A file whose first bytes could not be read, with the failing call and errno.
package struct FileReadError: Error, Sendable, Equatable, CustomStringConvertible {
  package var path: String
  /// The C function that failed (`open`, `fstat`, `read`), or `type` for something that is
  /// neither a regular file nor a directory.
  package var function: String
  /// What the call reported; nil for `type`.
  package var errno: Errno?

  /// For people: the file and what the system says (review 32: the call and errno were there
  /// without `--verbose`); `detail` has them.
  package var description: String {
    guard let errno else { return "\(Escaping.quoted(path)) is neither a regular file nor a folder" }
    return "cannot read \(Escaping.quoted(path)): \(errno)"
  }

  /// The failing call and errno, for `--verbose`.
  package var detail: String {
    guard let errno else { return description }
    return "\(function)(\(Escaping.quoted(path))): \(errno) (errno \(errno.rawValue))"
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
    func attempt<Value>(_ function: String, _ body: () throws(Errno) -> Value) throws(FileReadError) -> Value {
      do {
        return try body()
      } catch {
        throw FileReadError(path: path, function: function, errno: error)
      }
    }
    let file = try attempt("open") { () throws(Errno) in try FileDescriptor.open(path, .readOnly, options: .nonBlocking) }
    return try file.closeAfter { () throws(FileReadError) -> Head in
      let status = try attempt("fstat") { () throws(Errno) in try file.status() }
      if status.kind == .directory { return Head(bytes: [], size: 0, isDirectory: true) }
      guard status.kind == .regular else { throw FileReadError(path: path, function: "type", errno: nil) }
      let bytes = try attempt("read") { () throws(Errno) in try file.readAll(upTo: limit) }
      return Head(bytes: bytes, size: status.size, isDirectory: false)
    }
  }
}
