import Synchronization
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
  /// How long an answer's body may take once its head came, however it trickles (review 47: one
  /// byte every 2 s of a 100 KB body held a send for days).
  var answerBodyTimeout: Duration = .seconds(30)
  /// The connections of requests under way, so that `abort` can end them from any thread.
  let inFlight = InFlight()

  /// Requests under way, and whether they were all aborted.
  final class InFlight: Sendable {
    private let state = Mutex<(aborted: Bool, connections: [ObjectIdentifier: TLSConnection])>((false, [:]))

    /// Adds `connection`; false (and it is closed) once aborted.
    func add(_ connection: TLSConnection) -> Bool {
      let added = state.withLock { state in
        guard !state.aborted else { return false }
        state.connections[ObjectIdentifier(connection)] = connection
        return true
      }
      if !added { connection.close() }
      return added
    }

    func remove(_ connection: TLSConnection) {
      _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Closes every connection under way, and every one opened from now on: their reads and
    /// writes end at once.
    func abort() {
      let open = state.withLock { state in
        state.aborted = true
        return Array(state.connections.values)
      }
      open.forEach { $0.close() }
    }

    var aborted: Bool { state.withLock { $0.aborted } }
  }

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
    guard inFlight.add(tls) else { throw .cancelled }
    defer {
      inFlight.remove(tls)
      tls.close()
    }
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
      let answerBody = try stream.readBody(head.framing, limit: Self.maxAnswerBytes, deadline: .now + answerBodyTimeout)
      tls.shutdown()
      return Answer(head: head, body: answerBody, peer: peer)
    } catch {
      if inFlight.aborted { throw .cancelled }
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
