/// The HTTP versions spoken here.
package enum HTTPVersion: Sendable, Equatable {
  case http10
  case http11

  package var text: String { self == .http10 ? "HTTP/1.0" : "HTTP/1.1" }
}

/// How a message body is delimited (RFC 9112 §6).
package enum BodyFraming: Sendable, Equatable {
  /// No body was declared (a request with neither `Content-Length` nor `Transfer-Encoding`, a
  /// 204 response, ...).
  case none
  /// Exactly this many bytes follow the head.
  case length(Int64)
  /// `Transfer-Encoding: chunked`.
  case chunked
  /// Responses only: the body runs until the server closes the connection.
  case untilClose
}

/// A parsed request head. Only origin-form targets are accepted, so `path` always starts with
/// "/" and is still percent-encoded; `query` is the raw text after "?", if any.
package struct HTTPRequestHead: Sendable, Equatable {
  package var method: String
  package var target: String
  package var version: HTTPVersion
  package var headers: HTTPHeaders
  package var framing: BodyFraming
  /// Whether the connection may carry another request after this one's response.
  package var keepAlive: Bool
  /// The client sent `Expect: 100-continue` and waits for an interim response before the body.
  package var expectsContinue: Bool

  package var path: Substring {
    target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
  }

  package var query: Substring? {
    target.firstIndex(of: "?").map { target[target.index(after: $0)...] }
  }
}

/// A parsed response head.
package struct HTTPResponseHead: Sendable, Equatable {
  package var version: HTTPVersion
  package var statusCode: Int
  package var reason: String
  package var headers: HTTPHeaders
  package var framing: BodyFraming
  package var keepAlive: Bool
}
