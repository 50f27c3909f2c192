import Foundation
import Glibc

// TODO(System): use System.FileLock/writeDurably
/// The file primitives the contacts store (and the settings) rely on, in one place: an exclusive
/// advisory lock, and a replace that is atomic and durable.
enum DurableFile {
  /// Runs `body` holding an exclusive `flock` on `lock` (created owner-only, never removed).
  ///
  /// The lock belongs to this open file description: another process, or another thread that
  /// opens the file itself, waits until `body` returns. The kernel releases it when the
  /// descriptor is closed, also when the process dies, so a crash never leaves it held.
  static func withLock<T>(_ lock: URL, _ body: () throws(ShareError) -> T) throws(ShareError) -> T {
    try createFolder(lock.deletingLastPathComponent())
    let fd = open(lock.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw failure("cannot open", lock) }
    defer { close(fd) }
    while flock(fd, LOCK_EX) != 0 {
      guard errno == EINTR else { throw failure("cannot lock", lock) }
    }
    return try body()
  }

  /// Replaces `url` with `data`: a temporary file in the same folder (owner-only) is written,
  /// synced and renamed over `url`, then the folder is synced, so after a crash the file is
  /// either the old one or the new one, and the new one survives once this returns.
  static func replace(_ url: URL, with data: Data) throws(ShareError) {
    let folder = url.deletingLastPathComponent()
    try createFolder(folder)
    let temp = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
    let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw failure("cannot write", temp) }
    var written = false
    defer { if !written { unlink(temp.path) } }
    let complete = data.withUnsafeBytes { bytes -> Bool in
      var offset = 0
      while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        offset += n
      }
      return fsync(fd) == 0
    }
    let failedWrite = complete ? nil : failure("cannot write", temp)
    close(fd)
    if let failedWrite { throw failedWrite }
    guard rename(temp.path, url.path) == 0 else { throw failure("cannot replace", url) }
    written = true
    let dir = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard dir >= 0 else { throw failure("cannot sync", folder) }
    defer { close(dir) }
    guard fsync(dir) == 0 else { throw failure("cannot sync", folder) }
  }

  /// Creates `folder` (and its parents) owner-only when missing.
  private static func createFolder(_ folder: URL) throws(ShareError) {
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw .configuration("cannot create \(folder.path): \(error.localizedDescription)")
    }
  }

  private static func failure(_ what: String, _ url: URL) -> ShareError {
    .configuration("\(what) \(url.path): \(String(cString: strerror(errno)))")
  }
}
