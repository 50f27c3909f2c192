import Glibc

/// POSIX file helpers for identity files; errors become `TLSError.identity(path, detail)`.
enum IdentityFile {
  /// The contents and permission bits of a file read through one descriptor, so the mode
  /// checked is the mode of the bytes read.
  struct Contents {
    var bytes: [UInt8]
    var mode: mode_t
  }

  /// Reads `path` whole (`open` + `fstat` + `read`); nil if it does not exist.
  static func read(_ path: String) throws(TLSError) -> Contents? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw .identity(path: path, detail: "open: \(errnoText(errno))")
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw .identity(path: path, detail: "fstat: \(errnoText(errno))")
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw .identity(path: path, detail: "not a regular file")
    }
    // Identity files are a few hundred bytes; anything huge is not one.
    guard info.st_size <= 1 << 20 else {
      throw .identity(
        path: path, detail: "file is \(info.st_size) bytes, too large for a PEM identity file")
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw .identity(path: path, detail: "read: \(errnoText(errno))")
      }
      if n == 0 { break }
      bytes.append(contentsOf: chunk[0..<n])
      if bytes.count > 1 << 20 {
        throw .identity(path: path, detail: "file too large for a PEM identity file")
      }
    }
    return Contents(bytes: bytes, mode: info.st_mode & 0o7777)
  }

  /// Writes `bytes` to `path` atomically and durably: a temporary file in the same directory
  /// created with `mode` (`O_EXCL`), written, `fsync`ed, then moved into place and the directory
  /// `fsync`ed. With `replace` false the move is `link(2)`, which never overwrites: the result is
  /// false if `path` already exists (another process won a creation race) and nothing changes.
  @discardableResult
  static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t, replace: Bool)
    throws(TLSError) -> Bool
  {
    let directory = parentDirectory(of: path)
    let random = UInt64.random(in: 0...UInt64.max)
    let temporary = "\(path).tmp-\(getpid())-\(String(random, radix: 16))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else {
      throw .identity(path: temporary, detail: "open(O_CREAT|O_EXCL): \(errnoText(errno))")
    }
    var ok = false
    defer {
      if !ok { unlink(temporary) }
    }
    var failure: TLSError? = nil
    do {
      try fill(fd, with: bytes, mode: mode, path: temporary)
    } catch {
      failure = error
    }
    close(fd)
    if let failure { throw failure }
    if replace {
      guard rename(temporary, path) == 0 else {
        throw .identity(path: path, detail: "rename: \(errnoText(errno))")
      }
      ok = true
    } else {
      if link(temporary, path) != 0 {
        let code = errno
        if code == EEXIST { return false }
        throw .identity(path: path, detail: "link: \(errnoText(code))")
      }
      ok = true
      unlink(temporary)
    }
    syncDirectory(directory)
    return true
  }

  /// Sets `mode` exactly (the umask may have removed bits), writes all of `bytes`, `fsync`s.
  private static func fill(_ fd: Int32, with bytes: [UInt8], mode: mode_t, path: String)
    throws(TLSError)
  {
    guard fchmod(fd, mode) == 0 else {
      throw .identity(path: path, detail: "fchmod: \(errnoText(errno))")
    }
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { raw in
        Glibc.write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw .identity(path: path, detail: "write: \(errnoText(errno))")
      }
      offset += n
    }
    guard fsync(fd) == 0 else {
      throw .identity(path: path, detail: "fsync: \(errnoText(errno))")
    }
  }

  /// Creates `path` (and missing parents) with mode 0700 if it does not exist.
  static func makeDirectory(_ path: String) throws(TLSError) {
    var info = stat()
    if stat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFDIR else {
        throw .identity(path: path, detail: "exists and is not a directory")
      }
      return
    }
    let parent = parentDirectory(of: path)
    if parent != path { try makeDirectory(parent) }
    if mkdir(path, 0o700) != 0 && errno != EEXIST {
      throw .identity(path: path, detail: "mkdir: \(errnoText(errno))")
    }
  }

  /// `fsync`s a directory so a rename or link in it survives a crash; best effort.
  static func syncDirectory(_ path: String) {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = fsync(fd)
    close(fd)
  }

  /// The directory part of `path` ("." for a bare name, "/" for the root).
  static func parentDirectory(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "." }
    if slash == trimmed.startIndex { return "/" }
    return String(trimmed[..<slash])
  }
}
