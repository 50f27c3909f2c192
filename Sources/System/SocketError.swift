/// A failure resolving, connecting, binding or accepting a TCP socket.
///
/// `description` is one sentence for a user; `detail` adds errno / getaddrinfo codes.
package enum SocketError: Error, CustomStringConvertible, Sendable {
  /// `getaddrinfo` failed; `code` is its `EAI_*` result and `message` its `gai_strerror` text.
  case resolve(host: String, code: Int32, message: String)
  /// Every address of `host` failed to connect; `errno` is the last attempt's error
  /// (`ECONNREFUSED` when nothing listens there).
  case connect(host: String, port: UInt16, errno: Errno)
  /// No address of `host` answered before the timeout.
  case connectTimedOut(host: String, port: UInt16)
  /// `bind` failed (`EADDRINUSE` when the port is taken).
  case bind(host: String, port: UInt16, errno: Errno)
  /// `accept4` failed in a way worth reporting (`EMFILE`/`ENFILE`: out of descriptors; the
  /// listener still works and the caller may retry after a pause).
  case accept(errno: Errno)
  /// The listener was closed, possibly by another thread while `accept()` was waiting.
  case listenerClosed
  /// Another system call failed (`socket`, `setsockopt`, `listen`, `getsockname`, ...).
  case system(operation: String, errno: Errno)

  /// One sentence saying what failed.
  package var description: String {
    switch self {
    case .resolve(let host, _, let message):
      return "Could not resolve \(host): \(message)."
    case .connect(let host, let port, let code):
      switch code {
      case .connectionRefused:
        return
          "Could not connect to \(host) port \(port): connection refused (nothing is listening there)."
      case .noRouteToHost, .networkUnreachable:
        return "Could not connect to \(host) port \(port): the host is unreachable."
      default:
        return "Could not connect to \(host) port \(port): \(code)."
      }
    case .connectTimedOut(let host, let port):
      return "Could not connect to \(host) port \(port): timed out."
    case .bind(let host, let port, let code):
      if code == .addressInUse {
        return "Could not listen on \(host) port \(port): the port is already in use."
      }
      return "Could not listen on \(host) port \(port): \(code)."
    case .accept(let code):
      if code == .tooManyOpenFiles || code == .tooManyOpenFilesInSystem {
        return "Could not accept a connection: too many open files."
      }
      return "Could not accept a connection: \(code)."
    case .listenerClosed:
      return "The listening socket was closed."
    case .system(let operation, let code):
      return "Socket operation \(operation) failed: \(code)."
    }
  }

  /// The raw codes behind `description`.
  package var detail: String {
    switch self {
    case .resolve(let host, let code, let message):
      return "getaddrinfo(\(host)): EAI \(code) (\(message))"
    case .connect(let host, let port, let code):
      return "connect(\(host):\(port)): errno \(code.rawValue) (\(code))"
    case .connectTimedOut(let host, let port):
      return "connect(\(host):\(port)): poll timed out"
    case .bind(let host, let port, let code):
      return "bind(\(host):\(port)): errno \(code.rawValue) (\(code))"
    case .accept(let code):
      return "accept4: errno \(code.rawValue) (\(code))"
    case .listenerClosed:
      return "accept on a closed listener"
    case .system(let operation, let code):
      return "\(operation): errno \(code.rawValue) (\(code))"
    }
  }
}
