import CLinux
import Glibc

// Linux calls that Swift's Glibc module leaves out (they need _GNU_SOURCE), wrapped from the
// CLinux shim. Nothing above System imports CLinux.

extension FileDescriptor {
  /// Tells the kernel the file will be read from start to end, so it reads ahead further (best
  /// effort: a failure changes nothing but speed). The corresponding C function is
  /// `posix_fadvise` with `POSIX_FADV_SEQUENTIAL`.
  package func adviseSequentialRead() {
    _ = clinux_fadvise_sequential(rawValue)
  }

  /// The user ID of the process at the other end of a connected Unix-domain socket. The
  /// corresponding C function is `getsockopt` with `SO_PEERCRED`.
  package func peerUserID() throws(Errno) -> uid_t {
    var uid: uid_t = 0
    try nothingOrErrno { clinux_peer_uid(rawValue, &uid) }
    return uid
  }
}
