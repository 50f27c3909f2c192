/// The HTTP versions spoken here.
public enum HTTPVersion: Sendable, Equatable {
  case http10
  case http11

  public var text: String { self == .http10 ? "HTTP/1.0" : "HTTP/1.1" }
}

/// How a message body is delimited (RFC 9112 §6).
public enum BodyFraming: Sendable, Equatable {
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
public struct HTTPRequestHead: Sendable, Equatable {
  public var method: String
  public var target: String
  public var version: HTTPVersion
  public var headers: HTTPHeaders
  public var framing: BodyFraming
  /// Whether the connection may carry another request after this one's response.
  public var keepAlive: Bool
  /// The client sent `Expect: 100-continue` and waits for an interim response before the body.
  public var expectsContinue: Bool

  public var path: Substring {
    target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
  }

  public var query: Substring? {
    target.firstIndex(of: "?").map { target[target.index(after: $0)...] }
  }
}

/// A parsed response head.
public struct HTTPResponseHead: Sendable, Equatable {
  public var version: HTTPVersion
  public var statusCode: Int
  public var reason: String
  public var headers: HTTPHeaders
  public var framing: BodyFraming
  public var keepAlive: Bool
}
