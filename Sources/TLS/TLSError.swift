import System

/// A failure in the TLS layer: identity files, certificates, TLS configuration, handshakes and
/// encrypted I/O.
///
/// `description` is one sentence for a user; `detail` adds the C-level evidence (the drained
/// OpenSSL error queue with library and reason strings, errno) for `--verbose` output and logs.
package enum TLSError: Error, CustomStringConvertible, Sendable {
  /// The TLS handshake failed for a reason not covered by a more specific case.
  case handshakeFailed(detail: String)
  /// The peer's bytes are not TLS (plain HTTP, another protocol, garbage).
  case notTLS(detail: String)
  /// The peer speaks TLS but not version 1.3 (or refused our version).
  case unsupportedProtocol(detail: String)
  /// The peer presented no certificate, so it has no device identity.
  case noPeerCertificate(detail: String)
  /// The peer's certificate carries another key than the device ID the caller expected.
  case peerMismatch(expected: Fingerprint, actual: Fingerprint)
  /// The peer aborted with a TLS alert, e.g. because it refused our certificate.
  case peerAlert(alert: String, detail: String)
  /// The peer closed the connection (or it was closed locally) before the expected data arrived.
  case connectionClosed(detail: String)
  /// A handshake deadline or the socket's receive/send timeout expired.
  case timedOut(operation: String)
  /// A system call on the socket failed.
  case io(errno: Errno, operation: String)
  /// OpenSSL reported a protocol or internal error during `operation`.
  case ssl(operation: String, detail: String)
  /// The identity file at `path` could not be read or parsed.
  case identity(path: String, detail: String)
  /// The identity's folder or a file in it at `path` could not be made or written (a read-only
  /// disk, a path through a file): nothing there is damaged.
  case identityNotSaved(path: String, detail: String)
  /// The private key file at `path` is readable or writable by group or others.
  case insecureKeyPermissions(path: String, mode: UInt32)
  /// A certificate could not be built, signed, encoded or parsed.
  case certificate(detail: String)
  /// An `SSL_CTX` or `SSL` object could not be configured.
  case configuration(detail: String)

  /// One sentence saying what failed and, where it helps, what to do.
  package var description: String {
    switch self {
    case .handshakeFailed:
      return "The secure connection could not be established (TLS handshake failed)."
    case .notTLS:
      return
        "The peer did not speak TLS; it is not a share device or the port belongs to another program."
    case .unsupportedProtocol:
      return "The peer does not support TLS 1.3, which share requires."
    case .noPeerCertificate:
      return "The peer presented no certificate, so its device identity cannot be checked."
    case .peerMismatch(let expected, let actual):
      return
        "The peer is not the expected device: its ID is \(actual.short)…, not \(expected.short)…."
    case .peerAlert(let alert, _):
      return "The peer ended the secure connection (TLS alert: \(alert))."
    case .connectionClosed:
      return "The connection was closed before the transfer finished."
    case .timedOut(let operation):
      return "The peer did not respond in time (\(operation) timed out)."
    case .io(let code, let operation):
      return "Network I/O failed during \(operation): \(code)."
    case .ssl(let operation, _):
      return "The secure connection failed during \(operation)."
    case .identity(let path, _):
      return
        "The device identity file \(path) could not be used; move it aside to create a new identity."
    case .identityNotSaved(let path, let detail):
      return "The device identity could not be saved at \(path) (\(detail)); choose a home this user can write (--home)."
    case .insecureKeyPermissions(let path, let mode):
      return
        "The private key \(path) has permissions \(String(mode, radix: 8)) and is accessible by others; run chmod 600 on it."
    case .certificate:
      return "The device certificate could not be created or read."
    case .configuration:
      return "The TLS configuration could not be set up."
    }
  }

  /// The full C-level detail: OpenSSL error queue entries, errno, paths.
  package var detail: String {
    switch self {
    case .handshakeFailed(let detail), .notTLS(let detail), .unsupportedProtocol(let detail),
      .noPeerCertificate(let detail), .connectionClosed(let detail), .certificate(let detail),
      .configuration(let detail):
      return detail
    case .peerAlert(_, let detail):
      return detail
    case .peerMismatch(let expected, let actual):
      return "expected peer fingerprint \(expected.hex), got \(actual.hex)"
    case .timedOut(let operation):
      return "\(operation): the deadline or the socket timeout (SO_RCVTIMEO/SO_SNDTIMEO) expired"
    case .io(let code, let operation):
      return "\(operation): errno \(code.rawValue) (\(code))"
    case .ssl(let operation, let detail):
      return "\(operation): \(detail)"
    case .identity(let path, let detail), .identityNotSaved(let path, let detail):
      return "\(path): \(detail)"
    case .insecureKeyPermissions(let path, let mode):
      return "\(path): mode \(String(mode, radix: 8)) has group/other bits (mask 077)"
    }
  }
}
