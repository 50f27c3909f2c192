import CLinux
import Foundation
import Glibc

/// The Unix-domain socket plumbing of the control channel: owner-only, and checked with
/// SO_PEERCRED so another local user cannot use it even if permissions were loosened.
enum UnixSocket {
  /// The longest socket path Linux accepts (sun_path minus the NUL).
  static let maxPathBytes = 107

  static func address(_ path: String) throws(ShareError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count <= maxPathBytes else {
      throw .configuration("the control socket path \(path) is over \(maxPathBytes) bytes; use a shorter --home")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return address
  }

  /// Binds and listens at `path` (replacing a stale socket), mode 0600.
  static func listen(at path: String) throws(ShareError) -> Int32 {
    var address = try address(path)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .configuration("cannot create the control socket: \(String(cString: strerror(errno)))") }
    unlink(path)
    let oldMask = umask(0o177)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    umask(oldMask)
    guard bound == 0, Glibc.listen(fd, 16) == 0 else {
      let code = errno
      close(fd)
      throw .configuration("cannot listen on \(path): \(String(cString: strerror(code)))")
    }
    chmod(path, 0o600)
    return fd
  }

  /// Connects to the socket at `path`.
  static func connect(to path: String) throws(ShareError) -> Int32 {
    var address = try address(path)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .configuration("cannot create a socket: \(String(cString: strerror(errno)))") }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard connected == 0 else {
      let code = errno
      close(fd)
      if code == ENOENT || code == ECONNREFUSED {
        throw .configuration("no share daemon is running for this home (start one with 'share daemon')")
      }
      throw .configuration("cannot reach the daemon at \(path): \(String(cString: code == EACCES ? strerror(code) : strerror(code)))")
    }
    return fd
  }

  /// The user ID of the process at the other end.
  static func peerUID(_ fd: Int32) -> uid_t? {
    var uid: uid_t = 0
    guard clinux_peer_uid(fd, &uid) == 0 else { return nil }
    return uid
  }

  /// Reads one line (up to `limit` bytes); nil on EOF before a newline or over the limit.
  static func readLine(_ fd: Int32, limit: Int = 1 << 20) -> Data? {
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 4096)
    while data.count < limit {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return data.isEmpty ? nil : data }
      data.append(contentsOf: chunk[0..<n])
      if let newline = data.firstIndex(of: 0x0A) { return data[..<newline] }
    }
    return nil
  }

  /// Writes everything.
  static func writeAll(_ fd: Int32, _ data: Data) {
    data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
      }
    }
  }
}
