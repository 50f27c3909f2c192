import Foundation

/// A route's answer, and whether the connection must close after it. An `Error` so that a
/// helper can hand back either its value or the answer that ends the request (`Result`).
struct Reply: Error {
  var response: HTTPResponse
  var close = false

  static func empty(_ status: HTTPStatus) -> Reply {
    Reply(response: HTTPResponse(status: status))
  }

  /// `{"message": text}`, the shape of the LocalSend app's error answers.
  static func message(_ status: HTTPStatus, _ text: String, close: Bool = false) -> Reply {
    var reply = json(ErrorMessage(message: text), status: status)
    reply.close = close
    return reply
  }

  static func json(_ value: some Encodable, status: HTTPStatus = .ok) -> Reply {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    guard let data = try? encoder.encode(value) else {
      return Reply(response: HTTPResponse(status: .internalServerError), close: true)
    }
    var headers = HTTPHeaders()
    headers.add("Content-Type", "application/json")
    return Reply(response: HTTPResponse(status: status, headers: headers, body: [UInt8](data)))
  }

  /// The answer to a request that broke HTTP; always closes the connection.
  static func broken(_ error: HTTPError) -> Reply {
    message(error.status, "Invalid request: \(error)", close: true)
  }

  /// The `Date` field value (IMF-fixdate) for `date`.
  static func httpDate(_ date: Date = Date()) -> String {
    var seconds = time_t(date.timeIntervalSince1970)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    return String(
      format: "%@, %02d %@ %04d %02d:%02d:%02d GMT", days[Int(parts.tm_wday) % 7],
      Int(parts.tm_mday), months[Int(parts.tm_mon) % 12], Int(parts.tm_year) + 1900,
      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
  }
}
