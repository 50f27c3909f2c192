import Foundation
import Glibc
import Testing
import Wire

/// Issue 11, point 2 (croc CVE-2023-43620's class): what a stranger or a receiver writes — a
/// device name, a reason, a failure message — reaches a terminal or the daemon's log escaped and
/// cut, never raw and never whole when it is huge.
@Suite struct TerminalInjectionTests {
  /// OSC 52 (write the clipboard), OSC 8 (a hyperlink that opens something other than it shows),
  /// clear screen, colour, a CSI without ESC (U+009B), a right-to-left override.
  static let attack =
    "\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}]8;;https://evil.example/\u{07}click\u{1B}]8;;\u{07}\u{1B}[2J\u{1B}[31mred\u{9B}0m\u{202E}"
  /// 256 escape characters: a name Wire lets through (at most 256 bytes) that escapes to 1,536
  /// characters.
  static let longName = String(repeating: "\u{1B}", count: 256)
  /// A shown line is at most this long: each piece of peer text is cut at 512 characters, and
  /// no line here holds more than two.
  static let longestLine = 1200

  init() {
    // A fake receiver may still be writing when the sender hangs up.
    signal(SIGPIPE, SIG_IGN)
  }

  /// No raw control character in `text`, and (unless it is JSON, which carries values whole up
  /// to 4 KiB each) no line longer than `longestLine`.
  func expectSafe(_ text: String, _ what: String, json: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
    let raw = HostileNameTests.rawControls(in: Data(text.utf8))
    #expect(raw.isEmpty, "raw \(raw) in \(what): \(text.prefix(4000).debugDescription)", sourceLocation: sourceLocation)
    let line = text.split(separator: "\n").max { $0.count < $1.count } ?? ""
    #expect(
      line.count <= (json ? 64 << 10 : Self.longestLine), "a line of \(line.count) characters in \(what): \(line.prefix(2000))",
      sourceLocation: sourceLocation)
  }

  /// The receiver's pending asks, as `share requests --json` lists them.
  func pendingAsks(_ home: ShareHome, count: Int) throws -> [Int] {
    let deadline = ContinuousClock.now + .seconds(20)
    var listed: CommandResult
    repeat {
      listed = try home.share("requests", "--json")
      let ids = try parseJSONLines(listed.stdoutText).compactMap { $0["id"] as? Int }
      if ids.count >= count { return ids }
      usleep(100_000)
    } while ContinuousClock.now < deadline
    throw HarnessError("fewer than \(count) asks arrived:\n\(listed)")
  }

  @Test func aStrangersDeviceNameReachesTheDaemonsLogEscapedAndCapped() throws {
    let bob = try ShareHome(name: "inj-bob")
    let daemon = try bob.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    // A device name of share's own holds at most 63 bytes: a title change, a clear screen and a
    // bidi override fit.
    let stranger = try ShareHome(name: "mallory\u{1B}]0;owned\u{07}\u{1B}[2J\u{202E}")
    let asking = try stranger.startShare("send", try stranger.file("hi.txt", "hi\n").path, "--to", daemon.address)
    // A hand-made peer may say up to 256 bytes.
    let identity = try ThrowawayIdentity(name: "mallory")
    let raw = try RawPeer(port: daemon.port, identity: identity.identity)
    try raw.hello(name: Self.longName)
    try raw.send(
      .ask(
        Ask(items: [
          ItemOffer(id: 0, kind: .file, name: "hi.txt", size: 1),
          ItemOffer(id: 1, kind: .file, name: PeerText("x\(Self.attack).txt"), size: 1),
        ])))
    let asks: [Int]
    do {
      asks = try pendingAsks(bob, count: 2)
    } catch {
      Issue.record("\(error)\n--- daemon:\n\(daemon.log.debugDescription)")
      return
    }
    for ask in asks {
      let declined = try bob.share("decline", String(ask))
      #expect(declined.exited(with: 0), "\(declined)")
      expectSafe(declined.stdoutText + declined.stderrText, "share decline")
    }
    #expect(asking.wait(timeout: .seconds(20)).status == 4)
    // A Hello whose name is 15 MiB: refused by its frame's header (a Hello is at most 64 KiB),
    // before any of it is read, and logged as a short line.
    let huge = try RawPeer(port: daemon.port, identity: identity.identity)
    try? huge.send(.hello(Hello(name: PeerText(String(repeating: "B", count: 15 << 20)), id: identity.id)))
    #expect(huge.waitForClose())
    #expect(daemon.waitForLog("declined ask", count: 2), "\(daemon.log)")
    #expect(daemon.waitForLog("over the limit of 65536"), "\(daemon.log)")
    #expect(daemon.log.contains("asks to send"), "\(daemon.log)")
    expectSafe(daemon.log, "the daemon's log")
    #expect(daemon.log.utf8.count < 64 << 10, "the daemon logged \(daemon.log.utf8.count) bytes")
  }

  /// A stranger's Hello name with escape sequences and a bidi override is shown escaped where
  /// people read it (`share requests`, the daemon's log) and carried whole where programs read it
  /// (`share requests --json`, the daemon's `--json` events): JSON-escaped, it decodes to what
  /// was sent.
  @Test func aHelloNameIsShownEscapedAndCarriedWholeInJSON() throws {
    let name = "eve\u{1B}]0;owned\u{07}\u{1B}[31m\u{202E}gpj.exe"
    let shown = #"eve\u{1B}]0;owned\u{7}\u{1B}[31m\u{202E}gpj.exe"#
    let item = "a\u{1B}[2J\u{200F}.txt"
    let bob = try ShareHome(name: "inj-bob")
    let daemon = try bob.startDaemon(json: true, arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let identity = try ThrowawayIdentity(name: "eve")
    let raw = try RawPeer(port: daemon.port, identity: identity.identity)
    try raw.hello(name: name)
    try raw.send(.ask(Ask(items: [ItemOffer(id: 0, kind: .file, name: PeerText(item), size: 1)])))
    let ask = try #require(try pendingAsks(bob, count: 1).first)
    let listed = try bob.share("requests")
    expectSafe(listed.stdoutText + listed.stderrText, "share requests")
    #expect(listed.stdoutText.contains("\(shown) ("), "\(listed)")
    #expect(listed.stdoutText.contains(#"a\u{1B}[2J\u{200F}.txt"#), "\(listed)")
    let requests = try parseJSONLines(try bob.share("requests", "--json").stdoutText)
    #expect(requests.first?["peer_name"] as? String == name)
    #expect((requests.first?["items"] as? [[String: Any]])?.first?["name"] as? String == item)
    let declined = try bob.share("decline", String(ask))
    expectSafe(declined.stdoutText + declined.stderrText, "share decline")
    #expect(
      daemon.process.waitFor(timeout: .seconds(20)) { stdout, _, _ in
        String(decoding: stdout, as: UTF8.self).contains(#""event":"refused""#)
      })
    let events = String(decoding: daemon.process.stdoutSoFar, as: UTF8.self)
    expectSafe(events, "the daemon's --json events", json: true)
    let asked = try parseJSONLines(events).first { $0["event"] as? String == "ask" }
    #expect(asked?["peer_name"] as? String == name, "\(events)")
    let refused = try parseJSONLines(events).first { $0["event"] as? String == "refused" }
    #expect(refused?["peer_name"] as? String == name && refused?["item"] as? String == item, "\(events)")
  }

  @Test func aReceiversFailureMessageAndNameReachTheSendersTerminalEscapedAndCapped() throws {
    let receiver = try FakeReceiver { session, fake in
      try session.send(.hello(Hello(name: PeerText(Self.longName), id: fake.id)))
      _ = try session.ask()
      try session.send(.wait(Wait(message: PeerText("asking \(Self.attack)"), timeout: 5)))
      let message = "no \(Self.attack)" + String(repeating: "\u{1B}[2J", count: 1 << 20)
      try session.send(.failure(Failure(code: "refused", message: PeerText(message))))
    }
    let alice = try ShareHome(name: "inj-alice")
    let file = try alice.file("a.txt", "a\n").path
    for json in [false, true] {
      let sent = try alice.run(
        ["--home", alice.home.path, "send", file, "--to", receiver.address] + (json ? ["--json"] : []), timeout: .seconds(300))
      #expect(sent.exited(with: 4), "\(sent)")  // a receiver that refuses: none stored
      expectSafe(sent.stdoutText, "share send\(json ? " --json" : "")'s stdout", json: json)
      expectSafe(sent.stderrText, "share send\(json ? " --json" : "")'s stderr")
      #expect(sent.stderrText.contains(#" refused: no \u{1B}]52;c;"#), "\(sent)")
    }
  }

  @Test func aReceiversReasonsAndStoredNamesAreShownEscapedAndCapped() throws {
    let reason = "rejected: " + String(repeating: Self.attack, count: 40)
    let receiver = try FakeReceiver { session, fake in
      try session.send(fake.hello(name: "bob\(Self.attack)"))
      let ask = try session.ask()
      try session.send(
        .answer(
          Answer(items: [
            ItemAnswer(id: ask.items[0].id, accepted: false, reason: PeerText(reason), type: "public.\(Self.attack)"),
            ItemAnswer(id: ask.items[1].id, accepted: true),
          ])))
      let bytes = try session.items(1)
      try session.send(
        .receipt(
          Receipt(items: [
            ItemReceipt(id: ask.items[0].id, status: .rejected, reason: PeerText(reason)),
            ItemReceipt(
              id: ask.items[1].id, status: .stored, storedAs: PeerText("b\(Self.attack).txt\(Self.longName)"),
              type: "public.\(Self.attack)", size: Int64(bytes.values.first?.count ?? 0)),
          ])))
    }
    let alice = try ShareHome(name: "inj-alice")
    let files = [try alice.file("a.txt", "a\n").path, try alice.file("b.txt", "b\n").path]
    for json in [false, true] {
      let sent = try alice.run(["--home", alice.home.path, "send"] + files + ["--to", receiver.address] + (json ? ["--json"] : []))
      #expect(sent.status == 3, "\(sent)")
      expectSafe(sent.stdoutText, "share send\(json ? " --json" : "")'s stdout", json: json)
      expectSafe(sent.stderrText, "share send\(json ? " --json" : "")'s stderr")
      if json {
        // Programs get the receiver's words whole, JSON-escaped.
        let events = try parseJSONLines(sent.stdoutText)
        #expect(events.first { $0["event"] as? String == "connected" }?["peer_name"] as? String == "bob\(Self.attack)")
        // (cut where Wire cuts a reason: at 1 KiB, then "…")
        let refused = events.first { $0["event"] as? String == "refused" }?["reason"] as? String ?? ""
        #expect(refused.hasSuffix("…") && refused.utf8.count > 1000 && reason.hasPrefix(refused.dropLast()), "\(refused)")
      } else {
        #expect(sent.stderrText.contains(#"Connected to bob\u{1B}]52;c;"#), "\(sent)")
      }
    }
  }

  @Test func aReceiversFifteenMebibyteNameIsRefusedNotPrinted() throws {
    let receiver = try FakeReceiver { session, fake in
      try session.send(.hello(Hello(name: PeerText(String(repeating: "B", count: 15 << 20)), id: fake.id)))
      _ = try session.ask()
    }
    let alice = try ShareHome(name: "inj-alice")
    let sent = try alice.share("send", try alice.file("a.txt", "a\n").path, "--to", receiver.address, timeout: .seconds(300))
    #expect(sent.exited(with: 1), "exit \(sent.status)\(sent.timedOut ? ", killed after 300 s" : "")")
    #expect(sent.stdout.count + sent.stderr.count < 4096, "share send printed \(sent.stdout.count + sent.stderr.count) bytes")
    #expect(sent.stderrText.contains("name is over 256 bytes"), "\(sent.stderrText.prefix(2000))")
  }
}
