/// A response to serialize: status, extra header fields and a whole body (the routes here
/// answer with small JSON or nothing). `Content-Length` and `Connection` are added by
/// `serialized`, never taken from `headers`.
package struct HTTPResponse: Sendable, Equatable {
  package var status: HTTPStatus
  package var headers: HTTPHeaders
  package var body: [UInt8]

  package init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The bytes on the wire: status line, fields, `Content-Length` (unless the status forbids a
  /// body), `Connection: close` when the connection ends after it, blank line, body.
  package func serialized(closing: Bool) -> [UInt8] {
    var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
    for field in headers { head += "\(field.name): \(field.value)\r\n" }
    if !status.forbidsBody { head += "Content-Length: \(body.count)\r\n" }
    if closing { head += "Connection: close\r\n" }
    head += "\r\n"
    return Array(head.utf8) + (status.forbidsBody ? [] : body)
  }
}

/// A request head to serialize (the body, if any, is streamed after it).
package struct HTTPRequest: Sendable, Equatable {
  package var method: String
  /// Origin-form: path, and query if any, already encoded.
  package var target: String
  package var host: String
  package var headers: HTTPHeaders
  /// The body's length; nil for a request without body.
  package var contentLength: Int64?

  package init(
    method: String, target: String, host: String, headers: HTTPHeaders = HTTPHeaders(),
    contentLength: Int64? = nil
  ) {
    self.method = method
    self.target = target
    self.host = host
    self.headers = headers
    self.contentLength = contentLength
  }

  /// Request line, `Host`, fields, `Content-Length` when there is a body, blank line.
  package func serializedHead() -> [UInt8] {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
    for field in headers { head += "\(field.name): \(field.value)\r\n" }
    if let contentLength { head += "Content-Length: \(contentLength)\r\n" }
    head += "\r\n"
    return Array(head.utf8)
  }
}
