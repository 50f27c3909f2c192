import System
import TLS

/// A failure of the LocalSend layer: starting a server, or talking to another device.
/// `description` is one sentence for a person; remote text in it is escaped by the caller.
package enum LocalSendError: Error, Sendable, CustomStringConvertible {
  /// TLS setup, handshake or I/O failed.
  case tls(TLSError)
  /// A socket could not be bound or connected.
  case socket(SocketError)
  /// The device's certificate could not be read.
  case identity(String)
  /// The other side broke HTTP.
  case http(HTTPError)
  /// The other device answered with an unexpected status (its message, if it sent one).
  case status(code: Int, message: String?)
  /// The answer did not have the shape the protocol defines.
  case invalidResponse(String)
  /// The device's certificate is not the pinned one.
  case peerMismatch(expected: LocalSendFingerprint?, actual: LocalSendFingerprint)
  /// The receiver wants a PIN (none given, or a wrong one).
  case pinRequired(invalid: Bool)
  /// The receiver declined the whole transfer.
  case rejected
  /// The receiver is busy with another session.
  case blocked
  /// The receiver saw too many wrong PINs.
  case tooManyAttempts
  /// Reading a file to send failed.
  case source(path: String, errno: Errno)
  /// This side stopped the request (`LocalSendClient.abortAll`).
  case cancelled

  package var description: String {
    switch self {
    case .tls(let error): return error.description
    case .socket(let error): return "\(error)"
    case .identity(let detail): return "The device certificate cannot be used: \(detail)."
    case .http(let error): return "The device broke HTTP: \(error)."
    case .status(let code, _): return "The device answered with HTTP status \(code)."
    case .invalidResponse(let why): return "The device's answer is not valid LocalSend: \(why)."
    case .peerMismatch(let expected, let actual):
      return expected.map { "The device is not the expected one: its fingerprint is \(actual.hex.prefix(12))…, not \($0.hex.prefix(12))…." }
        ?? "The device's certificate (\(actual.hex.prefix(12))…) was refused."
    case .pinRequired(let invalid): return invalid ? "The PIN is wrong." : "The device asks for a PIN."
    case .rejected: return "The device declined the transfer."
    case .blocked: return "The device is busy with another transfer; try again later."
    case .tooManyAttempts: return "The device refuses further tries after too many wrong PINs."
    case .source(let path, let code): return "Cannot read \(path): \(code)."
    case .cancelled: return "Cancelled."
    }
  }
}
