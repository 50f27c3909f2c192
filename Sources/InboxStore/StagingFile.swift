import Foundation
import System

/// A file being received, in the staging area, outside the Inbox. Owns its file descriptor.
///
/// Thread-confined: one receiving thread writes it, then finishes or discards it.
package final class StagingFile {
  /// Where the bytes are going.
  package let url: URL
  /// Bytes written so far.
  package private(set) var size: Int64
  /// The open file; nil once finished, kept or discarded.
  private var file: FileDescriptor?

  init(url: URL, file: FileDescriptor, size: Int64 = 0) {
    self.url = url
    self.file = file
    self.size = size
  }

  deinit {
    try? file?.close()
  }

  /// Whether writes bypass the page cache (O_DIRECT).
  package private(set) var isDirect = false

  /// The alignment O_DIRECT needs for buffers, lengths and offsets.
  package static let directAlignment = 4096

  /// Turns on O_DIRECT, so large items go from the receive buffer to the disk without a copy
  /// into the page cache (the biggest CPU cost of receiving a large file). Returns false when
  /// the file system does not support it (tmpfs): writes then stay buffered.
  @discardableResult
  package func useDirectIO() -> Bool {
    guard let file, size % Int64(StagingFile.directAlignment) == 0 else { return false }
    guard (try? file.setStatus(.direct, enabled: true)) != nil else { return false }
    isDirect = true
    return true
  }

  private func stopDirectIO() {
    guard isDirect else { return }
    try? file?.setStatus(.direct, enabled: false)
    isDirect = false
  }

  /// Appends bytes, all of them, or throws (`.diskFull` on ENOSPC / EDQUOT). In direct mode a
  /// write that is not aligned (the last, short one) turns direct mode off first, and so does a
  /// file system that refuses a direct write (EINVAL): the rest is then written buffered.
  package func write(_ buffer: UnsafeRawBufferPointer) throws(InboxError) {
    guard let file else { throw InboxError.from("write", url.path, .badFileDescriptor) }
    if isDirect {
      let alignment = StagingFile.directAlignment
      if buffer.count % alignment != 0 || Int(bitPattern: buffer.baseAddress) % alignment != 0 { stopDirectIO() }
    }
    do {
      try file.writeAll(buffer)
    } catch .invalidArgument where isDirect {
      stopDirectIO()
      // The file offset says how much of the buffer went out before the refusal.
      let done = try InboxError.attempt("lseek", url.path) { () throws(Errno) in
        Int(try file.seek(offset: 0, from: .current) - size)
      }
      try InboxError.attempt("write", url.path) { () throws(Errno) in
        try file.writeAll(UnsafeRawBufferPointer(rebasing: buffer[done...]))
      }
    } catch {
      throw InboxError.from("write", url.path, error)
    }
    size += Int64(buffer.count)
  }

  /// Makes the file read-only, optionally flushes it to disk, and closes it.
  /// Returns its identity, which keys its metadata.
  package func finish(sync: Bool) throws(InboxError) -> FileIdentity {
    defer { closeDescriptor() }
    guard let file else { throw InboxError.from("fstat", url.path, .badFileDescriptor) }
    try InboxError.attempt("fchmod", url.path) { () throws(Errno) in try file.setPermissions(InboxStore.fileMode) }
    if sync { try InboxError.attempt("fdatasync", url.path) { () throws(Errno) in try file.dataSync() } }
    return FileIdentity(try InboxError.attempt("fstat", url.path) { () throws(Errno) in try file.status() })
  }

  /// Closes and removes the file; nothing of it stays.
  package func discard() {
    closeDescriptor()
    try? FileSystem.remove(url.path)
  }

  /// Closes the descriptor but keeps the file (for resuming later).
  package func keep() { closeDescriptor() }

  /// Flushes the bytes written so far to disk; false when the disk failed to write some of them
  /// (the page cache may still show them: only this sync says they are lost).
  package func sync() -> Bool {
    guard let file else { return true }
    return (try? file.dataSync()) != nil
  }

  /// The open file (for reading back a prefix); nil once finished.
  var descriptor: FileDescriptor? { file }

  private func closeDescriptor() {
    try? file?.close()
    file = nil
  }
}

/// What ties a metadata record to one file: inode, size and modification time in nanoseconds.
/// Survives renames within the file system, so the record follows the item.
package struct FileIdentity: Hashable, Codable, Sendable {
  package var inode: UInt64
  package var size: Int64
  package var mtimeNanoseconds: Int64

  package init(inode: UInt64, size: Int64, mtimeNanoseconds: Int64) {
    self.inode = inode
    self.size = size
    self.mtimeNanoseconds = mtimeNanoseconds
  }

  init(_ status: FileStatus) {
    inode = status.inode
    size = status.size
    mtimeNanoseconds = status.modificationNanoseconds
  }
}
