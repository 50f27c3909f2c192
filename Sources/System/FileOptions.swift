import CLinux
import Glibc

extension FileDescriptor {
  /// Whether a descriptor reads, writes or both.
  package enum AccessMode: Sendable {
    case readOnly, writeOnly, readWrite

    /// `O_RDONLY`, `O_WRONLY` or `O_RDWR`.
    var rawValue: Int32 {
      switch self {
      case .readOnly: O_RDONLY
      case .writeOnly: O_WRONLY
      case .readWrite: O_RDWR
      }
    }
  }

  /// Flags for `open` (and, for the status flags, `setStatus`).
  package struct OpenOptions: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Create the file if it does not exist. The corresponding C flag is `O_CREAT`.
    package static var create: OpenOptions { OpenOptions(rawValue: O_CREAT) }
    /// With `.create`: fail with `.fileExists` if it does exist. The corresponding C flag is
    /// `O_EXCL`.
    package static var exclusiveCreate: OpenOptions { OpenOptions(rawValue: O_EXCL) }
    /// Empty an existing file. The corresponding C flag is `O_TRUNC`.
    package static var truncate: OpenOptions { OpenOptions(rawValue: O_TRUNC) }
    /// Every write goes to the end. The corresponding C flag is `O_APPEND`.
    package static var append: OpenOptions { OpenOptions(rawValue: O_APPEND) }
    /// Fail with `.tooManySymbolicLinkLevels` if the last component is a symbolic link. The
    /// corresponding C flag is `O_NOFOLLOW`.
    package static var noFollow: OpenOptions { OpenOptions(rawValue: O_NOFOLLOW) }
    /// Fail with `.notDirectory` unless the path is a directory. The corresponding C flag is
    /// `O_DIRECTORY`.
    package static var directory: OpenOptions { OpenOptions(rawValue: O_DIRECTORY) }
    /// Calls that would block fail with `.resourceTemporarilyUnavailable` instead; opening a
    /// FIFO does not wait for a writer. The corresponding C flag is `O_NONBLOCK`.
    package static var nonBlocking: OpenOptions { OpenOptions(rawValue: O_NONBLOCK) }
    /// Name the file without opening it for reading or writing: enough for `status()` and for
    /// a Landlock rule, and allowed on what cannot be read. The corresponding C flag is `O_PATH`.
    package static var pathOnly: OpenOptions { OpenOptions(rawValue: clinux_o_path()) }
    /// Bypass the page cache: buffers, lengths and offsets must be aligned (4096 bytes is safe),
    /// and some file systems (tmpfs) refuse it. The corresponding C flag is `O_DIRECT`.
    package static var direct: OpenOptions { OpenOptions(rawValue: clinux_o_direct()) }
  }
}

/// The permission bits of a file (`mode_t & 0o7777`).
package struct FilePermissions: OptionSet, Hashable, Sendable, CustomStringConvertible {
  package let rawValue: mode_t
  package init(rawValue: mode_t) { self.rawValue = rawValue }

  /// 0600: read and write for the owner only, the default for share's own files.
  package static var ownerReadWrite: FilePermissions { FilePermissions(rawValue: 0o600) }
  /// 0700: an owner-only folder.
  package static var ownerReadWriteExecute: FilePermissions { FilePermissions(rawValue: 0o700) }
  /// 0077: any permission for the group or others.
  package static var groupOrOthers: FilePermissions { FilePermissions(rawValue: 0o077) }

  /// Octal, as `chmod` takes it: "600".
  package var description: String { String(rawValue, radix: 8) }

  /// The process's file mode creation mask. The corresponding C function is `umask` (called
  /// twice: it can only be read by setting it).
  package static var creationMask: FilePermissions {
    let mask = umask(0o022)
    umask(mask)
    return FilePermissions(rawValue: mask)
  }
}

/// What `stat` says about a file.
package struct FileStatus: Sendable, Equatable {
  /// The kinds of file share cares about.
  package enum Kind: Sendable, Equatable {
    case regular, directory, symbolicLink, other
  }

  package var kind: Kind
  package var permissions: FilePermissions
  package var size: Int64
  package var inode: UInt64
  /// The user ID that owns the file.
  package var owner: uid_t
  /// The last modification time, in nanoseconds since 1970.
  package var modificationNanoseconds: Int64

  init(_ info: stat) {
    switch info.st_mode & S_IFMT {
    case S_IFREG: kind = .regular
    case S_IFDIR: kind = .directory
    case S_IFLNK: kind = .symbolicLink
    default: kind = .other
    }
    permissions = FilePermissions(rawValue: info.st_mode & 0o7777)
    size = Int64(info.st_size)
    inode = UInt64(info.st_ino)
    owner = info.st_uid
    modificationNanoseconds =
      Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
  }
}
