/// Why an HTTP message was refused. Every case maps to the status a server answers with
/// (`status`); the parser never guesses at a message it cannot read exactly one way.
package enum HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The head (request line and header fields) is longer than the limit.
  case headTooLarge(limit: Int)
  /// More header fields than the limit.
  case tooManyHeaders(limit: Int)
  /// The request line is not `method SP origin-form SP HTTP-version`.
  case malformedRequestLine
  /// The status line of a response is not `HTTP-version SP 3DIGIT [SP reason]`.
  case malformedStatusLine
  /// The request target is longer than the limit.
  case targetTooLong(limit: Int)
  /// An HTTP version other than 1.0 and 1.1.
  case unsupportedVersion
  /// A line ends in a bare CR or LF, or holds a byte that may not appear there.
  case malformedLine(String)
  /// A header field line folded onto the next (obs-fold), forbidden in requests.
  case obsoleteLineFolding
  /// A header field that is not `token ":" OWS value OWS`.
  case malformedHeader(String)
  /// HTTP/1.1 request without exactly one `Host`.
  case hostRequired
  /// `Content-Length` is not one decimal number, or appears more than once.
  case invalidContentLength
  /// Both `Transfer-Encoding` and `Content-Length`: the classic smuggling vector.
  case conflictingFraming
  /// A transfer coding other than a single `chunked`.
  case unsupportedTransferEncoding
  /// An `Expect` other than `100-continue`.
  case unsupportedExpectation
  /// A chunked body that does not follow `chunk-size CRLF data CRLF ... 0 CRLF CRLF`.
  case malformedChunk(String)
  /// The body is larger than the route allows.
  case bodyTooLarge(limit: Int64)
  /// The route needs a body whose length is declared.
  case lengthRequired
  /// The query string cannot be read as `name=value&...` with valid percent-escapes and UTF-8.
  case malformedQuery(String)
  /// The connection ended in the middle of a message.
  case truncated
  /// The peer did not send the head or the next bytes in time.
  case timedOut

  /// The status a server answers this error with.
  package var status: HTTPStatus {
    switch self {
    case .headTooLarge, .tooManyHeaders: return .requestHeaderFieldsTooLarge
    case .targetTooLong: return .uriTooLong
    case .unsupportedVersion: return .httpVersionNotSupported
    case .unsupportedTransferEncoding: return .notImplemented
    case .unsupportedExpectation: return .expectationFailed
    case .bodyTooLarge: return .contentTooLarge
    case .lengthRequired: return .lengthRequired
    case .timedOut: return .requestTimeout
    default: return .badRequest
    }
  }

  package var description: String {
    switch self {
    case .headTooLarge(let limit): return "request head longer than \(limit) bytes"
    case .tooManyHeaders(let limit): return "more than \(limit) header fields"
    case .malformedRequestLine: return "malformed request line"
    case .malformedStatusLine: return "malformed status line"
    case .targetTooLong(let limit): return "request target longer than \(limit) bytes"
    case .unsupportedVersion: return "HTTP version not supported"
    case .malformedLine(let why): return "malformed line: \(why)"
    case .obsoleteLineFolding: return "folded header line (obs-fold)"
    case .malformedHeader(let why): return "malformed header field: \(why)"
    case .hostRequired: return "HTTP/1.1 request needs exactly one Host"
    case .invalidContentLength: return "invalid or repeated Content-Length"
    case .conflictingFraming: return "both Transfer-Encoding and Content-Length"
    case .unsupportedTransferEncoding: return "transfer coding other than chunked"
    case .unsupportedExpectation: return "Expect other than 100-continue"
    case .malformedChunk(let why): return "malformed chunked body: \(why)"
    case .bodyTooLarge(let limit): return "body larger than \(limit) bytes"
    case .lengthRequired: return "body length required"
    case .malformedQuery(let why): return "malformed query: \(why)"
    case .truncated: return "connection closed in the middle of a message"
    case .timedOut: return "timed out"
    }
  }
}
