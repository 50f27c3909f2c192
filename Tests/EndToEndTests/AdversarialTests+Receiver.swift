import Foundation
import Testing
import Wire

/// A malicious receiver (`FakeReceiver`) against `share send --to 127.0.0.1:PORT`: what it says
/// must neither reach the sender's terminal raw nor be believed when it cannot be true.
extension AdversarialTests {
  /// Escape sequences a terminal acts on: OSC 52 (write the clipboard), OSC 8 (a hyperlink that
  /// shows other text than it opens), clear screen, colour, and a CSI without ESC (U+009B).
  static let terminalAttack =
    "\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}]8;;https://evil.example/\u{07}click\u{1B}]8;;\u{07}\u{1B}[2J\u{1B}[31mred\u{9B}0m\u{202E}"

  /// What `share send` printed that a terminal would act on.
  func rawControls(_ result: CommandResult) -> [String] {
    HostileNameTests.rawControls(in: result.stdout + result.stderr)
  }

  // MARK: Unbound fingerprints, the other way

  @Test func aReceiverWhoseHelloNamesAnotherDeviceIsNeverOfferedAnything() throws {
    let victim = try ThrowawayIdentity(name: "the-real-bob").id
    let receiver = try FakeReceiver { session, fake in
      try session.send(.hello(Hello(name: "bob", id: victim)))
      fake.record(try session.ask())
    }
    let alice = try ShareHome(name: "adv-alice")
    let sent = try alice.share("send", try alice.file("secret.txt", "secret\n").path, "--to", receiver.address)
    #expect(!sent.exited(with: 0), "\(sent)")
    #expect(sent.stderrText.contains("certificate"), "the error does not say the certificate is not the device's:\n\(sent)")
    #expect(receiver.recordedAsks.isEmpty, "the sender offered its items to an impostor: \(receiver.recordedAsks)")
  }

  // MARK: Terminal injection (croc CVE-2023-43620)

