import Foundation
import LocalSend
import Synchronization
import TLS
import Testing

/// The receiver over real TLS on loopback: routes, sessions, refusals and the HTTP layer's
/// strictness on the wire.
@Suite struct ServerTests {
  @Test func infoAndRegisterDescribeTheReceiverAndRegistrationsReachTheDelegate() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let (info, proven) = try harness.client.info(harness.target)
    #expect(proven == harness.server.fingerprint)
    #expect(
      info
        == DeviceInfo(
          alias: "Secret Banana", version: "2.1", deviceModel: "Linux", deviceType: .desktop, fingerprint: harness.server.fingerprint.hex,
          download: false))
    let (answer, _) = try harness.client.register(harness.target)
    #expect(answer == info)
    let sender = try #require(harness.delegate.registered.first)
    #expect(sender.device.alias == "Nice Orange")
    #expect(sender.claimIsProven, "the client's certificate proves the fingerprint it claims")
  }

  @Test func filesAreStoredAndTheSenderIsKnownByItsCertificate() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let data = pseudoRandomBytes(count: 1_500_000, seed: 3)
    let files = [
      FileOffer(id: "1", fileName: "big.bin", size: Int64(data.count), fileType: "application/octet-stream", sha256: sha256Hex(data)),
      FileOffer(id: "2", fileName: "empty.txt", size: 0, fileType: "text/plain"),
    ]
    let session = try harness.session(files)
    try harness.client.upload(files[0], from: BytesSource(data), session: session.sessionId, token: session.files["1"]!, to: harness.target)
    try harness.client.upload(files[1], from: BytesSource([]), session: session.sessionId, token: session.files["2"]!, to: harness.target)
    #expect(harness.stored("big.bin").map(sha256Hex) == sha256Hex(data))
    #expect(harness.stored("empty.txt") == [])
    let offer = try #require(harness.delegate.receivedOffers.first)
    #expect(offer.sender.certificate == LocalSendFingerprint(identity: harness.clientIdentity))
    #expect(harness.delegate.sessionEnds.first?.1 == .finished(stored: ["1", "2"], failed: []))
  }

  @Test func aChecksumMismatchIsRefusedWithoutStoringAndMayBeRetried() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let data = Array("the real content".utf8)
    let file = FileOffer(id: "f", fileName: "f.txt", size: Int64(data.count), fileType: "text/plain", sha256: sha256Hex(data))
    let session = try harness.session([file])
    let tampered = Array("the fake content".utf8)
    #expect(throws: LocalSendError.self) {
      try harness.client.upload(
        file, from: BytesSource(tampered), session: session.sessionId, token: session.files["f"]!, to: harness.target)
    }
    #expect(harness.names.isEmpty)
    try harness.client.upload(file, from: BytesSource(data), session: session.sessionId, token: session.files["f"]!, to: harness.target)
    #expect(harness.stored("f.txt") == data)
  }

  @Test func aChunkedUploadAsTheLocalSendAppSendsItIsStored() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let data = Array("0123456789abcdefghij".utf8)
    let file = FileOffer(id: "c", fileName: "chunked.bin", size: Int64(data.count), fileType: "application/octet-stream")
    let session = try harness.session([file])
    let query = QueryString.build([("sessionId", session.sessionId), ("fileId", "c"), ("token", session.files["c"]!)])
    let text =
      "POST /api/localsend/v2/upload?\(query) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
      + "7\r\n0123456\r\nd\r\n789abcdefghij\r\n0\r\n\r\n"
    let answer = try harness.raw(text)
    #expect(status(answer) == 200, "\(answer)")
    #expect(harness.stored("chunked.bin") == data)
  }

  @Test func expectContinueGetsAnInterimAnswerBeforeTheBody() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let file = FileOffer(id: "e", fileName: "e.bin", size: 3, fileType: "")
    let session = try harness.session([file])
    let query = QueryString.build([("sessionId", session.sessionId), ("fileId", "e"), ("token", session.files["e"]!)])
    let head =
      "POST /api/localsend/v2/upload?\(query) HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
    let answer = try harness.raw(Array((head + "abc").utf8), pauseAfter: head.utf8.count, pause: .milliseconds(200))
    #expect(statuses(answer) == [100, 200], "\(answer)")
    #expect(harness.stored("e.bin") == Array("abc".utf8))
  }

  @Test func malformedAndSmugglingRequestsAreRefusedAndTheConnectionClosed() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let register = "POST /api/localsend/v2/register HTTP/1.1\r\nHost: x\r\n"
    let cases: [(String, Int)] = [
      (register + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}", 400),
      (register + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 400),
      (register + "X-A: 1\r\n folded\r\nContent-Length: 2\r\n\r\n{}", 400),
      ("POST /api/localsend/v2/register HTTP/1.1\nHost: x\nContent-Length: 2\n\n{}", 400),
      (register + "Transfer-Encoding: identity\r\n\r\n", 501),
      ("GET /api/localsend/v2/info HTTP/2.0\r\nHost: x\r\n\r\n", 505),
      ("GET /api/localsend/v2/info HTTP/1.1\r\nHost: x\r\nX: " + String(repeating: "a", count: 20_000) + "\r\n\r\n", 431),
      (register + "\r\n", 411),
      (register + "Content-Length: 100000\r\n\r\n", 413),
    ]
    for (request, expected) in cases {
      let answer = try harness.raw(request)
      #expect(status(answer) == expected, "\(request.prefix(80).debugDescription) → \(answer.prefix(120).debugDescription)")
      #expect(statuses(answer).count == 1)
    }
  }

  @Test func routesAndMethodsAreChecked() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    #expect(status(try harness.raw("GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) == 404)
    let wrongMethod = try harness.raw("GET /api/localsend/v2/upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    #expect(status(wrongMethod) == 405)
    #expect(wrongMethod.contains("Allow: POST\r\n"))
    #expect(
      status(
        try harness.raw("POST /api/localsend/v2/upload?sessionId=a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
        == 400)
    #expect(
      status(
        try harness.raw(
          "POST /api/localsend/v2/upload?sessionId=a&fileId=b&token=c HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )) == 403)
    #expect(status(try harness.raw("GET /api/localsend/v2/info?a=1&a=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) == 400)
  }

  @Test func oneConnectionCarriesSeveralRequests() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let get = "GET /api/localsend/v2/info HTTP/1.1\r\nHost: x\r\n\r\n"
    let answer = try harness.raw(get + get + "GET /api/localsend/v2/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    #expect(statuses(answer) == [200, 200, 200])
  }

  @Test func aClientThatDribblesItsHeadIsCutOff() throws {
    let harness = try ServerHarness(http: HTTPLimits(headTimeout: .seconds(1), idleTimeout: .seconds(1)))
    defer { harness.stop() }
    let text = "GET /api/localsend/v2/info HTTP/1.1\r\nHost: x\r\n\r\n"
    let started = ContinuousClock.now
    let answer = try harness.raw(Array(text.utf8), quiet: .seconds(10), pauseAfter: 10, pause: .seconds(3))
    #expect(answer.isEmpty, "closed without an answer: \(answer)")
    #expect(ContinuousClock.now - started < .seconds(10), "closed by the server, not by the test's own timeout")
  }

  @Test func aSecondSenderIsBlockedAndAPendingOfferCanBeCancelled() throws {
    let release = DispatchSemaphore(value: 0)
    let harness = try ServerHarness(decision: { offer in
      _ = release.wait(timeout: .now() + 20)
      return .accept(Set(offer.files.map(\.id)))
    })
    defer { harness.stop() }
    let file = FileOffer(id: "p", fileName: "p.bin", size: 1, fileType: "")
    let client = harness.client
    let target = harness.target
    let first = Background { () throws -> LocalSendClient.PrepareOutcome in try client.prepareUpload([file], to: target) }
    Thread.sleep(forTimeInterval: 0.5)
    #expect(throws: LocalSendError.self) { try client.prepareUpload([file], to: target) }
    let cancel = "POST /api/localsend/v2/cancel HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    #expect(status(try harness.raw(cancel)) == 200)
    release.signal()
    #expect(throws: LocalSendError.self) { try first.wait() }
    #expect(harness.names.isEmpty)
  }

  @Test func cancellingAnActiveSessionEndsItAndRefusesItsUploads() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let file = FileOffer(id: "z", fileName: "z.bin", size: 4, fileType: "")
    let session = try harness.session([file])
    try harness.client.cancel(session: session.sessionId, at: harness.target)
    #expect(harness.delegate.sessionEnds.first?.1 == .cancelledBySender)
    #expect(throws: LocalSendError.self) {
      try harness.client.upload(
        file, from: BytesSource([1, 2, 3, 4]), session: session.sessionId, token: session.files["z"]!, to: harness.target)
    }
    #expect(harness.names.isEmpty)
  }

  @Test func aPinIsAskedForAndChecked() throws {
    let harness = try ServerHarness(pin: "123456")
    defer { harness.stop() }
    let file = FileOffer(id: "k", fileName: "k.bin", size: 1, fileType: "")
    #expect(throws: LocalSendError.self) { try harness.client.prepareUpload([file], to: harness.target) }
    #expect(throws: LocalSendError.self) { try harness.client.prepareUpload([file], to: harness.target, pin: "000000") }
    guard case .session = try harness.client.prepareUpload([file], to: harness.target, pin: "123456") else {
      throw TestFailure("no session")
    }
  }

  @Test func aClientRefusesAReceiverWithAnotherCertificate() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let other = LocalSendFingerprint(certificateDER: [1, 2, 3])
    let wrong = LocalSendTarget(host: "127.0.0.1", port: harness.server.port, check: .expect(other))
    #expect(throws: LocalSendError.self) {
      try harness.client.prepareUpload([FileOffer(id: "a", fileName: "a", size: 1, fileType: "")], to: wrong)
    }
    #expect(harness.delegate.receivedOffers.isEmpty, "nothing reached the receiver")
  }
}
