import CLinux
import Glibc
import TextEscaping

/// Operations on paths. Each throws the `Errno` of its system call.
package enum FileSystem {
  /// The status of `path`; with `followSymlinks` false, of a symbolic link itself. The
  /// corresponding C functions are `stat` and `lstat`.
  package static func status(_ path: String, followSymlinks: Bool = true) throws(Errno)
    -> FileStatus
  {
    var info = stat()
    try nothingOrErrno { withPath(path) { followSymlinks ? stat($0, &info) : lstat($0, &info) } }
    return FileStatus(info)
  }

  /// Renames `source` to `target`, replacing `target` if it exists. The corresponding C
  /// function is `rename`.
  package static func rename(_ source: String, to target: String) throws(Errno) {
    try nothingOrErrno { withPath(source) { from in withPath(target) { Glibc.rename(from, $0) } } }
  }

  /// Renames `source` to `target` atomically only if `target` does not exist (else
  /// `.fileExists`); works for folders too. Across file systems it fails with `.improperLink`.
  /// The corresponding C function is `renameat2` with `RENAME_NOREPLACE`.
  package static func renameNoReplace(_ source: String, to target: String) throws(Errno) {
    try nothingOrErrno { withPath(source) { from in withPath(target) { clinux_rename_noreplace(AT_FDCWD, from, AT_FDCWD, $0) } } }
  }

  /// Removes a file (not a folder). The corresponding C function is `unlink`.
  package static func remove(_ path: String) throws(Errno) {
    try nothingOrErrno { withPath(path) { unlink($0) } }
  }

  /// Removes an empty folder. The corresponding C function is `rmdir`.
  package static func removeDirectory(_ path: String) throws(Errno) {
    try nothingOrErrno { withPath(path) { rmdir($0) } }
  }

  /// Creates a folder with `permissions` (before the umask). The corresponding C function is
  /// `mkdir`.
  package static func makeDirectory(_ path: String, permissions: FilePermissions) throws(Errno) {
    try nothingOrErrno { withPath(path) { mkdir($0, permissions.rawValue) } }
  }

  /// Creates `path` and any missing parents, the folder itself with `permissions` and missing
  /// parents with `parentPermissions` (the same when nil). An existing folder is left as it is;
  /// an existing file that is not a folder throws `.notDirectory`.
  package static func makeDirectories(
    _ path: String, permissions: FilePermissions, parentPermissions: FilePermissions? = nil
  ) throws(Errno) {
    do {
      try makeDirectory(path, permissions: permissions)
    } catch .noSuchFileOrDirectory {
      let parent = parentDirectory(of: path)
      guard parent != path else { throw .noSuchFileOrDirectory }
      try makeDirectories(parent, permissions: parentPermissions ?? permissions)
      do {
        try makeDirectory(path, permissions: permissions)
      } catch .fileExists {
        // Another process made it meanwhile: fine if it is a folder, checked below.
      }
    } catch .fileExists {
      // Checked below.
    }
    guard try status(path).kind == .directory else { throw .notDirectory }
  }

  /// Sets the permission bits of `path` (following symbolic links). The corresponding C
  /// function is `chmod`.
  package static func setPermissions(_ path: String, _ permissions: FilePermissions)
    throws(Errno)
  {
    try nothingOrErrno { withPath(path) { chmod($0, permissions.rawValue) } }
  }

  /// Sets the modification time of `path` to `nanoseconds` since 1970, leaving its access time
  /// as it is; a symbolic link's own time, not its target's. The corresponding C function is
  /// `utimensat` with `UTIME_OMIT` and `AT_SYMLINK_NOFOLLOW`.
  package static func setModificationTime(_ path: String, nanoseconds: Int64) throws(Errno) {
    var (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
    // Before 1970 the remainder is negative; utimensat wants 0 ..< 1 s.
    if fraction < 0 { (seconds, fraction) = (seconds - 1, fraction + 1_000_000_000) }
    try nothingOrErrno { withPath(path) { clinux_set_modification_time($0, seconds, Int(fraction)) } }
  }

  /// Flushes a folder, so that names created, renamed or removed in it survive a crash. The
  /// corresponding C function is `fsync` on the folder opened with `O_DIRECTORY`.
  package static func syncDirectory(_ path: String) throws(Errno) {
    let directory = try FileDescriptor.open(path, .readOnly, options: .directory)
    try directory.closeAfter { () throws(Errno) in try directory.sync() }
  }

  /// Flushes the whole file system `descriptor` is open on: how many small files are made
  /// durable without a sync each. Since Linux 5.8 it reports a write-back error that happened
  /// on the file system after `descriptor` was opened, once per open file description: keep the
  /// descriptor open across the writes it should vouch for. The corresponding C function is
  /// `syncfs`.
  package static func syncFileSystem(of descriptor: FileDescriptor) throws(Errno) {
    try nothingOrErrno { clinux_syncfs(descriptor.rawValue) }
  }

  /// Bytes this user may still write on the file system holding `path`. The corresponding C
  /// function is `statvfs`.
  package static func availableBytes(at path: String) throws(Errno) -> Int64 {
    var info = statvfs()
    try nothingOrErrno { withPath(path) { statvfs($0, &info) } }
    return Int64(info.f_bavail) * Int64(info.f_frsize)
  }

  /// Files (inodes) this user may still create on the file system holding `path`, and how many
  /// it has in all; nil for a file system that makes them as needed (it reports none: btrfs).
  package static func availableFiles(at path: String) throws(Errno) -> (free: Int64, total: Int64)? {
    var info = statvfs()
    try nothingOrErrno { withPath(path) { statvfs($0, &info) } }
    guard info.f_files > 0 else { return nil }
    return (Int64(info.f_favail), Int64(info.f_files))
  }

  /// The names in the folder at `path`, without `.` and `..`, in the order the file system
  /// gives them; each exactly as on disk (`FileNameText`: a name that is not UTF-8 keeps its
  /// bytes). The corresponding C functions are `opendir` and `readdir`.
  package static func entryNames(of path: String) throws(Errno) -> [String] {
    guard let directory = withPath(path, { opendir($0) }) else { throw Errno.current }
    defer { closedir(directory) }
    var names: [String] = []
    while true {
      errno = 0
      guard let entry = readdir(directory) else {
        if errno != 0 { throw Errno.current }
        return names
      }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        FileNameText.decoding(raw.prefix { $0 != 0 })
      }
      if name != "." && name != ".." { names.append(name) }
    }
  }

  /// Whether this process may read `path` (by its real user and group). The corresponding C
  /// function is `access` with `R_OK`.
  package static func isReadable(_ path: String) throws(Errno) {
    try nothingOrErrno { withPath(path) { access($0, R_OK) } }
  }

  /// What the symbolic link at `path` points to. The corresponding C function is `readlink`.
  package static func linkTarget(_ path: String) throws(Errno) -> String {
    var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = try valueOrErrno { withPath(path) { readlink($0, &buffer, buffer.count) } }
    return FileNameText.decoding(buffer[..<count])
  }

  /// `path` made absolute with every symbolic link in it followed. The corresponding C
  /// function is `realpath`.
  package static func resolvedPath(_ path: String) throws(Errno) -> String {
    guard let resolved = withPath(path, { realpath($0, nil) }) else { throw Errno.current }
    defer { free(resolved) }
    return FileNameText.decoding(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
  }

  /// The folder part of `path` ("." for a bare name, "/" for the root).
  package static func parentDirectory(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "." }
    if slash == trimmed.startIndex { return "/" }
    return String(trimmed[..<slash])
  }
}

/// Calls `body` with `path` as a C string of the bytes it stands for (`FileNameText`: a name
/// that is not UTF-8, read from the command line or a folder, is opened by its own bytes).
func withPath<Result>(_ path: String, _ body: (UnsafePointer<CChar>) -> Result) -> Result {
  FileNameText.withCString(path, body)
}
