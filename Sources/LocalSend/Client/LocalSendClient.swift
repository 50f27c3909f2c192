import Foundation
import System
import TLS

/// Sends to LocalSend devices (protocol v2, HTTPS): info, register, prepare-upload, upload and
/// cancel, with the device's own certificate presented as client certificate (the LocalSend
/// app's server asks for one) and the receiver's fingerprint checked by a `PeerCheck`.
/// Blocking; call from any thread, several at once.
package final class LocalSendClient: Sendable {
  /// How this device introduces itself (the `info` of prepare-upload, register bodies).
  package let device: LocalSendDevice
  /// How long a receiver may take to decide an offer (people take time to tap Accept).
  package let decisionTimeout: Duration
  /// How long any other answer may take.
  package let answerTimeout: Duration
  private let exchange: ClientExchange

  package init(
    identity: DeviceIdentity, device: LocalSendDevice, limits: HTTPLimits = .default,
    connectTimeout: Duration = .seconds(10), answerTimeout: Duration = .seconds(30),
    decisionTimeout: Duration = .seconds(300), answerBodyTimeout: Duration = .seconds(30)
  ) throws(LocalSendError) {
    self.device = device
    self.answerTimeout = answerTimeout
    self.decisionTimeout = decisionTimeout
    do {
      exchange = ClientExchange(
        context: try TLSContext(identity: identity, role: .client), limits: limits,
        connectTimeout: connectTimeout, answerBodyTimeout: answerBodyTimeout)
    } catch {
      throw .tls(error)
    }
  }

  /// `GET /info`: the device's description and the fingerprint its certificate proves.
  package func info(_ target: LocalSendTarget) throws(LocalSendError) -> (DeviceInfo, LocalSendFingerprint) {
    let answer = try exchange.perform(request(.info, target), to: target, answerTimeout: answerTimeout)
    guard answer.head.statusCode == 200 else { throw failure(answer) }
    return (try decode(DeviceInfo.self, answer), answer.peer)
  }

  /// `POST /register` with this device's description: the answer to an announcement.
  package func register(_ target: LocalSendTarget) throws(LocalSendError) -> (DeviceInfo, LocalSendFingerprint) {
    let answer = try post(.register, target, json: device, timeout: answerTimeout)
    guard answer.head.statusCode == 200 else { throw failure(answer) }
    return (try decode(DeviceInfo.self, answer), answer.peer)
  }

  /// What a receiver made of an offer.
  package enum PrepareOutcome: Sendable, Equatable {
    /// A session with a token for each accepted file; files left out were refused.
    case session(PrepareUploadResponse)
    /// 204: nothing needs uploading (e.g. a text message shown from its preview).
    case nothingToTransfer
  }

  /// `POST /prepare-upload`. Throws `.pinRequired`, `.rejected`, `.blocked` or
  /// `.tooManyAttempts` for the protocol's refusals.
  package func prepareUpload(_ files: [FileOffer], to target: LocalSendTarget, pin: String? = nil)
    throws(LocalSendError) -> PrepareOutcome
  {
    let body = PrepareUploadRequest(info: device, files: Dictionary(files.map { ($0.id, $0) }) { a, _ in a })
    let query = pin.map { [("pin", $0)] } ?? []
    let answer = try post(.prepareUpload, target, json: body, query: query, timeout: decisionTimeout)
    switch answer.head.statusCode {
    case 200:
      let response = try decode(PrepareUploadResponse.self, answer)
      guard Set(response.files.keys).isSubset(of: Set(files.map(\.id))) else {
        throw .invalidResponse("tokens for files that were not offered")
      }
      return .session(response)
    case 204: return .nothingToTransfer
    case 401: throw .pinRequired(invalid: pin != nil)
    case 403: throw .rejected
    case 409: throw .blocked
    case 429: throw .tooManyAttempts
    default: throw failure(answer)
    }
  }

  /// `POST /upload` of one accepted file, streaming `source` (exactly `file.size` bytes);
  /// `progress` gets the bytes sent so far after each write.
  package func upload(
    _ file: FileOffer, from source: any UploadSource, session: String, token: String,
    to target: LocalSendTarget, progress: ((Int64) -> Void)? = nil
  ) throws(LocalSendError) {
    var headers = HTTPHeaders()
    headers.add("Content-Type", "application/octet-stream")
    let query = [("sessionId", session), ("fileId", file.id), ("token", token)]
    let answer = try exchange.perform(
      request(.upload, target, query: query, headers: headers, length: file.size), to: target,
      body: source, answerTimeout: answerTimeout, progress: progress)
    guard answer.head.statusCode == 200 else { throw failure(answer) }
  }

  /// Ends every request under way at once, and fails every later one with `.cancelled`: a
  /// send stopped with Ctrl-C while the device's owner had not yet answered (review 47: it
  /// waited out the 300 s decision time).
  package func abortAll() { exchange.inFlight.abort() }

  /// `POST /cancel` of a session this device started.
  package func cancel(session: String, at target: LocalSendTarget) throws(LocalSendError) {
    let answer = try exchange.perform(
      request(.cancel, target, query: [("sessionId", session)], length: 0), to: target,
      answerTimeout: answerTimeout)
    guard answer.head.statusCode == 200 else { throw failure(answer) }
  }

  // MARK: Helpers

  private func request(
    _ route: LocalSendProtocol.Route, _ target: LocalSendTarget, query: [(String, String)] = [],
    headers: HTTPHeaders = HTTPHeaders(), length: Int64? = nil
  ) -> HTTPRequest {
    let path = query.isEmpty ? route.path : route.path + "?" + QueryString.build(query)
    return HTTPRequest(method: route.method, target: path, host: target.hostField, headers: headers, contentLength: length)
  }

  private func post(
    _ route: LocalSendProtocol.Route, _ target: LocalSendTarget, json: some Encodable,
    query: [(String, String)] = [], timeout: Duration
  ) throws(LocalSendError) -> ClientExchange.Answer {
    guard let data = try? JSONEncoder().encode(json) else { throw .invalidResponse("cannot encode the request") }
    var headers = HTTPHeaders()
    headers.add("Content-Type", "application/json")
    let bytes = [UInt8](data)
    return try exchange.perform(
      request(route, target, query: query, headers: headers, length: Int64(bytes.count)), to: target,
      body: BytesSource(bytes), answerTimeout: timeout)
  }

  private func decode<T: Decodable>(_ type: T.Type, _ answer: ClientExchange.Answer) throws(LocalSendError) -> T {
    do {
      return try Validation.decode(type, from: answer.body, limit: ClientExchange.maxAnswerBytes)
    } catch {
      throw .invalidResponse(error.description)
    }
  }

  private func failure(_ answer: ClientExchange.Answer) -> LocalSendError {
    .status(code: answer.head.statusCode, message: answer.message)
  }
}
