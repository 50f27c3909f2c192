import CLinux
import Foundation
import Glibc

/// A file being received, in the staging area, outside the Inbox. Owns its file descriptor.
///
/// Thread-confined: one receiving thread writes it, then finishes or discards it.
public final class StagingFile {
  /// Where the bytes are going.
  public let url: URL
  /// Bytes written so far.
  public private(set) var size: Int64
  private var fd: Int32

  init(url: URL, fd: Int32, size: Int64 = 0) {
    self.url = url
    self.fd = fd
    self.size = size
  }

  deinit {
    if fd >= 0 { close(fd) }
  }

  /// Whether writes bypass the page cache (O_DIRECT).
  public private(set) var isDirect = false

  /// The alignment O_DIRECT needs for buffers, lengths and offsets.
  public static let directAlignment = 4096

  /// Turns on O_DIRECT, so large items go from the receive buffer to the disk without a copy
  /// into the page cache (the biggest CPU cost of receiving a large file). Returns false when
  /// the file system does not support it (tmpfs): writes then stay buffered.
  @discardableResult
  public func useDirectIO() -> Bool {
    guard fd >= 0, size % Int64(StagingFile.directAlignment) == 0 else { return false }
    let flags = fcntl(fd, F_GETFL)
    guard flags >= 0, fcntl(fd, F_SETFL, flags | clinux_o_direct()) == 0 else { return false }
    isDirect = true
    return true
  }

  private func stopDirectIO() {
    guard isDirect else { return }
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~clinux_o_direct()) }
    isDirect = false
  }

  /// Appends bytes, all of them, or throws (`.diskFull` on ENOSPC / EDQUOT). In direct mode a
  /// write that is not aligned (the last, short one) turns direct mode off first.
  public func write(_ buffer: UnsafeRawBufferPointer) throws(InboxError) {
    if isDirect {
      let alignment = StagingFile.directAlignment
      if buffer.count % alignment != 0 || Int(bitPattern: buffer.baseAddress) % alignment != 0 { stopDirectIO() }
    }
    guard var base = buffer.baseAddress else { return }
    var remaining = buffer.count
    while remaining > 0 {
      let n = retryingEINTR { Glibc.write(fd, base, remaining) }
      if n < 0 && errno == EINVAL && isDirect {
        stopDirectIO()  // the file system refused this direct write: carry on buffered
        continue
      }
      if n < 0 { throw InboxError.from("write", url.path) }
      if n == 0 { throw InboxError.diskFull(path: url.path) }
      remaining -= n
      base += n
      size += Int64(n)
    }
  }

  /// Makes the file read-only, optionally flushes it to disk, and closes it.
  /// Returns its identity, which keys its metadata.
  public func finish(sync: Bool) throws(InboxError) -> FileIdentity {
    defer { closeDescriptor() }
    if fchmod(fd, InboxStore.fileMode) != 0 { throw InboxError.from("fchmod", url.path) }
    if sync, fdatasync(fd) != 0 { throw InboxError.from("fdatasync", url.path) }
    var info = stat()
    if fstat(fd, &info) != 0 { throw InboxError.from("fstat", url.path) }
    return FileIdentity(info)
  }

  /// Closes and removes the file; nothing of it stays.
  public func discard() {
    closeDescriptor()
    unlink(url.path)
  }

  /// Closes the descriptor but keeps the file (for resuming later).
  public func keep() { closeDescriptor() }

  /// Flushes the bytes written so far to disk (best effort).
  public func sync() {
    if fd >= 0 { _ = fdatasync(fd) }
  }

  /// The open descriptor (for reading back a prefix); -1 once finished.
  var descriptor: Int32 { fd }

  private func closeDescriptor() {
    if fd >= 0 {
      close(fd)
      fd = -1
    }
  }
}

/// What ties a metadata record to one file: inode, size and modification time in nanoseconds.
/// Survives renames within the file system, so the record follows the item.
public struct FileIdentity: Hashable, Codable, Sendable {
  public var inode: UInt64
  public var size: Int64
  public var mtimeNanoseconds: Int64

  public init(inode: UInt64, size: Int64, mtimeNanoseconds: Int64) {
    self.inode = inode
    self.size = size
    self.mtimeNanoseconds = mtimeNanoseconds
  }

  init(_ info: stat) {
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    mtimeNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
  }
}
