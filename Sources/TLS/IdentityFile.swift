import System

/// File helpers for identity files, over System; errors become `TLSError.identity(path, detail)`.
enum IdentityFile {
  /// Identity files are a few hundred bytes; anything over this is not one.
  static let sizeLimit = 1 << 20

  /// The contents and permission bits of a file read through one descriptor, so the mode
  /// checked is the mode of the bytes read.
  struct Contents {
    var bytes: [UInt8]
    var permissions: FilePermissions
  }

  /// Reads `path` whole (`open` + `fstat` + `read`); nil if it does not exist.
  static func read(_ path: String) throws(TLSError) -> Contents? {
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(path, .readOnly)
    } catch .noSuchFileOrDirectory {
      return nil
    } catch {
      throw .identity(path: path, detail: "open: \(error)")
    }
    return try file.closeAfter { () throws(TLSError) -> Contents in
      let status = try attempt("fstat", path) { () throws(Errno) in try file.status() }
      guard status.kind == .regular else {
        throw .identity(path: path, detail: "not a regular file")
      }
      guard status.size <= sizeLimit else {
        throw .identity(
          path: path, detail: "file is \(status.size) bytes, too large for a PEM identity file")
      }
      let bytes = try attempt("read", path) { () throws(Errno) in
        try file.readAll(upTo: sizeLimit + 1)
      }
      guard bytes.count <= sizeLimit else {
        throw .identity(path: path, detail: "file too large for a PEM identity file")
      }
      return Contents(bytes: bytes, permissions: status.permissions)
    }
  }

  /// Writes `bytes` to `path` with exactly `permissions`, atomically and durably (System's
  /// `writeDurably`). With `replace` false an existing file is never replaced: the result is
  /// false if `path` already exists (another process won a creation race) and nothing changes.
  @discardableResult
  static func write(
    _ bytes: [UInt8], to path: String, permissions: FilePermissions, replace: Bool
  ) throws(TLSError) -> Bool {
    do {
      try writeDurably(bytes, to: path, permissions: permissions, replacing: replace)
      return true
    } catch .fileExists where !replace {
      return false
    } catch {
      throw .identityNotSaved(path: path, detail: "\(error)")
    }
  }

  /// Creates `path` (and missing parents) with mode 0700 if it does not exist.
  static func makeDirectory(_ path: String) throws(TLSError) {
    do {
      try FileSystem.makeDirectories(path, permissions: .ownerReadWriteExecute)
    } catch {
      throw .identityNotSaved(path: path, detail: "\(error)")
    }
  }

  /// Runs `body`, turning its `Errno` into `.identity(path, "call: text")`.
  private static func attempt<Value>(
    _ call: String, _ path: String, _ body: () throws(Errno) -> Value
  ) throws(TLSError) -> Value {
    do {
      return try body()
    } catch {
      throw .identity(path: path, detail: "\(call): \(error)")
    }
  }
}
