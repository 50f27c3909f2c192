import Foundation
import System

/// sd_notify(3) without libsystemd: a datagram to the socket in `$NOTIFY_SOCKET` (a path, or an
/// abstract name starting with '@'). Does nothing when not run by systemd.
package enum SystemdNotify {
  /// Sends `state` (e.g. "READY=1\nSTATUS=receiving"); returns whether it was sent.
  @discardableResult
  package static func send(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
    guard let target = environment["NOTIFY_SOCKET"], !target.isEmpty else { return false }
    let address =
      target.hasPrefix("@") ? UnixSocketAddress(abstractName: String(target.dropFirst())) : UnixSocketAddress(path: target)
    guard let address, let socket = try? FileDescriptor.unixSocket(.datagram) else { return false }
    return socket.closeAfter {
      let message = Array(state.utf8)
      return (try? socket.send(message, to: address)) == message.count
    }
  }
}
