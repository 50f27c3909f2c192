import Foundation
import System

/// The Unix-domain socket plumbing of the control channel: owner-only, and checked with
/// SO_PEERCRED so another local user cannot use it even if permissions were loosened.
/// Descriptors are plain `Int32`s owned by the caller.
enum UnixSocket {
  /// The longest socket path Linux accepts (sun_path minus the NUL).
  static let maxPathBytes = UnixSocketAddress.maxPathBytes

  static func address(_ path: String) throws(ShareError) -> UnixSocketAddress {
    guard let address = UnixSocketAddress(path: path) else {
      throw .configuration("the control socket path \(path) is over \(maxPathBytes) bytes; use a shorter --home")
    }
    return address
  }

  /// Binds and listens at `path` (replacing a stale socket), mode 0600 through the creation
  /// mask: nothing is `chmod`ed, which would follow a symbolic link put in the socket's place.
  static func listen(at path: String) throws(ShareError) -> Int32 {
    let address = try address(path)
    let socket: FileDescriptor
    do {
      socket = try FileDescriptor.unixSocket(.stream)
    } catch {
      throw .configuration("cannot create the control socket: \(error)")
    }
    try? FileSystem.remove(path)
    do {
      try FileSystem.withCreationMask(FilePermissions(rawValue: 0o177)) { () throws(Errno) in
        try socket.bind(to: address)
      }
      try socket.listen(backlog: 16)
    } catch {
      try? socket.close()
      throw .configuration("cannot listen on \(path): \(error)")
    }
    return socket.rawValue
  }

  /// Connects to the socket at `path`.
  static func connect(to path: String) throws(ShareError) -> Int32 {
    guard let socket = try connectIfListening(to: path) else {
      throw .configuration("no share daemon is running for this home (start one with 'share daemon')")
    }
    return socket
  }

  /// Connects to the socket at `path`; nil when no daemon listens there (no socket, or a stale one).
  static func connectIfListening(to path: String) throws(ShareError) -> Int32? {
    let address = try address(path)
    let socket: FileDescriptor
    do {
      socket = try FileDescriptor.unixSocket(.stream)
    } catch {
      throw .configuration("cannot create a socket: \(error)")
    }
    do {
      try socket.connect(to: address)
    } catch {
      try? socket.close()
      if error == .noSuchFileOrDirectory || error == .connectionRefused { return nil }
      throw .configuration("cannot reach the daemon at \(path): \(error)")
    }
    return socket.rawValue
  }

  /// The user ID of the process at the other end.
  static func peerUID(_ fd: Int32) -> uid_t? {
    try? FileDescriptor(rawValue: fd).peerUserID()
  }

  /// Reads one line (up to `limit` bytes); nil on EOF before a newline or over the limit. Each
  /// chunk is searched for the newline once, so a long line costs its length, not its square.
  /// With a `deadline`, a read that would wait past it ends the line as EOF does.
  static func readLine(_ fd: Int32, limit: Int, deadline: ContinuousClock.Instant? = nil) -> Data? {
    let socket = FileDescriptor(rawValue: fd)
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while data.count < limit {
      if let deadline, ((try? pollUntil(fd, events: Int16(POLLIN), deadline: deadline)) ?? 0) == 0 { return nil }
      let count = chunk.withUnsafeMutableBytes { try? socket.read(into: $0) } ?? 0
      if count == 0 { return data.isEmpty ? nil : data }
      if let newline = chunk[0..<count].firstIndex(of: 0x0A) {
        data.append(contentsOf: chunk[0..<newline])
        return data.count <= limit ? data : nil
      }
      data.append(contentsOf: chunk[0..<count])
    }
    return nil
  }

  /// Writes everything (best effort: the peer may have gone).
  static func writeAll(_ fd: Int32, _ data: Data) {
    try? FileDescriptor(rawValue: fd).writeAll(data)
  }
}
