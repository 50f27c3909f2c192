import Foundation
import Glibc
import Testing

/// The exit codes of `share send` agree with the README's table, whatever the reason: 0 all
/// stored, 3 some stored, 4 nothing stored (items refused, the ask declined or unanswered, a
/// receiver that is off or takes only its contacts), 1 the exchange failed, 64 usage.
@Suite struct ExitCodeTests {
  /// Waits (bounded) until `home`'s daemon has an ask waiting; returns its number.
  static func waitingAsk(_ home: ShareHome) throws -> Int {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
      if let ask = try parseJSONLines(try home.share("requests", "--json").stdoutText).first, let id = ask["id"] as? Int {
        return id
      }
      usleep(50_000)
    }
    throw HarnessError("no ask arrived at \(home.name)")
  }

  /// Review 38: a folder whose every entry the type rules refused (on content) was "failed".
  @Test func aFolderWhoseEveryEntryIsRefusedIsRefused() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    try FileManager.default.createDirectory(at: a.files.appendingPathComponent("f/sub"), withIntermediateDirectories: true)
    for name in ["f/a.txt", "f/sub/b.txt"] { try a.file(name, "#!/bin/sh\necho hi\n") }
    let sent = try a.share("send", a.files.appendingPathComponent("f").path, "--to", daemon.address, "--json")
    #expect(sent.exited(with: 4), "\(sent)")
    let events = try parseJSONLines(sent.stdoutText)
    let item = try #require(
      events.first { $0["item"] as? String == "f" && ["refused", "failed"].contains($0["event"] as? String) }, "\(events)")
    #expect(item["event"] as? String == "refused" && item["status"] as? String == "rejected", "\(item)")
    #expect((item["reason"] as? String)?.contains("none of its files is accepted") == true, "\(item)")
    let done = try #require(events.last)
    #expect(done["refused"] as? Int == 1 && done["failed"] as? Int == 0, "\(done)")
  }

  @Test func everythingStoredIs0AndARefusedItemBesideAStoredOneIs3() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let text = try a.file("a.txt", "a\n")
    #expect(try a.share("send", text.path, "--to", daemon.address).exited(with: 0))
    let script = try a.file("run.sh", "#!/bin/sh\necho hi\n")
    let partial = try a.share("send", text.path, script.path, "--to", daemon.address)
    #expect(partial.exited(with: 3), "\(partial)")
  }

  @Test func everyItemRefusedIs4() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let refused = try a.share("send", try a.file("run.sh", "#!/bin/sh\necho hi\n").path, "--to", daemon.address)
    #expect(refused.exited(with: 4), "\(refused)")
  }

  @Test(arguments: ["contacts", "off"])
  func aReceiverThatTakesNothingFromThisSenderIs4LikeADeclinedAsk(mode: String) throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(arguments: ["--mode", mode])
    defer { _ = daemon.stop() }
    let sent = try a.share("send", try a.file("a.txt", "a\n").path, "--to", daemon.address)
    #expect(sent.exited(with: 4), "\(sent)")
    #expect(sent.stderrText.contains(mode == "off" ? "not receiving" : "only its contacts"), "\(sent)")
    // It names the receiver that refused (review 16: "the peer refused: …").
    #expect(sent.stderrText.hasPrefix("Error: \(daemon.address) refused: "), "\(sent)")
    #expect(b.inboxNames().isEmpty)
  }

  @Test func aDeclinedAskIs4() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let sender = try a.startShare("send", try a.file("a.txt", "a\n").path, "--to", daemon.address)
    let ask = try Self.waitingAsk(b)
    #expect(try b.share("decline", String(ask)).exited(with: 0))
    let sent = sender.wait(timeout: .seconds(20))
    #expect(sent.exited(with: 4), "\(sent)")
    // Said once, on stdout (review 30 L7: a warning on stderr said it first).
    #expect(sent.stdoutLines == ["refused  a.txt: declined by the receiver"], "\(sent)")
    #expect(!sent.stderrText.contains("a.txt"), "\(sent)")
  }

  /// Review 30 L4: `accept --trust` made the sender a contact without saying so.
  @Test func acceptingWithTrustSaysTheSenderIsNowAContact() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let sender = try a.startShare("send", try a.file("a.txt", "a\n").path, "--to", daemon.address)
    let ask = try Self.waitingAsk(b)
    let accepted = try b.share("accept", String(ask), "--trust")
    #expect(accepted.exited(with: 0), "\(accepted)")
    #expect(accepted.stderrText.contains("from alice"), "\(accepted)")
    #expect(accepted.stderrText.contains("it is now a contact: its next sends are accepted without asking"), "\(accepted)")
    #expect(sender.wait(timeout: .seconds(20)).exited(with: 0))
    #expect(try b.share("trust").stdoutLines.first?.hasPrefix("alice") == true)
  }

  @Test func anAskNobodyAnswersIs4() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone", "--ask-timeout", "1s"])
    defer { _ = daemon.stop() }
    let sent = try a.share("send", try a.file("a.txt", "a\n").path, "--to", daemon.address)
    #expect(sent.exited(with: 4), "\(sent)")
    #expect(sent.stdoutText.contains("nobody answered"), "\(sent)")
  }

  @Test func noReceiverThereIs1AndAWrongCommandLineIs64() throws {
    let a = try ShareHome(name: "alice")
    let file = try a.file("a.txt", "a\n")
    let nobody = try a.share("send", file.path, "--to", "127.0.0.1:9")
    #expect(nobody.exited(with: 1), "\(nobody)")
    let wrong = try a.share("send", file.path, "--to", "127.0.0.1:99999")
    #expect(wrong.exited(with: 64), "\(wrong)")
  }
}

extension ExitCodeTests {
  /// Review 30: output that could not be written (a full disk, standard output closed) left the
  /// exit status 0. The command says so and exits 1; a closed descriptor is not reused for a file.
  @Test func outputThatCannotBeWrittenIsAnErrorAndExits1() throws {
    let home = try ShareHome(name: "alice")
    for redirection in [">/dev/full", ">&-"] {
      let script = #""$1" --home "$2" id "# + redirection
      let result = try ChildProcess(
        executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script, "sh", try ShareBinary.require().path, home.home.path],
        environment: home.environment()
      ).wait(timeout: .seconds(30))
      #expect(result.exited(with: 1), "\(redirection): \(result)")
      #expect(result.stderrText.contains("Error: cannot write to standard output: "), "\(redirection): \(result)")
    }
    #expect(try home.share("id").exited(with: 0))
  }
}
