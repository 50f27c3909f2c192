import Foundation
import LocalSend
import Testing

/// The example messages of the protocol document (localsend/protocol README, v2.1), replayed
/// against the receiver over TLS; the answers are checked field by field against the shapes
/// the document gives. The examples are JSON5 there; here they are the same values as JSON
/// (comments and trailing commas removed).
@Suite struct DocumentReplayTests {
  /// §3.2 request (also the §3.1 register answer).
  static let register = """
    {"alias": "Secret Banana", "version": "2.0", "deviceModel": "Windows", "deviceType": "desktop",
     "fingerprint": "random string", "port": 53317, "protocol": "https", "download": true}
    """
  /// §3.1 announcement.
  static let announcement = """
    {"alias": "Nice Orange", "version": "2.0", "deviceModel": "Samsung", "deviceType": "mobile",
     "fingerprint": "random string", "port": 53317, "protocol": "https", "download": true, "announce": true}
    """
  /// §4.1 request.
  static let prepareUpload = """
    {"info": {"alias": "Nice Orange", "version": "2.0", "deviceModel": "Samsung", "deviceType": "mobile",
              "fingerprint": "random string", "port": 53317, "protocol": "https", "download": true},
     "files": {
       "some file id": {"id": "some file id", "fileName": "my image.png", "size": 324242, "fileType": "image/jpeg",
                        "sha256": "*sha256 hash*", "preview": "*preview data*",
                        "metadata": {"modified": "2021-01-01T12:34:56Z", "accessed": "2021-01-01T12:34:56Z"}},
       "another file id": {"id": "another file id", "fileName": "another image.jpg", "size": 1234, "fileType": "image/jpeg",
                           "sha256": "*sha256 hash*", "preview": "*preview data*"}}}
    """

  func post(_ harness: ServerHarness, _ path: String, _ body: String) throws -> String {
    try harness.raw(
      "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    )
  }

  func object(_ answer: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(body(answer).utf8)) as? [String: Any])
  }

  /// The §3.2 / §6.1 response: exactly these fields, with this device's values.
  func checkDeviceAnswer(_ answer: [String: Any], _ harness: ServerHarness) {
    #expect(Set(answer.keys) == ["alias", "version", "deviceModel", "deviceType", "fingerprint", "download"])
    #expect(answer["alias"] as? String == "Secret Banana")
    #expect(answer["version"] as? String == "2.1")
    #expect(answer["deviceModel"] as? String == "Linux")
    #expect(answer["deviceType"] as? String == "desktop")
    #expect(answer["fingerprint"] as? String == harness.server.fingerprint.hex)
    #expect(answer["download"] as? Bool == false)
  }

  @Test func registerAndInfo() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    let registered = try post(harness, "/api/localsend/v2/register", Self.register)
    #expect(status(registered) == 200)
    #expect(registered.contains("Content-Type: application/json\r\n"))
    checkDeviceAnswer(try object(registered), harness)
    let sender = try #require(harness.delegate.registered.first)
    #expect(
      sender.device
        == LocalSendDevice(
          alias: "Secret Banana", version: "2.0", deviceModel: "Windows", deviceType: .desktop, fingerprint: "random string", port: 53317,
          scheme: .https, download: true))
    #expect(!sender.claimIsProven, "\"random string\" is not the certificate's fingerprint")
    let info = try harness.raw("GET /api/localsend/v2/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    #expect(status(info) == 200)
    checkDeviceAnswer(try object(info), harness)
  }

  @Test func theAnnouncementParsesAndItsAnswerIsAnAnnouncementWithAnnounceFalse() throws {
    let message = try #require(MulticastDiscovery.parse(Array(Self.announcement.utf8)))
    #expect(message.announce)
    #expect(message.device.alias == "Nice Orange" && message.device.deviceType == .mobile && message.device.port == 53317)
    let answer = MulticastMessage(device: message.device, announce: false)
    let fields = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(answer)) as? [String: Any])
    #expect(
      Set(fields.keys) == ["alias", "version", "deviceModel", "deviceType", "fingerprint", "port", "protocol", "download", "announce"])
    #expect(fields["announce"] as? Bool == false)
  }

  @Test func prepareUploadUploadAndCancel() throws {
    let harness = try ServerHarness()
    defer { harness.stop() }
    // Verbatim, the example's placeholder checksums cannot be verified: refused, field named.
    let verbatim = try post(harness, "/api/localsend/v2/prepare-upload", Self.prepareUpload)
    #expect(status(verbatim) == 400)
    let message = try object(verbatim)["message"] as? String
    #expect(message?.contains(".sha256: not 64 hex digits") == true, "\(message ?? "")")
    #expect(harness.delegate.receivedOffers.isEmpty)

    // With the checksums left out (the document marks them nullable), the offer is accepted.
    let nullable = Self.prepareUpload.replacingOccurrences(of: "\"*sha256 hash*\"", with: "null")
    let prepared = try post(harness, "/api/localsend/v2/prepare-upload", nullable)
    #expect(status(prepared) == 200)
    let response = try object(prepared)
    #expect(Set(response.keys) == ["sessionId", "files"])
    let sessionId = try #require(response["sessionId"] as? String)
    let tokens = try #require(response["files"] as? [String: String])
    #expect(Set(tokens.keys) == ["some file id", "another file id"])
    let offer = try #require(harness.delegate.receivedOffers.first)
    let image = try #require(offer.files.first { $0.id == "some file id" })
    #expect(image.fileName == "my image.png" && image.size == 324242 && image.fileType == "image/jpeg")
    #expect(image.preview == "*preview data*" && image.metadata?.modified == "2021-01-01T12:34:56Z")

    // §4.2 with the document's parameter names; the file ID needs percent-encoding (spaces).
    let bytes = pseudoRandomBytes(count: 1234, seed: 5)
    let query = QueryString.build([("sessionId", sessionId), ("fileId", "another file id"), ("token", tokens["another file id"]!)])
    let head = "POST /api/localsend/v2/upload?\(query) HTTP/1.1\r\nHost: x\r\nContent-Length: 1234\r\nConnection: close\r\n\r\n"
    let uploaded = try harness.raw(Array(head.utf8) + bytes)
    #expect(status(uploaded) == 200)
    #expect(body(uploaded).isEmpty, "no body")
    #expect(harness.stored("another image.jpg") == bytes)
    let reused = try harness.raw(Array(head.utf8) + bytes)
    #expect(status(reused) == 403, "a token serves one upload")

    // §4.3
    let cancelled = try harness.raw(
      "POST /api/localsend/v2/cancel?sessionId=\(sessionId) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    #expect(status(cancelled) == 200)
    #expect(body(cancelled).isEmpty)
    #expect(harness.delegate.sessionEnds.first?.1 == .cancelledBySender)
  }

  @Test func thePinQueryParameter() throws {
    let harness = try ServerHarness(pin: "123456")
    defer { harness.stop() }
    let nullable = Self.prepareUpload.replacingOccurrences(of: "\"*sha256 hash*\"", with: "null")
    let without = try post(harness, "/api/localsend/v2/prepare-upload", nullable)
    #expect(status(without) == 401)
    #expect(try object(without)["message"] as? String == "PIN required")
    let with = try post(harness, "/api/localsend/v2/prepare-upload?pin=123456", nullable)
    #expect(status(with) == 200)
  }
}