  @Test func aReceiversReasonsAndNamesReachTheSendersTerminalEscaped() throws {
    let evil = Self.terminalAttack
    let receiver = try FakeReceiver { session, fake in
      try session.send(fake.hello(name: "bob"))
      let ask = try session.ask()
      try session.send(
        .answer(
          Answer(items: [
            ItemAnswer(id: ask.items[0].id, accepted: false, reason: PeerText("rejected: \(evil)")),
            ItemAnswer(id: ask.items[1].id, accepted: true),
          ])))
      let bytes = try session.items(1)
      try session.send(
        .receipt(
          Receipt(items: [
            ItemReceipt(id: ask.items[0].id, status: .rejected, reason: PeerText(evil)),
            ItemReceipt(
              id: ask.items[1].id, status: .stored, storedAs: PeerText("b\(evil).txt"), reason: PeerText(evil),
              size: Int64(bytes.values.first?.count ?? 0)),
          ])))
    }
    let alice = try ShareHome(name: "adv-alice")
    let sent = try alice.share("send", try alice.file("a.txt", "a\n").path, try alice.file("b.txt", "b\n").path, "--to", receiver.address)
    #expect(sent.status == 3, "\(sent)")
    #expect(rawControls(sent).isEmpty, "raw \(rawControls(sent)) in:\n\(sent)")
    let json = try alice.share(
      "send", try alice.file("c.txt", "c\n").path, alice.files.appendingPathComponent("b.txt").path, "--to", receiver.address, "--json")
    #expect(!json.stdout.contains(escapeByte) && rawControls(json).isEmpty, "raw \(rawControls(json)) in:\n\(json)")

    // Fuzz/README.md F1: a message type the sender does not know, made of escape sequences.
    let unknown = try FakeReceiver { session, fake in
      try session.send(fake.hello(name: "bob"))
      _ = try session.ask()
      try session.sendFrame(
        .control, Array(#"{"type":"\#(evil.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined())"}"#.utf8))
    }
    let confused = try alice.share("send", alice.files.appendingPathComponent("a.txt").path, "--to", unknown.address)
    #expect(confused.exited(with: 1), "\(confused)")
    #expect(rawControls(confused).isEmpty, "raw \(rawControls(confused)) in:\n\(confused)")
  }

  @Test func aReceiversFailureMessageReachesTheSendersTerminalEscaped() throws {
    let receiver = try FakeReceiver { session, fake in
      try session.send(fake.hello(name: "bob"))
      _ = try session.ask()
      try session.send(.failure(Failure(code: "refused", message: PeerText("no \(Self.terminalAttack)"))))
    }
    let alice = try ShareHome(name: "adv-alice")
    let sent = try alice.share("send", try alice.file("a.txt", "a\n").path, "--to", receiver.address)
    #expect(!sent.exited(with: 0), "\(sent)")
    #expect(rawControls(sent).isEmpty, "raw \(rawControls(sent)) in:\n\(sent)")
  }

  @Test func aReceiversFifteenMebibyteNameIsNotPrintedInFull() throws {
    let name = String(repeating: "B", count: 15 << 20)
    let receiver = try FakeReceiver { session, fake in
      try session.send(.hello(Hello(name: PeerText(name), id: fake.id)))
      let ask = try session.ask()
      try session.send(.answer(Answer(items: ask.items.map { ItemAnswer(id: $0.id, accepted: false, reason: "no") })))
      try session.send(.receipt(Receipt(items: ask.items.map { ItemReceipt(id: $0.id, status: .rejected, reason: "no") })))
    }
    let alice = try ShareHome(name: "adv-alice")
    // Decoding 15 MiB takes a debug build a while: not what this test is about. The Hello is
    // refused as it is decoded (a device name is at most 256 bytes on the wire).
    let sent = try alice.share("send", try alice.file("a.txt", "a\n").path, "--to", receiver.address, timeout: .seconds(300))
    #expect(!sent.timedOut && sent.exited(with: 1), "share send: exit \(sent.status)\(sent.timedOut ? ", killed after 300 s" : "")")
    #expect(sent.stdout.count + sent.stderr.count < 64 << 10, "share send printed \(sent.stdout.count + sent.stderr.count) bytes")
  }

  // MARK: The sender trusting the receiver's answers

  @Test func aResumeOffsetPastTheEndOfTheFileIsNotBelieved() throws {
    let receiver = try FakeReceiver { session, fake in
      try session.send(fake.hello(name: "bob"))
      let ask = try session.ask()
      let item = ask.items[0]
      try session.send(.answer(Answer(items: [ItemAnswer(id: item.id, accepted: true, offset: (item.size ?? 0) + 1_000_000)])))
      _ = try session.items(1)
      try session.send(.receipt(Receipt(items: [ItemReceipt(id: item.id, status: .stored, storedAs: "a.bin", size: item.size)])))
    }
    let alice = try ShareHome(name: "adv-alice")
    let sent = try alice.share("send", try alice.randomFile("a.bin", size: 4096).path, "--to", receiver.address)
    #expect(!sent.exited(with: 0), "a send whose receiver claimed bytes that do not exist reported success:\n\(sent)")
    #expect(sent.stderrText.contains("offset"), "\(sent)")
  }

  @Test func aVerdictForAnItemNeverOfferedIsNotBelieved() throws {
    let receiver = try FakeReceiver { session, fake in
      try session.send(fake.hello(name: "bob"))
      let ask = try session.ask()
      let item = ask.items[0]
      try session.send(.answer(Answer(items: [ItemAnswer(id: item.id, accepted: true), ItemAnswer(id: 4242, accepted: true)])))
      _ = try session.items(1)
      try session.send(
        .receipt(
          Receipt(items: [
            ItemReceipt(id: item.id, status: .stored, storedAs: "a.txt", size: item.size),
            ItemReceipt(id: 4242, status: .stored, storedAs: "ghost.txt", size: 1),
          ])))
    }
    let alice = try ShareHome(name: "adv-alice")
    let sent = try alice.share("send", try alice.file("a.txt", "a\n").path, "--to", receiver.address)
    #expect(!sent.exited(with: 0), "an answer about an item never offered was accepted:\n\(sent)")
  }

  @Test func aWaitFollowedBySilenceDoesNotHoldTheSenderForMinutes() throws {
    let receiver = try FakeReceiver { session, fake in
      try session.send(fake.hello(name: "bob"))
      _ = try session.ask()
      try session.send(.wait(Wait(message: "asking bob", timeout: 2)))
      _ = session.waitForClose()
    }
    let alice = try ShareHome(name: "adv-alice")
    let sent = try alice.share("send", try alice.file("a.txt", "a\n").path, "--to", receiver.address, timeout: .seconds(30))
    #expect(!sent.timedOut, "share send was still waiting after 30 s for a receiver that promised an answer within 2 s")
    #expect(!sent.exited(with: 0), "\(sent)")
  }
}
