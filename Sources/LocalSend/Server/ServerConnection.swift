import Foundation
import TLS

/// One client connection of a `LocalSendServer`: reads requests one after another (keep-alive),
/// routes them, answers, and closes cleanly after anything it cannot or will not go on with.
final class ServerConnection {
  let server: LocalSendServer
  let stream: HTTPStream
  /// The client's numeric IP address.
  let address: String
  /// The fingerprint of the certificate the client presented, if any.
  let certificate: LocalSendFingerprint?
  /// Tells the door whether the connection is at work (`LocalSendDoor.engaged`): from a request
  /// read whole (or an upload begun) to its answer. A client that holds a connection between
  /// requests, or drips a body, is not, and may be closed to make room.
  let engaged: (Bool) -> Void

  /// One request being answered.
  struct Exchange {
    let head: HTTPRequestHead
    var body: BodyProgress
    var query: [String: String] = [:]
    var continueSent = false
  }

  /// Body bytes read and dropped so the connection can be reused after an early answer.
  static let drainLimit: Int64 = 64 * 1024
  /// How long and how much is read after a closing answer, so the client sees the answer
  /// rather than a reset.
  static let lingerTime: Duration = .seconds(2)
  static let lingerLimit: Int64 = 16 << 20

  init(
    server: LocalSendServer, stream: HTTPStream, address: String, certificate: LocalSendFingerprint?,
    engaged: @escaping (Bool) -> Void = { _ in }
  ) {
    self.server = server
    self.stream = stream
    self.address = address
    self.certificate = certificate
    self.engaged = engaged
  }

  func run() {
    while true {
      let head: HTTPRequestHead
      do {
        guard let next = try stream.readRequestHead() else { return }
        head = next
      } catch .http(let error) {
        // After a timed-out read the TLS connection takes no more writes: just close.
        if error != .truncated && error != .timedOut { send(Reply.broken(error), closing: true) }
        return
      } catch {
        return
      }
      var exchange = Exchange(head: head, body: BodyProgress(head.framing, limit: Int64.max))
      // A request without a body is whole once its head is; one with a body, once it is read.
      if head.framing == .none { engaged(true) }
      let reply = route(&exchange)
      engaged(false)
      let keepAlive = head.keepAlive && !reply.close && finishBody(&exchange)
      guard send(reply, closing: !keepAlive), keepAlive else {
        linger(&exchange)
        return
      }
    }
  }

  /// Writes a reply with a `Date` field; false if the client is gone.
  @discardableResult
  func send(_ reply: Reply, closing: Bool) -> Bool {
    var response = reply.response
    response.headers.add("Date", Reply.httpDate())
    do {
      try stream.write(response.serialized(closing: closing))
      return true
    } catch {
      return false
    }
  }

  /// Reads what is left of the request body when the route did not, if it is small; false
  /// when the connection cannot be reused (a large body, or one the client holds back until
  /// it sees 100 Continue).
  private func finishBody(_ exchange: inout Exchange) -> Bool {
    if exchange.body.isDone { return true }
    if exchange.head.expectsContinue && !exchange.continueSent { return false }
    return stream.discard(&exchange.body, limit: Self.drainLimit)
  }

  /// After a closing answer to a request whose body was not read: reads a little of it so
  /// closing does not reset the connection under the answer.
  private func linger(_ exchange: inout Exchange) {
    guard !exchange.body.isDone, !(exchange.head.expectsContinue && !exchange.continueSent) else {
      return
    }
    stream.bodyTimeout = Self.lingerTime
    _ = stream.discard(&exchange.body, limit: Self.lingerLimit)
  }

  /// Sends `100 Continue` once, when the client asked for it, before reading the body.
  func allowBody(_ exchange: inout Exchange) -> Bool {
    guard exchange.head.expectsContinue, !exchange.continueSent else { return true }
    exchange.continueSent = true
    do {
      try stream.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
      return true
    } catch {
      return false
    }
  }

  // MARK: Routing

  private func route(_ exchange: inout Exchange) -> Reply {
    let path = String(exchange.head.path)
    let known = LocalSendProtocol.Route.allCases.first { $0.path == path }
    let route = known ?? (path == "/api/localsend/v1/info" ? .info : nil)
    guard let route else { return .message(.notFound, "Not found") }
    guard exchange.head.method == route.method else {
      var reply = Reply.message(.methodNotAllowed, "Method not allowed")
      reply.response.headers.add("Allow", route.method)
      return reply
    }
    do {
      exchange.query = try QueryString.parse(exchange.head.query ?? "")
    } catch {
      return .message(.badRequest, "Invalid query: \(error)")
    }
    switch route {
    case .info: return info()
    case .register: return register(&exchange)
    case .prepareUpload: return prepareUpload(&exchange)
    case .upload: return upload(&exchange)
    case .cancel: return cancel(exchange)
    }
  }

  /// The JSON body of a request that must have one.
  func readJSONBody(_ exchange: inout Exchange, limit: Int) -> Result<[UInt8], Reply> {
    if exchange.head.framing == .none { return .failure(.message(.lengthRequired, "Length required")) }
    guard allowBody(&exchange) else { return .failure(Reply(response: HTTPResponse(status: .badRequest), close: true)) }
    do {
      let body = try stream.readBody(exchange.head.framing, limit: limit)
      exchange.body = .done
      engaged(true)
      return .success(body)
    } catch .http(let error) {
      return .failure(.message(error.status, "Invalid body: \(error)", close: true))
    } catch {
      return .failure(Reply(response: HTTPResponse(status: .badRequest), close: true))
    }
  }
}
