import Foundation
import System

/// Runs `body` holding the exclusive lock on `lockFile` that every writer of a home's file takes
/// (made, with its folder, owner-only if missing). The lock belongs to this open of the file:
/// another process, or another thread that opens the file itself, waits until `body` returns;
/// the kernel releases it when the process dies, so a crash never leaves it held.
func withExclusiveLock<T>(on lockFile: URL, _ body: () throws(ShareError) -> T) throws(ShareError) -> T {
  let lock: FileLock
  do {
    try FileSystem.makeDirectories(lockFile.deletingLastPathComponent().path, permissions: FilePermissions(rawValue: 0o700))
    lock = try FileLock(path: lockFile.path)
  } catch {
    throw .configuration("cannot lock \(lockFile.path): \(error)")
  }
  defer { lock.unlock() }
  return try body()
}
