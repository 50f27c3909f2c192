import Glibc
import Synchronization

/// An advisory lock on a lock file (`flock(2)`), held until `unlock()` or deinitialisation.
///
/// The lock belongs to this object's own open of the file, so it excludes other processes and
/// other opens in this process alike. Lock a file that is never replaced (e.g. `contacts.lock`
/// beside `contacts.json`): a lock on a file that `writeDurably` renames over would be a lock
/// on the old inode. Advisory: it only excludes code that takes the same lock.
///
/// Any thread may call `unlock()`; the descriptor is guarded by a `Mutex`.
package final class FileLock: Sendable {
  /// Whether other holders may share the lock.
  package enum Kind: Sendable {
    /// Many readers at once (`LOCK_SH`).
    case shared
    /// One holder, no readers (`LOCK_EX`).
    case exclusive

    var operation: Int32 { self == .shared ? LOCK_SH : LOCK_EX }
  }

  /// The open lock file, nil once unlocked.
  private let descriptor: Mutex<FileDescriptor?>

  /// The kind of lock held.
  package let kind: Kind

  private init(_ descriptor: FileDescriptor, kind: Kind) {
    self.descriptor = Mutex(descriptor)
    self.kind = kind
  }

  deinit { unlock() }

  /// Opens (creating it with `permissions` if needed) the lock file at `path` and takes the
  /// lock, waiting as long as another holder has it. The corresponding C function is `flock`.
  package convenience init(
    path: String, kind: Kind = .exclusive, permissions: FilePermissions = .ownerReadWrite
  ) throws(Errno) {
    let file = try FileLock.openLockFile(path, permissions: permissions)
    do {
      try nothingOrErrno { flock(file.rawValue, kind.operation) }
    } catch {
      try? file.close()
      throw error
    }
    self.init(file, kind: kind)
  }

  /// Takes the lock only if no one holds a conflicting one; nil if someone does. The
  /// corresponding C function is `flock` with `LOCK_NB`.
  package static func attempt(
    path: String, kind: Kind = .exclusive, permissions: FilePermissions = .ownerReadWrite
  ) throws(Errno) -> FileLock? {
    let file = try openLockFile(path, permissions: permissions)
    do {
      try nothingOrErrno { flock(file.rawValue, kind.operation | LOCK_NB) }
      return FileLock(file, kind: kind)
    } catch {
      try? file.close()
      if error == .resourceTemporarilyUnavailable { return nil }
      throw error
    }
  }

  /// Replaces what the lock file holds with `bytes` (say, the holder's process ID), through
  /// the descriptor that holds the lock.
  package func replaceContents(_ bytes: [UInt8]) throws(Errno) {
    guard let file = descriptor.withLock({ $0 }) else { throw .badFileDescriptor }
    try nothingOrErrno { ftruncate(file.rawValue, 0) }
    _ = try file.seek(offset: 0, from: .start)
    try file.writeAll(bytes)
  }

  /// Releases the lock (closing the lock file releases it). Idempotent.
  package func unlock() {
    let file = descriptor.withLock { held -> FileDescriptor? in
      defer { held = nil }
      return held
    }
    try? file?.close()
  }

  private static func openLockFile(_ path: String, permissions: FilePermissions) throws(Errno)
    -> FileDescriptor
  {
    try FileDescriptor.open(path, .readWrite, options: .create, permissions: permissions)
  }
}
