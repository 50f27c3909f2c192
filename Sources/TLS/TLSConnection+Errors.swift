import COpenSSL
import System

// How TLSConnection turns OpenSSL's and the socket's failures into `TLSError`s.
extension TLSConnection {
  /// Turns a failed `SSL_read_ex` / `SSL_write_ex` into a `TLSError`.
  func ioFailure(code: Int32, errno savedErrno: Errno, operation: String) -> TLSError {
    let entries = OpenSSLErrorQueue.drain()
    if (code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE) && !socket.isClosed {
      // Blocking socket: the kernel returned EAGAIN, i.e. SO_RCVTIMEO/SO_SNDTIMEO expired.
      return .timedOut(operation: operation)
    }
    return Self.classify(
      code: code, errno: savedErrno, entries: entries, operation: operation, handshake: false,
      socket: socket)
  }

  /// Maps an `SSL_get_error` result, errno and the drained error queue to a `TLSError`.
  static func classify(
    code: Int32, errno savedErrno: Errno, entries: [OpenSSLErrorEntry], operation: String,
    handshake: Bool, socket: Socket
  ) -> TLSError {
    let detail = OpenSSLErrorQueue.describe(
      "\(operation): SSL_get_error \(code), errno \(savedErrno.rawValue) (\(savedErrno))",
      entries)
    if socket.isClosed {
      return .connectionClosed(detail: "the connection was closed locally (\(detail))")
    }
    let sslReasons = Set(entries.filter { $0.library == ERR_LIB_SSL }.map(\.reason))
    if sslReasons.contains(SSL_R_UNEXPECTED_EOF_WHILE_READING) {
      return .connectionClosed(detail: detail)
    }
    if handshake {
      let notTLS: Set<Int32> = [
        SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST, SSL_R_WRONG_VERSION_NUMBER,
        SSL_R_UNKNOWN_PROTOCOL, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_RECORD_LENGTH_MISMATCH,
        SSL_R_BAD_PACKET_LENGTH, SSL_R_LENGTH_TOO_SHORT, SSL_R_UNEXPECTED_RECORD,
        SSL_R_BAD_RECORD_TYPE, SSL_R_WRONG_SSL_VERSION,
      ]
      if !sslReasons.isDisjoint(with: notTLS) { return .notTLS(detail: detail) }
      let oldProtocol: Set<Int32> = [
        SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_UNSUPPORTED_SSL_VERSION, SSL_R_VERSION_TOO_LOW,
        SSL_R_NO_PROTOCOLS_AVAILABLE, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION,
      ]
      if !sslReasons.isDisjoint(with: oldProtocol) { return .unsupportedProtocol(detail: detail) }
      if sslReasons.contains(SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) {
        return .noPeerCertificate(detail: detail)
      }
    }
    // Reasons from SSL_AD_REASON_OFFSET up are alerts the peer sent us.
    if let alert = entries.first(where: {
      $0.library == ERR_LIB_SSL && $0.reason >= SSL_AD_REASON_OFFSET
    }) {
      let text = ERR_reason_error_string(alert.code).map { String(cString: $0) } ?? "alert"
      if alert.reason == SSL_R_TLSV1_ALERT_PROTOCOL_VERSION {
        return .unsupportedProtocol(detail: detail)
      }
      return .peerAlert(alert: text, detail: detail)
    }
    if code == SSL_ERROR_SYSCALL {
      if entries.isEmpty && savedErrno.rawValue == 0 {
        return .connectionClosed(
          detail: "\(operation): the peer closed the connection (EOF); \(detail)")
      }
      if savedErrno == .connectionReset || savedErrno == .brokenPipe {
        return .connectionClosed(detail: detail)
      }
      if savedErrno == .resourceTemporarilyUnavailable {
        return .timedOut(operation: operation)
      }
      if savedErrno.rawValue != 0 {
        return .io(errno: savedErrno, operation: "\(operation): \(detail)")
      }
    }
    if handshake { return .handshakeFailed(detail: detail) }
    return .ssl(operation: operation, detail: detail)
  }

  /// Wraps a socket error raised by this connection's socket.
  static func tlsError(_ error: SocketError, operation: String) -> TLSError {
    if case .system(_, let code) = error {
      return .io(errno: code, operation: "\(operation): \(error.detail)")
    }
    return .io(errno: .ioError, operation: "\(operation): \(error.detail)")
  }
}
