import Synchronization
import TLS

/// `POST /upload` (§4.2): checks session, file, token and sender address, then streams the
/// body into the delegate's sink with constant memory, verifying length and (when offered)
/// SHA-256 before the sink may commit.
extension ServerConnection {
  func upload(_ exchange: inout Exchange) -> Reply {
    guard let session = exchange.query["sessionId"], let fileID = exchange.query["fileId"],
      let token = exchange.query["token"]
    else { return .message(.badRequest, "Missing parameters") }
    let begun = server.sessions.withLock {
      $0.beginUpload(session: session, file: fileID, token: token, address: address, now: .now)
    }
    let offer: FileOffer
    let sender: RemoteSender
    switch begun {
    case .success(let started): (offer, sender) = started
    case .failure(.blocked): return .message(.conflict, "Blocked by another session")
    case .failure(.invalidToken): return .message(.forbidden, "Invalid token or IP address")
    }
    // An upload the owner accepted: at work while its body streams.
    engaged(true)
    if let problem = lengthProblem(exchange.head.framing, size: offer.size) {
      finish(session, fileID, .failed)
      return .message(problem.status, problem.text)
    }
    let sink: any UploadSink
    do {
      sink = try server.delegate.localSend(open: AcceptedFile(sessionID: session, sender: sender, offer: offer))
    } catch {
      finish(session, fileID, .failed)
      return .message(error.status, error.message)
    }
    let (outcome, reply, why) = receive(&exchange, into: sink, offer: offer, session: session)
    if outcome == .stored {
      do {
        try sink.commit()
      } catch {
        finish(session, fileID, .failed)
        return .message(error.status, error.message)
      }
    } else {
      if let why { sink.failed(why) }
      sink.abort()
    }
    finish(session, fileID, outcome)
    return reply
  }

  /// Why a body's declared framing cannot carry the offered file, if it cannot.
  private func lengthProblem(_ framing: BodyFraming, size: Int64) -> (status: HTTPStatus, text: String)? {
    switch framing {
    case .none where size != 0: return (.lengthRequired, "Length required")
    case .length(let length) where length != size:
      return (.badRequest, "Content-Length differs from the offered size")
    default: return nil
    }
  }

  /// Streams the body into `sink`; the outcome for the session table, the answer, and why the
  /// server gave the file up when the sink did not refuse it itself (for the owner's log;
  /// review 47: a checksum mismatch or a cut-off body was only counted, never named).
  private func receive(
    _ exchange: inout Exchange, into sink: any UploadSink, offer: FileOffer, session: String
  ) -> (SessionTable.UploadOutcome, Reply, String?) {
    guard allowBody(&exchange) else {
      return (.failed, Reply(response: HTTPResponse(status: .badRequest), close: true), "its body could not be read")
    }
    if case .chunked = exchange.body { exchange.body = .chunked(ChunkedDecoder(limit: offer.size)) }
    let hasher = offer.sha256 == nil ? nil : SHA256Hasher()
    var received: Int64 = 0
    do {
      while let piece = try stream.nextBodyBytes(&exchange.body) {
        guard server.sessions.withLock({ $0.isLive(session) }) else {
          return (.failed, .message(.forbidden, "Cancelled", close: true), "the sender cancelled the session")
        }
        try sink.write(piece)
        hasher?.update(piece)
        received += Int64(piece.count)
      }
    } catch let refusal as UploadRefusal {
      return (.failed, .message(refusal.status, refusal.message, close: true), nil)
    } catch ConnectionError.http(let error) {
      return (
        .failed, .message(error.status, "Invalid body: \(error)", close: true), "its body broke off after \(received) bytes (\(error))"
      )
    } catch {
      return (.failed, Reply(response: HTTPResponse(status: .badRequest), close: true), "its body broke off after \(received) bytes")
    }
    guard received == offer.size else {
      return (
        .failed, .message(.badRequest, "The body is shorter than the offered size"),
        "it came with \(received) of the \(offer.size) bytes offered"
      )
    }
    if let hasher, let expected = offer.sha256 {
      let actual = hasher.finalize().map { String($0, radix: 16).leftPadded(to: 2) }.joined()
      guard actual == expected.lowercased() else {
        return (.checksumMismatch, .message(.unprocessableContent, "Checksum mismatch"), "its SHA-256 is not the one offered")
      }
    }
    return (.stored, .empty(.ok), nil)
  }

  /// Records an upload's outcome and tells the delegate when it ended the session.
  private func finish(_ session: String, _ file: String, _ outcome: SessionTable.UploadOutcome) {
    let end = server.sessions.withLock { $0.finishUpload(session: session, file: file, outcome: outcome, now: .now) }
    if let end { server.delegate.localSend(sessionEnded: session, end) }
  }
}

extension String {
  func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
