import Foundation
import Glibc
import System

/// The folder that holds the daemon's control socket, made safe before the socket is bound in it.
///
/// The socket normally lives in the home's runtime folder. A home too deep for a Unix socket
/// path puts it in `/tmp/share-UID` instead, a name any local user can take first — as a
/// symbolic link to a folder of theirs, where they could replace the socket and answer the
/// owner's commands. So that folder is created with `mkdir` 0700 and then checked with `lstat`
/// (a real folder, not a link, owned by this user, mode 0700); anything else is refused with the
/// reason, and nothing there is ever changed: no `chmod`, which would follow a link.
enum ControlSocketFolder {
  /// Creates the folder of `paths.controlSocket` if it is missing and checks it. The runtime
  /// folder (the user's own) is tightened to 0700 if it is looser, through a descriptor opened
  /// without following links; the shared folder under `/tmp` must already be exactly right.
  static func prepare(_ paths: SharePaths) throws(ShareError) {
    let folder = paths.controlSocket.deletingLastPathComponent().path
    if paths.controlSocketIsInSharedFolder {
      try prepareShared(folder)
    } else {
      try prepareOwn(folder)
    }
  }

  /// `/tmp/share-UID`: `mkdir` 0700, then `lstat`; no repair.
  static func prepareShared(_ folder: String) throws(ShareError) {
    do {
      try FileSystem.makeDirectory(folder, permissions: .ownerReadWriteExecute)
    } catch .fileExists {
      // Someone made it before: ours from an earlier run, or not; checked below.
    } catch {
      throw .configuration("cannot create the control socket folder \(folder): \(error)")
    }
    let status: FileStatus
    do {
      status = try FileSystem.status(folder, followSymlinks: false)
    } catch {
      throw .configuration("cannot check the control socket folder \(folder): \(error)")
    }
    if let problem = problem(with: status, user: getuid()) {
      throw .configuration(
        "the control socket folder \(folder) \(problem), so another user could intercept the "
          + "daemon's commands; refusing to start. Remove it if you trust what is in it, or use a "
          + "shorter --home, whose runtime folder then holds the socket")
    }
  }

  /// What is wrong with the shared folder, as the end of a sentence; nil when it is a real
  /// folder owned by `user` with mode 0700.
  static func problem(with status: FileStatus, user: uid_t) -> String? {
    switch status.kind {
    case .symbolicLink: return "is a symbolic link, not a folder"
    case .directory: break
    default: return "is not a folder"
    }
    if status.owner != user { return "belongs to user \(status.owner), not to you (user \(user))" }
    if status.permissions != .ownerReadWriteExecute {
      return "has mode \(status.permissions), not 700 (owner-only)"
    }
    return nil
  }

  /// The runtime folder: created owner-only with its parents; an existing one must be a folder
  /// of this user's, and is tightened to 0700 through a descriptor (`O_NOFOLLOW`).
  private static func prepareOwn(_ folder: String) throws(ShareError) {
    do {
      try FileSystem.makeDirectories(folder, permissions: .ownerReadWriteExecute)
      let directory = try FileDescriptor.open(folder, .readOnly, options: [.directory, .noFollow])
      try directory.closeAfter { () throws(Errno) in
        let status = try directory.status()
        guard status.owner == getuid() else { throw .permissionDenied }
        if status.permissions != .ownerReadWriteExecute { try directory.setPermissions(.ownerReadWriteExecute) }
      }
    } catch .permissionDenied {
      throw .configuration("the control socket folder \(folder) is not yours (or not accessible); refusing to start")
    } catch {
      throw .configuration("cannot prepare the control socket folder \(folder): \(error)")
    }
  }
}
