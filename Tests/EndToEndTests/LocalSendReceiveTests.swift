import Foundation
import Testing

/// `share daemon --localsend` receiving from localsend-cli (PyPI), a LocalSend client nobody
/// here wrote, on loopback: every file goes through the same gate as a share ask.
@Suite(.serialized) struct LocalSendReceiveTests {
  /// A daemon with LocalSend on a free loopback port (its multicast on that port, loopback only).
  struct Receiving {
    let home: ShareHome
    let daemon: Daemon
    let port: UInt16
    let cli: LocalsendCLI

    /// `settings`: entries added to the home's settings.json before the daemon starts.
    init(mode: String = "everyone", arguments extra: [String] = [], settings: [String: String] = [:]) throws {
      home = try ShareHome(name: "lab-b")
      if !settings.isEmpty {
        let json = try JSONSerialization.data(withJSONObject: settings.merging(["name": "lab-b"]) { mine, _ in mine })
        try json.write(to: home.home.appendingPathComponent("settings.json"))
      }
      port = try freeLoopbackPort()
      daemon = try home.startDaemon(arguments: ["--mode", mode, "--localsend", "--localsend-port", String(port)] + extra)
      guard daemon.waitForLog("LocalSend: receiving on port \(port)") else {
        throw HarnessError("the daemon did not start LocalSend:\n\(daemon.log)")
      }
      cli = try LocalsendCLI(in: home)
    }

    /// `localsend-cli send 127.0.0.1 FILES... --port PORT --json`, in the background.
    func send(_ files: [URL]) throws -> ChildProcess {
      try cli.start(["send", "127.0.0.1"] + files.map(\.path) + ["--port", String(port), "--json"], port: port)
    }

    /// The asks `share requests` lists once there is at least one (bounded wait: localsend-cli is
    /// a Python program whose start alone took seconds under the parallel suite in CI).
    func waitingAsks() throws -> [[String: Any]] {
      let deadline = ContinuousClock.now + .seconds(30)
      while ContinuousClock.now < deadline {
        let asks = try parseJSONLines(try home.share("requests", "--json").stdoutText)
        if !asks.isEmpty { return asks }
        usleep(50_000)
      }
      throw HarnessError("no ask appeared in 'share requests'; daemon log:\n\(daemon.log)")
    }

    /// A JFIF photo (as libmagic sees it) to send.
    func photo() throws -> URL {
      let url = home.files.appendingPathComponent("photo.jpg")
      var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
      bytes += (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
      try Data(bytes).write(to: url)
      return url
    }
  }

