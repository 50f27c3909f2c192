import System
import TLS

/// One request over a fresh HTTPS connection: connect, handshake, check the peer's
/// fingerprint, send head and body, read the answer. A connection per request keeps the
/// client simple and correct against HTTP/1.0 servers (localsend-cli answers with HTTP/1.0 and
/// closes); the cost is one TLS 1.3 handshake per request.
struct ClientExchange {
  let context: TLSContext
  let limits: HTTPLimits
  let connectTimeout: Duration

  /// The answer to a request.
  struct Answer {
    var head: HTTPResponseHead
    var body: [UInt8]
    /// The fingerprint of the certificate the device presented.
    var peer: LocalSendFingerprint

    /// The `message` of a LocalSend error answer, if it has one.
    var message: String? {
      try? Validation.decode(ErrorMessage.self, from: body, limit: 4096).message
    }
  }

  /// The largest answer body read.
  static let maxAnswerBytes = 1 << 20
  /// Body bytes sent per write.
  static let chunkSize = 256 * 1024

  func perform(
    _ request: HTTPRequest, to target: LocalSendTarget, body: (any UploadSource)? = nil,
    answerTimeout: Duration, progress: ((Int64) -> Void)? = nil
  ) throws(LocalSendError) -> Answer {
    let tls = try connect(target)
    defer { tls.close() }
    guard let certificate = tls.peerCertificate else {
      throw .tls(.noPeerCertificate(detail: "the device presented no certificate"))
    }
    let peer = LocalSendFingerprint(certificateDER: certificate.der)
    guard target.check.allows(peer) else { throw .peerMismatch(expected: target.check.expected, actual: peer) }
    let stream = HTTPStream(tls, limits: limits)
    let sendFailure = send(request, body: body, on: stream, progress: progress)
    do {
      // Even when sending failed, the device may have answered first (a refusal mid-upload).
      let head = try stream.readResponseHead(
        method: request.method, timeout: sendFailure == nil ? answerTimeout : .seconds(2))
      let answerBody = try stream.readBody(head.framing, limit: Self.maxAnswerBytes)
      tls.shutdown()
      return Answer(head: head, body: answerBody, peer: peer)
    } catch {
      if let sendFailure { throw sendFailure }
      switch error {
      case .http(let http): throw .http(http)
      case .transport(let transport): throw .tls(transport)
      }
    }
  }

  private func connect(_ target: LocalSendTarget) throws(LocalSendError) -> TLSConnection {
    let socket: Socket
    do {
      socket = try Socket.connect(host: target.host, port: target.port, timeout: connectTimeout)
    } catch {
      throw .socket(error)
    }
    do {
      return try TLSConnection.connect(socket, context: context, timeout: connectTimeout)
    } catch {
      throw .tls(error)
    }
  }

  /// Writes the head and streams the body; the error that stopped it, if any.
  private func send(
    _ request: HTTPRequest, body: (any UploadSource)?, on stream: HTTPStream,
    progress: ((Int64) -> Void)?
  ) -> LocalSendError? {
    do {
      try stream.write(request.serializedHead())
    } catch {
      if case .transport(let transport) = error { return .tls(transport) }
      return .http(.truncated)
    }
    guard let body else { return nil }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
    defer { buffer.deallocate() }
    var sent: Int64 = 0
    let total = request.contentLength ?? 0
    do {
      while sent < total {
        let want = Int(min(Int64(buffer.count), total - sent))
        let count = try body.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
        guard count > 0 else { return .invalidResponse("the file is shorter than its offered size") }
        do {
          try stream.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        } catch {
          return .tls(error)
        }
        sent += Int64(count)
        progress?(sent)
      }
    } catch {
      return error
    }
    return nil
  }
}
