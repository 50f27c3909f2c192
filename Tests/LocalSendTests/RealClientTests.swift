import Foundation
import LocalSend
import Synchronization
import TLS
import Testing

/// Interoperability with localsend-cli (PyPI), a LocalSend client and receiver nobody here
/// wrote, on loopback.
@Suite(.serialized) struct RealClientTests {
  /// A receiver on loopback storing into a folder, and what it needs.
  struct Receiver {
    let directory: TemporaryDirectory
    let inbox: URL
    let delegate: FolderDelegate
    let server: LocalSendServer

    init(pin: String? = nil, decision: (@Sendable (IncomingOffer) -> OfferDecision)? = nil) throws {
      directory = try TemporaryDirectory()
      inbox = directory.url.appendingPathComponent("inbox")
      try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
      delegate = FolderDelegate(folder: inbox, decision: decision)
      let identity = try makeIdentity(in: directory, name: "receiver")
      server = try LocalSendServer(
        identity: identity,
        configuration: LocalSendServerConfiguration(host: "127.0.0.1", port: 0, alias: "share receiver", pin: pin),
        delegate: delegate)
      server.start()
    }

    func stop() {
      server.stop()
      directory.remove()
    }

    func contents(_ name: String) -> [UInt8]? {
      FileManager.default.contents(atPath: inbox.appendingPathComponent(name).path).map { [UInt8]($0) }
    }

    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? []).sorted() }
  }

  @Test func localsendCliSendsAPhotoAndTextWhileARefusedTypeAndAnELFNamedPngAreReportedToIt() throws {
    let receiver = try Receiver()
    defer { receiver.stop() }
    let cli = try LocalsendCLI()
    defer { cli.home.remove() }
    let photo = try cli.home.file("photo.jpg", Samples.photo)
    let fake = try cli.home.file("fake.png", Samples.elf)
    let tool = try cli.home.file("tool.exe", Array("MZ not really".utf8))
    let notes = try cli.home.file("notes.txt", Array("hello from localsend-cli\n".utf8))

    let result = try cli.run(
      ["send", "127.0.0.1", photo, fake, tool, notes, "--port", String(receiver.server.port), "--json"])

    #expect(result.status == 0, "stderr: \(result.stderr)")
    let sent = result.events.filter { $0["event"] as? String == "sent" }.compactMap { $0["name"] as? String }
    #expect(Set(sent) == ["photo.jpg", "notes.txt"])
    let errors = result.events.filter { $0["event"] as? String == "error" }
    #expect(errors.count == 1)
    #expect((errors.first?["name"] as? String) == "fake.png")
    #expect((errors.first?["message"] as? String)?.hasPrefix("HTTP 403") == true)
    let attempted = result.events.filter { $0["event"] as? String == "sending" }.compactMap { $0["name"] as? String }
    #expect(!attempted.contains("tool.exe"), "a refused file gets no token, so it is never uploaded")

    #expect(receiver.contents("photo.jpg").map(sha256Hex) == sha256Hex(Samples.photo))
    #expect(receiver.contents("notes.txt") == Array("hello from localsend-cli\n".utf8))
    #expect(receiver.names == ["notes.txt", "photo.jpg"], "nothing partial, nothing refused")

    let offer = try #require(receiver.delegate.receivedOffers.first)
    #expect(offer.files.count == 4)
    #expect(offer.sender.device.alias.hasPrefix("localsend-cli@"))
    #expect(offer.sender.device.deviceType == .headless)
    #expect(offer.sender.address == "127.0.0.1")
    #expect(offer.sender.certificate == nil, "localsend-cli presents no client certificate")
    #expect(offer.sender.device.fingerprint == cli.fingerprint)
    #expect(offer.files.first { $0.fileName == "photo.jpg" }?.sha256 == sha256Hex(Samples.photo))
    #expect(offer.files.first { $0.fileName == "notes.txt" }?.fileType == "text/plain")

    _ = receiver.delegate.ended.wait(timeout: .now() + 10)
    let end = try #require(receiver.delegate.sessionEnds.first?.1)
    guard case .finished(let stored, let failed) = end else { throw TestFailure("session end \(end)") }
    #expect(stored.count == 2 && failed.count == 1)
  }

  @Test func localsendCliIsToldAPinIsRequired() throws {
    let receiver = try Receiver(pin: "271828")
    defer { receiver.stop() }
    let cli = try LocalsendCLI()
    defer { cli.home.remove() }
    let photo = try cli.home.file("photo.jpg", Samples.photo)
    let result = try cli.run(["send", "127.0.0.1", photo, "--port", String(receiver.server.port), "--json"])
    #expect(result.status == 1)
    let message = result.events.first { $0["event"] as? String == "error" }?["message"] as? String
    #expect(message?.contains("HTTP 401") == true, "\(result.events)")
    #expect(message?.contains("PIN required") == true)
    #expect(receiver.delegate.receivedOffers.isEmpty)
    #expect(receiver.names.isEmpty)
  }

  @Test func localsendCliIsToldWhenTheWholeOfferIsDeclined() throws {
    let receiver = try Receiver(decision: { _ in .decline })
    defer { receiver.stop() }
    let cli = try LocalsendCLI()
    defer { cli.home.remove() }
    let photo = try cli.home.file("photo.jpg", Samples.photo)
    let result = try cli.run(["send", "127.0.0.1", photo, "--port", String(receiver.server.port), "--json"])
    #expect(result.status == 1)
    let message = result.events.first { $0["event"] as? String == "error" }?["message"] as? String
    #expect(message == "Transfer rejected by receiver")
    #expect(receiver.names.isEmpty)
  }

  @Test func shareSendsFilesAndTextToLocalsendCliAndHearsItsAnnouncement() throws {
    let cli = try LocalsendCLI()
    defer { cli.home.remove() }
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let output = directory.url.appendingPathComponent("received")
    let port = try freePort()
    let identity = try makeIdentity(in: directory, name: "sender")
    let fingerprint = try #require(LocalSendFingerprint(identity: identity))
    let me = LocalSendDevice(alias: "share sender", deviceModel: "Linux", deviceType: .desktop, fingerprint: fingerprint.hex, port: 1)
    let client = try LocalSendClient(identity: identity, device: me)

    let channel = try MulticastChannel(port: port, interfaceAddress: "127.0.0.1")
    let heard = HeardLog()
    let discovery = MulticastDiscovery(channel: channel, device: me, client: client) { heard.add($0) }
    discovery.start()
    defer { discovery.stop() }

    let receiver = try RunningCLI(cli, ["receive", "--output", output.path, "--json"], port: port)
    defer { receiver.stop() }
    _ = try receiver.wait { $0["event"] as? String == "ready" }

    // Its periodic announcement is heard on loopback, and answered by a register request.
    let announcement = try heard.wait { $0.device.alias.hasPrefix("localsend-cli@") }
    #expect(announcement.announce)
    #expect(announcement.address == "127.0.0.1")
    #expect(announcement.device.port == Int(port))
    #expect(announcement.device.fingerprint == cli.fingerprint)
    _ = try receiver.wait { $0["event"] as? String == "device" && $0["alias"] as? String == "share sender" }

    // The fingerprint its certificate proves is the one it announced; pin it.
    let claimed = try #require(cli.fingerprint)
    let cliFingerprint = try #require(LocalSendFingerprint(hex: claimed))
    let target = LocalSendTarget(host: "127.0.0.1", port: port, check: .expect(cliFingerprint))
    let (info, proven) = try client.info(target)
    #expect(proven == cliFingerprint)
    #expect(info.alias == announcement.device.alias)

    let data = pseudoRandomBytes(count: 3_000_000, seed: 11)
    let files = [
      FileOffer(id: "a", fileName: "photo.jpg", size: Int64(Samples.photo.count), fileType: "image/jpeg", sha256: sha256Hex(Samples.photo)),
      FileOffer(id: "b", fileName: "data.bin", size: Int64(data.count), fileType: "application/octet-stream"),
    ]
    guard case .session(let session) = try client.prepareUpload(files, to: target) else { throw TestFailure("no session") }
    #expect(Set(session.files.keys) == ["a", "b"])
    var progress: [Int64] = []
    try client.upload(files[0], from: BytesSource(Samples.photo), session: session.sessionId, token: session.files["a"]!, to: target)
    try client.upload(files[1], from: BytesSource(data), session: session.sessionId, token: session.files["b"]!, to: target) {
      progress.append($0)
    }
    #expect(progress.last == Int64(data.count))
    #expect(progress.count > 1)
    _ = try receiver.wait { $0["event"] as? String == "saved" && $0["name"] as? String == "data.bin" }
    #expect(
      FileManager.default.contents(atPath: output.appendingPathComponent("photo.jpg").path).map { sha256Hex([UInt8]($0)) }
        == sha256Hex(Samples.photo))
    #expect(
      FileManager.default.contents(atPath: output.appendingPathComponent("data.bin").path).map { sha256Hex([UInt8]($0)) } == sha256Hex(data)
    )

    // A text message: one text/plain file whose preview is the text.
    let text = "Hello from share ✓"
    let message = FileOffer(id: "t", fileName: "message.txt", size: Int64(text.utf8.count), fileType: "text/plain", preview: text)
    guard case .session(let textSession) = try client.prepareUpload([message], to: target) else { throw TestFailure("no session") }
    try client.upload(
      message, from: BytesSource(Array(text.utf8)), session: textSession.sessionId, token: textSession.files["t"]!, to: target)
    let shown = try receiver.wait { $0["event"] as? String == "text" }
    #expect(shown["text"] as? String == text)
    #expect(shown["sender"] as? String == "share sender")

    // Another certificate than the pinned one: nothing is sent.
    let wrong = LocalSendTarget(host: "127.0.0.1", port: port, check: .expect(fingerprint))
    #expect(throws: LocalSendError.self) { try client.prepareUpload(files, to: wrong) }
  }
}

/// Devices heard by a `MulticastDiscovery`.
final class HeardLog: Sendable {
  private let entries = Mutex<[MulticastDiscovery.Heard]>([])
  private let arrived = DispatchSemaphore(value: 0)

  func add(_ heard: MulticastDiscovery.Heard) {
    entries.withLock { $0.append(heard) }
    arrived.signal()
  }

  var all: [MulticastDiscovery.Heard] { entries.withLock { $0 } }

  func wait(seconds: Double = 20, for match: (MulticastDiscovery.Heard) -> Bool) throws -> MulticastDiscovery.Heard {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if let found = all.first(where: match) { return found }
      _ = arrived.wait(timeout: .now() + 0.5)
    }
    throw TestFailure("not heard; heard \(all)")
  }
}
