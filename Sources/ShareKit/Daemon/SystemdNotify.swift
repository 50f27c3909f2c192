import Foundation
import Glibc

/// sd_notify(3) without libsystemd: a datagram to the socket in `$NOTIFY_SOCKET` (a path, or an
/// abstract name starting with '@'). Does nothing when not run by systemd.
public enum SystemdNotify {
  /// Sends `state` (e.g. "READY=1\nSTATUS=receiving"); returns whether it was sent.
  @discardableResult
  public static func send(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
    guard let target = environment["NOTIFY_SOCKET"], !target.isEmpty, target.utf8.count <= 107 else { return false }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(target.utf8)
    if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract namespace
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    let message = Array(state.utf8)
    let sent = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, message, message.count, Int32(MSG_NOSIGNAL), $0, length) }
    }
    return sent == message.count
  }
}
