import CLinux
import Glibc
import TextEscaping

/// An open file descriptor, as a value.
///
/// A `FileDescriptor` does not close itself: whoever opens one closes it (`close()`, or
/// `closeAfter`), like the integer it wraps. Every call that can fail throws `Errno`, and every
/// blocking call retries `EINTR`. Descriptors are opened close-on-exec.
package struct FileDescriptor: RawRepresentable, Hashable, Sendable {
  /// The C descriptor.
  package let rawValue: Int32

  package init(rawValue: Int32) { self.rawValue = rawValue }

  /// Standard input, output and error.
  package static var standardInput: FileDescriptor { FileDescriptor(rawValue: 0) }
  package static var standardOutput: FileDescriptor { FileDescriptor(rawValue: 1) }
  package static var standardError: FileDescriptor { FileDescriptor(rawValue: 2) }

  /// Opens or creates `path`, close-on-exec. `permissions` is the mode of a created file before
  /// the umask. The corresponding C function is `open`.
  package static func open(
    _ path: String, _ mode: AccessMode, options: OpenOptions = [],
    permissions: FilePermissions? = nil
  ) throws(Errno) -> FileDescriptor {
    let flags = mode.rawValue | options.rawValue | O_CLOEXEC
    let fd = try valueOrErrno {
      withPath(path) { Glibc.open($0, flags, permissions?.rawValue ?? 0) }
    }
    return FileDescriptor(rawValue: fd)
  }

  /// A new pipe, both ends close-on-exec. The corresponding C function is `pipe2`.
  package static func pipe() throws(Errno) -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
    var ends: [Int32] = [-1, -1]
    try nothingOrErrno { clinux_pipe_cloexec(&ends) }
    return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
  }

  /// Closes the descriptor. Never retried: Linux releases the descriptor even when `close`
  /// reports `EINTR`. The corresponding C function is `close`.
  package func close() throws(Errno) {
    if Glibc.close(rawValue) != 0 {
      let error = Errno.current
      if error != .interrupted { throw error }
    }
  }

  /// Runs `body`, then closes the descriptor whatever happened (a failure to close is ignored).
  package func closeAfter<Value, Failure: Error>(_ body: () throws(Failure) -> Value)
    throws(Failure) -> Value
  {
    defer { try? close() }
    return try body()
  }

  // MARK: Reading and writing

  /// Reads up to `buffer.count` bytes at the current offset; returns how many (0 at the end).
  /// The corresponding C function is `read`.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try valueOrErrno { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
  }

  /// Reads up to `buffer.count` bytes at `offset`, without moving the file offset; returns how
  /// many (0 at the end). The corresponding C function is `pread`.
  package func read(fromAbsoluteOffset offset: Int64, into buffer: UnsafeMutableRawBufferPointer)
    throws(Errno) -> Int
  {
    try valueOrErrno { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
  }

  /// Writes up to `buffer.count` bytes at the current offset; returns how many were written.
  /// The corresponding C function is `write`.
  package func write(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
    try valueOrErrno { Glibc.write(rawValue, buffer.baseAddress, buffer.count) }
  }

  /// Writes up to `buffer.count` bytes at `offset`, without moving the file offset; returns how
  /// many were written. The corresponding C function is `pwrite`.
  package func write(toAbsoluteOffset offset: Int64, _ buffer: UnsafeRawBufferPointer)
    throws(Errno) -> Int
  {
    try valueOrErrno { pwrite(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
  }

  /// Writes all of `buffer`, calling `write` again after each partial write: the one "write
  /// everything" loop of the code base. A `write` that reports 0 bytes for a non-empty buffer
  /// (which POSIX allows only when the device is full) throws `.noSpace`. On failure an unknown
  /// prefix of `buffer` may have been written; `seek(offset: 0, from: .current)` tells how much
  /// for a file.
  package func writeAll(_ buffer: UnsafeRawBufferPointer, atMost chunk: Int = .max) throws(Errno) {
    precondition(chunk > 0)
    var offset = 0
    while offset < buffer.count {
      let written = try write(UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + min(chunk, buffer.count - offset)]))
      if written == 0 { throw .noSpace }
      offset += written
    }
  }

  /// Fills all of `buffer` from the file at `offset`, calling `pread` again after each partial
  /// read: the reading twin of `writeAll`, for files. Returns false when the file ends first
  /// (`buffer` then holds what there was). The file offset is left alone.
  package func readAll(fromAbsoluteOffset offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Bool {
    var filled = 0
    while filled < buffer.count {
      let count = try read(fromAbsoluteOffset: offset + Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      if count == 0 { return false }
      filled += count
    }
    return true
  }

  /// Writes all of `bytes`; see `writeAll(_:)` for buffers.
  package func writeAll(_ bytes: some Collection<UInt8>, atMost chunk: Int = .max) throws(Errno) {
    let done: Result<Void, Errno>? = bytes.withContiguousStorageIfAvailable { storage in
      Result { () throws(Errno) in try writeAll(UnsafeRawBufferPointer(storage), atMost: chunk) }
    }
    if let done { return try done.get() }
    try writeAll(Array(bytes), atMost: chunk)
  }

  /// Reads until the end of the file or until `limit` bytes have arrived, whichever comes
  /// first. To tell "exactly at the limit" from "too large", ask for one byte more.
  package func readAll(upTo limit: Int, chunk: Int = 64 << 10) throws(Errno) -> [UInt8] {
    var bytes: [UInt8] = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: max(1, min(chunk, limit)), alignment: 16)
    defer { buffer.deallocate() }
    while bytes.count < limit {
      let want = min(buffer.count, limit - bytes.count)
      let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
      if count == 0 { break }
      bytes.append(contentsOf: buffer[0..<count])
    }
    return bytes
  }

  // MARK: Position, durability, metadata

  /// Where `seek` counts from.
  package enum SeekOrigin: Sendable {
    case start, current, end
    var rawValue: Int32 {
      switch self {
      case .start: SEEK_SET
      case .current: SEEK_CUR
      case .end: SEEK_END
      }
    }
  }

  /// Moves the file offset; returns the new offset from the start. The corresponding C
  /// function is `lseek`.
  @discardableResult
  package func seek(offset: Int64, from origin: SeekOrigin) throws(Errno) -> Int64 {
    Int64(try valueOrErrno { lseek(rawValue, off_t(offset), origin.rawValue) })
  }

  /// Flushes the file's data and metadata to the disk. The corresponding C function is `fsync`.
  package func sync() throws(Errno) {
    try nothingOrErrno { fsync(rawValue) }
  }

  /// Flushes the file's data (and the metadata needed to read it back) to the disk. The
  /// corresponding C function is `fdatasync`.
  package func dataSync() throws(Errno) {
    try nothingOrErrno { fdatasync(rawValue) }
  }

  /// The file's status. The corresponding C function is `fstat`.
  package func status() throws(Errno) -> FileStatus {
    var info = stat()
    try nothingOrErrno { fstat(rawValue, &info) }
    return FileStatus(info)
  }

  /// The status of `name` in this directory, not following a symbolic link: a directory's
  /// entries without resolving its path again for each. The corresponding C function is
  /// `fstatat` with `AT_SYMLINK_NOFOLLOW`.
  package func status(ofEntry name: String) throws(Errno) -> FileStatus {
    var info = stat()
    try nothingOrErrno { withPath(name) { fstatat(rawValue, $0, &info, AT_SYMLINK_NOFOLLOW) } }
    return FileStatus(info)
  }

  /// Sets the file's permission bits exactly (the umask does not apply). The corresponding C
  /// function is `fchmod`.
  package func setPermissions(_ permissions: FilePermissions) throws(Errno) {
    try nothingOrErrno { fchmod(rawValue, permissions.rawValue) }
  }

  /// Turns status flags (`.nonBlocking`, `.direct`, `.append`) on or off. The corresponding C
  /// function is `fcntl` (`F_GETFL`, `F_SETFL`).
  package func setStatus(_ options: OpenOptions, enabled: Bool) throws(Errno) {
    let flags = try valueOrErrno { fcntl(rawValue, F_GETFL) }
    let updated = enabled ? flags | options.rawValue : flags & ~options.rawValue
    try nothingOrErrno { fcntl(rawValue, F_SETFL, updated) }
  }
}
