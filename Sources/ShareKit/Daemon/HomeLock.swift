import Foundation
import Glibc
import System

/// One daemon per home: an exclusive lock on `daemon.lock` in the home's config folder, where
/// its identity is, and another in its runtime folder, each holding the daemon's PID. The
/// runtime folder alone was not enough (review 45): without `--home` it follows
/// `$XDG_RUNTIME_DIR`, so a daemon started with it (the systemd user unit) and one started
/// without it (cron, `su`, some ssh sessions) both ran, on one identity and one Inbox.
struct HomeLock {
  private let locks: [FileLock]

  init(_ paths: SharePaths) throws(ShareError) {
    // The config folder first: it is the home itself. A file system that cannot lock (some
    // network homes) leaves the runtime folder's lock to do what it can.
    let home = try Self.take(in: paths.config, paths: paths, required: false)
    let runtime = try Self.take(in: paths.runtime, paths: paths, required: true)
    locks = [home, runtime].compactMap { $0 }
  }

  func unlock() {
    for lock in locks { lock.unlock() }
  }

  /// The lock in `folder` (made if missing, owner only), or the error naming the daemon that
  /// holds it; nil when `folder` cannot hold a lock and it is not `required`.
  private static func take(in folder: URL, paths: SharePaths, required: Bool) throws(ShareError) -> FileLock? {
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw .configuration("cannot create \(folder.path): \(error.localizedDescription)")
    }
    let path = folder.appendingPathComponent("daemon.lock").path
    let held: FileLock?
    do {
      held = try FileLock.attempt(path: path)
    } catch {
      guard required else { return nil }
      throw .configuration("cannot open \(path): \(error)")
    }
    guard let held else {
      // The lock file holds the running daemon's PID.
      let pid = (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
      throw .configuration(
        "a share daemon is already running for this home\(pid.map { " (pid \($0))" } ?? "") (\(paths.config.path)); "
          + "stop it first, or give this one another --home")
    }
    try? held.replaceContents(Array("\(getpid())\n".utf8))
    return held
  }
}