  @Test func localsendCliSendsAPhotoAndAnELFNamedPngThePhotoLandsReadOnlyWithProvenanceTheELFIsRefusedAndTheClientIsTold()
    throws
  {
    let b = try Receiving()
    defer { _ = b.daemon.stop() }
    let photo = try b.photo()
    let fake = try b.home.copy(URL(fileURLWithPath: "/bin/true"), as: "fake.png")
    let sender = try b.send([photo, fake])
    defer { if sender.isRunning { sender.signal(SIGKILL) } }

    // localsend-cli proves no identity: it is a stranger, and its offer waits for the owner.
    let ask = try #require(try b.waitingAsks().first)
    #expect((ask["peer_name"] as? String)?.hasSuffix("(LocalSend, unverified)") == true, "\(ask)")
    let offered = (ask["items"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    #expect(Set(offered) == ["photo.jpg", "fake.png"])
    let id = try #require(ask["id"] as? Int)
    #expect(try b.home.share("accept", String(id)).exited(with: 0))

    let result = sender.wait(timeout: .seconds(60))
    let events = LocalsendCLI.events(result.stdoutText)
    let sent = events.filter { $0["event"] as? String == "sent" }.compactMap { $0["name"] as? String }
    #expect(sent == ["photo.jpg"], "\(result)")
    let error = try #require(events.first { $0["event"] as? String == "error" }, "\(result)")
    #expect(error["name"] as? String == "fake.png")
    let message = error["message"] as? String ?? ""
    #expect(message.hasPrefix("HTTP 403"), "the client is told: \(message)")

    // The photo is in the Inbox, read-only, with where it came from; the ELF left nothing.
    #expect(b.home.inboxNames() == ["photo.jpg"])
    let stored = b.home.inbox.appendingPathComponent("photo.jpg")
    #expect(filesAreIdentical(stored, photo))
    #expect((permissions(stored) ?? 0o777) & 0o222 == 0, "read-only")
    #expect(b.home.stagingEntries().isEmpty, "\(b.home.stagingEntries())")
    let item = try #require(try b.home.listedItems().first)
    #expect(item["protocol"] as? String == "localsend")
    #expect((item["sender_name"] as? String)?.hasPrefix("localsend-cli@") == true, "\(item)")
    #expect((item["sender_id"] as? String)?.count == 64, "its claimed fingerprint: \(item)")
    #expect(item["sender_verified"] as? Bool == false)
    #expect(item["type"] as? String == "public.jpeg")
    #expect(item["sha256"] as? String == (try sha256sum(photo)))
    #expect(b.daemon.log.contains("refused fake.png"), "the refusal is logged:\n\(b.daemon.log)")
    #expect(b.daemon.waitForLog("1 stored, 1 refused, 0 failed"), "\(b.daemon.log)")
  }

  /// A package whose VBA project lies past the head is judged again once all of it is in, as a
  /// share payload is (`WholePackageReceiveTests`), and the client is told.
  @Test func aMacroDocumentWhoseProjectLiesPastTheHeadIsRefusedToALocalSendClient() throws {
    let b = try Receiving()
    defer { _ = b.daemon.stop() }
    let report = b.home.files.appendingPathComponent("report.docx")
    try WholePackageReceiveTests.wordPackage(pictureBytes: 300_000, project: true).write(to: report)
    let sender = try b.send([report])
    defer { if sender.isRunning { sender.signal(SIGKILL) } }
    let ask = try #require(try b.waitingAsks().first)
    #expect(try b.home.share("accept", String(try #require(ask["id"] as? Int))).exited(with: 0))

    let result = sender.wait(timeout: .seconds(60))
    let events = LocalsendCLI.events(result.stdoutText)
    let error = try #require(events.first { $0["event"] as? String == "error" }, "\(result)")
    #expect(error["name"] as? String == "report.docx")
    let message = error["message"] as? String ?? ""
    #expect(message.hasPrefix("HTTP 403") && message.contains("macro-enabled"), "the client is told: \(message)")
    #expect(b.home.inboxNames().isEmpty)
    #expect(b.home.stagingEntries().isEmpty, "\(b.home.stagingEntries())")
    #expect(b.daemon.waitForLog("refused report.docx"), "\(b.daemon.log)")
  }

  @Test func aStrangersLocalSendUploadWaitsForShareAcceptThenArrives() throws {
    let b = try Receiving()
    defer { _ = b.daemon.stop() }
    let notes = try b.home.file("notes.txt", "from a phone, in spirit\n")
    let sender = try b.send([notes])
    defer { if sender.isRunning { sender.signal(SIGKILL) } }

    let ask = try #require(try b.waitingAsks().first)
    // While it waits: nothing in the Inbox or staging, the sender still waiting.
    usleep(500_000)
    #expect(b.home.inboxNames().isEmpty)
    #expect(b.home.stagingEntries().isEmpty)
    #expect(sender.isRunning, "the sender waits for the answer")
    let status = try b.home.share("status")
    #expect(status.stdoutText.contains("LocalSend:   port \(b.port)"), "\(status)")

    #expect(try b.home.share("accept", String(try #require(ask["id"] as? Int))).exited(with: 0))
    let result = sender.wait(timeout: .seconds(60))
    #expect(result.exited(with: 0), "\(result)")
    #expect(b.home.inboxNames() == ["notes.txt"])
    #expect(filesAreIdentical(b.home.inbox.appendingPathComponent("notes.txt"), notes))
  }

  @Test func aDeclinedOfferAndAContactsOnlyDaemonAnswerForbiddenWithTheReason() throws {
    let b = try Receiving()
    defer { _ = b.daemon.stop() }
    let notes = try b.home.file("notes.txt", "declined\n")
    let declined = try b.send([notes])
    defer { if declined.isRunning { declined.signal(SIGKILL) } }
    let ask = try #require(try b.waitingAsks().first)
    #expect(try b.home.share("decline", String(try #require(ask["id"] as? Int))).exited(with: 0))
    // localsend-cli says "Transfer rejected by receiver" for any 403 to prepare-upload.
    let first = declined.wait(timeout: .seconds(60))
    #expect(first.stdoutText.contains("Transfer rejected by receiver"), "\(first)")
    #expect(b.daemon.log.contains("declined by the receiver"), "\(b.daemon.log)")

    #expect(try b.home.share("receive", "contacts").exited(with: 0))
    let refused = try b.send([notes]).wait(timeout: .seconds(60))
    #expect(refused.stdoutText.contains("Transfer rejected by receiver"), "\(refused)")
    #expect(b.daemon.log.contains("accepts only its contacts"), "\(b.daemon.log)")
    // The reason is in the 403's body, as the LocalSend app reads it.
    let offer =
      #"{"info":{"alias":"curl","version":"2.1","deviceType":"headless","fingerprint":"x","port":1,"protocol":"https"},"#
      + #""files":{"f":{"id":"f","fileName":"a.txt","size":3,"fileType":"text/plain"}}}"#
    let answer = try ChildProcess(
      executable: URL(fileURLWithPath: "/usr/bin/curl"),
      arguments: [
        "-sk", "-w", "\n%{http_code}", "-H", "Content-Type: application/json", "--data", offer,
        "https://127.0.0.1:\(b.port)/api/localsend/v2/prepare-upload",
      ],
      environment: ProcessInfo.processInfo.environment
    ).wait(timeout: .seconds(30))
    #expect(answer.stdoutText.hasSuffix("\n403"), "\(answer)")
    #expect(answer.stdoutText.contains("accepts only its contacts"), "\(answer)")
    #expect(try b.home.share("requests", "--json").stdoutText.isEmpty, "nobody was asked")
    #expect(b.home.inboxNames().isEmpty)
  }
}
