import CLinux
import Glibc

/// Landlock, the kernel's sandbox for unprivileged processes: a process declares which kinds of
/// file-system access it wants checked (`handled`) and where each is still allowed, then confines
/// itself; the kernel refuses the rest (`.permissionDenied`) from then on, for it and for every
/// process it starts. Nothing can lift the confinement.
///
/// Confinement applies to the calling thread and what it creates afterwards, not to threads that
/// already exist: confine before starting threads, or replace the process image afterwards
/// (`CurrentProcess.replace`), which leaves only the confined thread.
package enum Landlock {
  /// The Landlock ABI version the kernel offers, or the `Errno` that says why there is none
  /// (`.functionNotImplemented`: not in this kernel; `.operationNotSupported`: disabled at boot).
  /// The corresponding C function is `landlock_create_ruleset` with
  /// `LANDLOCK_CREATE_RULESET_VERSION`.
  package static func abiVersion() -> Result<Int, Errno> {
    let version = clinux_landlock_abi()
    return version < 0 ? .failure(.current) : .success(Int(version))
  }

  /// Kinds of file-system access (`LANDLOCK_ACCESS_FS_*`).
  package struct FileAccess: OptionSet, Sendable {
    package let rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    package static var execute: FileAccess { FileAccess(rawValue: 1 << 0) }
    package static var writeFile: FileAccess { FileAccess(rawValue: 1 << 1) }
    package static var readFile: FileAccess { FileAccess(rawValue: 1 << 2) }
    package static var readDirectory: FileAccess { FileAccess(rawValue: 1 << 3) }
    package static var removeDirectory: FileAccess { FileAccess(rawValue: 1 << 4) }
    package static var removeFile: FileAccess { FileAccess(rawValue: 1 << 5) }
    package static var makeCharacterDevice: FileAccess { FileAccess(rawValue: 1 << 6) }
    package static var makeDirectory: FileAccess { FileAccess(rawValue: 1 << 7) }
    package static var makeRegularFile: FileAccess { FileAccess(rawValue: 1 << 8) }
    package static var makeSocket: FileAccess { FileAccess(rawValue: 1 << 9) }
    package static var makeFIFO: FileAccess { FileAccess(rawValue: 1 << 10) }
    package static var makeBlockDevice: FileAccess { FileAccess(rawValue: 1 << 11) }
    package static var makeSymbolicLink: FileAccess { FileAccess(rawValue: 1 << 12) }
    /// Renaming or linking a file into another folder (ABI 2).
    package static var refer: FileAccess { FileAccess(rawValue: 1 << 13) }
    /// Truncating a file, `O_TRUNC` included (ABI 3).
    package static var truncate: FileAccess { FileAccess(rawValue: 1 << 14) }

    /// Every kind of access that changes the file system, as far as ABI `abi` can check it:
    /// writing, truncating, creating, removing, renaming and linking anything.
    package static func modifications(abi: Int) -> FileAccess {
      var access: FileAccess = [
        .writeFile, .removeDirectory, .removeFile, .makeCharacterDevice, .makeDirectory, .makeRegularFile,
        .makeSocket, .makeFIFO, .makeBlockDevice, .makeSymbolicLink,
      ]
      if abi >= 2 { access.insert(.refer) }
      if abi >= 3 { access.insert(.truncate) }
      return access
    }

    /// The kinds that make sense on a file rather than a folder (a rule on a file takes no other).
    package static var onFiles: FileAccess { [.execute, .writeFile, .readFile, .truncate] }
  }

  /// A set of rules being built; owns its descriptor until `restrictSelf` consumes it.
  package struct Ruleset: ~Copyable {
    private let descriptor: FileDescriptor
    private let handled: FileAccess

    /// A ruleset that checks `handled` access everywhere, allowing none of it until rules say so.
    /// The corresponding C function is `landlock_create_ruleset`.
    package init(handling handled: FileAccess) throws(Errno) {
      descriptor = FileDescriptor(rawValue: try valueOrErrno { clinux_landlock_create_ruleset(handled.rawValue) })
      self.handled = handled
    }

    deinit { try? descriptor.close() }

    /// Allows `access` (of what the ruleset handles) beneath the folder at `path`, or on the
    /// file at `path` (then only the kinds in `FileAccess.onFiles`). Symbolic links in `path`
    /// are followed: the rule is on what the path names now. The corresponding C function is
    /// `landlock_add_rule` with `LANDLOCK_RULE_PATH_BENEATH`.
    package func allow(_ access: FileAccess, beneath path: String) throws(Errno) {
      let target = try FileDescriptor.open(path, .readOnly, options: .pathOnly)
      try target.closeAfter { () throws(Errno) in
        var allowed = access.intersection(handled)
        if try target.status().kind != .directory { allowed.formIntersection(.onFiles) }
        try nothingOrErrno { clinux_landlock_allow_beneath(descriptor.rawValue, target.rawValue, allowed.rawValue) }
      }
    }

    /// Confines the calling thread (and what it starts from now on) to the rules; first sets
    /// no-new-privileges, which Landlock requires. The corresponding C functions are `prctl`
    /// with `PR_SET_NO_NEW_PRIVS` and `landlock_restrict_self`.
    package consuming func restrictSelf() throws(Errno) {
      try nothingOrErrno { clinux_set_no_new_privs() }
      try nothingOrErrno { clinux_landlock_restrict_self(descriptor.rawValue) }
    }
  }
}

extension Errno {
  /// The function is not implemented (a system call this kernel lacks). The corresponding C
  /// error is `ENOSYS`.
  package static var functionNotImplemented: Errno { Errno(rawValue: ENOSYS) }
  /// The operation is not supported (here: a feature compiled in but turned off). The
  /// corresponding C error is `EOPNOTSUPP`.
  package static var operationNotSupported: Errno { Errno(rawValue: EOPNOTSUPP) }
}
