import Glibc

/// An error number reported by a system call, as a typed value.
///
/// Compare with the named codes (`.noSuchFileOrDirectory`, ...) or match them in a `switch` or a
/// `catch` clause. `description` is the C library's text for the code (`strerror`), the only
/// place in the code base that calls it.
package struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
  /// The C `errno` value.
  package let rawValue: Int32

  package init(rawValue: Int32) { self.rawValue = rawValue }

  /// The calling thread's current `errno`. Read it right after the failing call: any other call
  /// in between may change it.
  package static var current: Errno { Errno(rawValue: Glibc.errno) }

  /// The C library's text for the code, e.g. "No such file or directory". The corresponding C
  /// function is `strerror`.
  package var description: String { String(cString: strerror(rawValue)) }

  /// Lets `catch Errno.noSuchFileOrDirectory` match a thrown `Errno`.
  package static func ~= (code: Errno, error: any Error) -> Bool {
    (error as? Errno) == code
  }
}

extension Errno {
  /// Operation not permitted. The corresponding C error is `EPERM`.
  package static var notPermitted: Errno { Errno(rawValue: EPERM) }
  /// No such file or directory. The corresponding C error is `ENOENT`.
  package static var noSuchFileOrDirectory: Errno { Errno(rawValue: ENOENT) }
  /// A signal interrupted the call. The corresponding C error is `EINTR`.
  package static var interrupted: Errno { Errno(rawValue: EINTR) }
  /// An input/output error. The corresponding C error is `EIO`.
  package static var ioError: Errno { Errno(rawValue: EIO) }
  /// Bad file descriptor. The corresponding C error is `EBADF`.
  package static var badFileDescriptor: Errno { Errno(rawValue: EBADF) }
  /// The resource is temporarily unavailable (a non-blocking call would block). The
  /// corresponding C error is `EAGAIN` (the same value as `EWOULDBLOCK` on Linux).
  package static var resourceTemporarilyUnavailable: Errno { Errno(rawValue: EAGAIN) }
  /// Permission denied. The corresponding C error is `EACCES`.
  package static var permissionDenied: Errno { Errno(rawValue: EACCES) }
  /// The file exists. The corresponding C error is `EEXIST`.
  package static var fileExists: Errno { Errno(rawValue: EEXIST) }
  /// A rename or link across file systems. The corresponding C error is `EXDEV`.
  package static var improperLink: Errno { Errno(rawValue: EXDEV) }
  /// A path component is not a directory. The corresponding C error is `ENOTDIR`.
  package static var notDirectory: Errno { Errno(rawValue: ENOTDIR) }
  /// The path is a directory. The corresponding C error is `EISDIR`.
  package static var isDirectory: Errno { Errno(rawValue: EISDIR) }
  /// Invalid argument. The corresponding C error is `EINVAL`.
  package static var invalidArgument: Errno { Errno(rawValue: EINVAL) }
  /// Too many open files in this process. The corresponding C error is `EMFILE`.
  package static var tooManyOpenFiles: Errno { Errno(rawValue: EMFILE) }
  /// Too many open files in the system. The corresponding C error is `ENFILE`.
  package static var tooManyOpenFilesInSystem: Errno { Errno(rawValue: ENFILE) }
  /// No space left on the device. The corresponding C error is `ENOSPC`.
  package static var noSpace: Errno { Errno(rawValue: ENOSPC) }
  /// The user's disk quota is exceeded. The corresponding C error is `EDQUOT`.
  package static var diskQuotaExceeded: Errno { Errno(rawValue: EDQUOT) }
  /// The file system is read-only. The corresponding C error is `EROFS`.
  package static var readOnlyFileSystem: Errno { Errno(rawValue: EROFS) }
  /// The reading end of a pipe or socket is closed. The corresponding C error is `EPIPE`.
  package static var brokenPipe: Errno { Errno(rawValue: EPIPE) }
  /// The directory is not empty. The corresponding C error is `ENOTEMPTY`.
  package static var directoryNotEmpty: Errno { Errno(rawValue: ENOTEMPTY) }
  /// Too many levels of symbolic links (also `O_NOFOLLOW` on a link). The corresponding C error
  /// is `ELOOP`.
  package static var tooManySymbolicLinkLevels: Errno { Errno(rawValue: ELOOP) }
  /// The address family is not supported. The corresponding C error is `EAFNOSUPPORT`.
  package static var addressFamilyNotSupported: Errno { Errno(rawValue: EAFNOSUPPORT) }
  /// The address is already in use. The corresponding C error is `EADDRINUSE`.
  package static var addressInUse: Errno { Errno(rawValue: EADDRINUSE) }
  /// The address is not available on this host. The corresponding C error is `EADDRNOTAVAIL`.
  package static var addressNotAvailable: Errno { Errno(rawValue: EADDRNOTAVAIL) }
  /// The network is unreachable. The corresponding C error is `ENETUNREACH`.
  package static var networkUnreachable: Errno { Errno(rawValue: ENETUNREACH) }
  /// The connection was reset by the peer. The corresponding C error is `ECONNRESET`.
  package static var connectionReset: Errno { Errno(rawValue: ECONNRESET) }
  /// The socket is not connected. The corresponding C error is `ENOTCONN`.
  package static var socketNotConnected: Errno { Errno(rawValue: ENOTCONN) }
  /// The connection timed out. The corresponding C error is `ETIMEDOUT`.
  package static var timedOut: Errno { Errno(rawValue: ETIMEDOUT) }
  /// The connection was refused: nothing listens there. The corresponding C error is
  /// `ECONNREFUSED`.
  package static var connectionRefused: Errno { Errno(rawValue: ECONNREFUSED) }
  /// No route to the host. The corresponding C error is `EHOSTUNREACH`.
  package static var noRouteToHost: Errno { Errno(rawValue: EHOSTUNREACH) }
  /// A non-blocking connect is under way. The corresponding C error is `EINPROGRESS`.
  package static var nowInProgress: Errno { Errno(rawValue: EINPROGRESS) }
}
