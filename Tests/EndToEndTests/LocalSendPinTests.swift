import Foundation
import Testing

/// `share daemon --localsend` with a PIN (`--localsend-pin`, or `localsend_pin` in settings.json):
/// every prepare-upload must carry `?pin=` (protocol 2.1), else 401, before share's gate is
/// asked anything. localsend-cli's `send` has no way to give a PIN (only its `receive` has
/// `--pin`), so it shows the refusal, and curl speaks the protocol with the PIN.
@Suite(.serialized) struct LocalSendPinTests {
  typealias Receiving = LocalSendReceiveTests.Receiving

  @Test func withAPinLocalsendCliIsToldPinRequiredAWrongPinIsInvalidAndTheRightPinGetsTheFileIn() throws {
    let pin = "271828"
    let b = try Receiving(arguments: ["--localsend-pin", pin])
    defer { _ = b.daemon.stop() }
    let notes = try b.home.file("notes.txt", "only with the PIN\n")

    // localsend-cli gives no PIN: 401, nobody is asked, nothing arrives.
    let refused = try b.send([notes]).wait(timeout: .seconds(60))
    #expect(refused.status == 1, "\(refused)")
    let error = LocalsendCLI.events(refused.stdoutText).first { $0["event"] as? String == "error" }
    let message = error?["message"] as? String ?? ""
    #expect(message.contains("HTTP 401") && message.contains("PIN required"), "\(refused)")
    #expect(try b.home.share("requests", "--json").stdoutText.isEmpty, "nobody was asked")

    // A wrong PIN: 401 "Invalid PIN".
    let wrong = try Curl.prepareUpload(port: b.port, file: notes, pin: "314159").wait(timeout: .seconds(30))
    #expect(wrong.stdoutText.hasSuffix("\n401") && wrong.stdoutText.contains("Invalid PIN"), "\(wrong)")
    #expect(b.home.inboxNames().isEmpty)

    // The right PIN: the offer goes on to share's gate (a stranger's waits for 'share accept'),
    // then the upload lands in the Inbox.
    let prepare = try Curl.prepareUpload(port: b.port, file: notes, pin: pin)
    defer { if prepare.isRunning { prepare.signal(SIGKILL) } }
    let ask = try #require(try b.waitingAsks().first)
    #expect(try b.home.share("accept", String(try #require(ask["id"] as? Int))).exited(with: 0))
    let session = try Curl.session(prepare.wait(timeout: .seconds(30)))
    let upload = try Curl.upload(port: b.port, file: notes, session: session).wait(timeout: .seconds(30))
    #expect(upload.stdoutText.hasSuffix("\n200"), "\(upload)")
    #expect(b.home.inboxNames() == ["notes.txt"])
    #expect(filesAreIdentical(b.home.inbox.appendingPathComponent("notes.txt"), notes))

    // 'share status' says a PIN is required; neither it nor the log shows the PIN.
    let status = try b.home.share("status")
    #expect(status.stdoutText.contains("LocalSend:   port \(b.port), multicast on 127.0.0.1, PIN required,"), "\(status)")
    let json = try b.home.share("status", "--json").stdoutText
    let localsend = try parseJSONLines(json).first?["localsend"] as? [String: Any]
    #expect(localsend?["pin_required"] as? Bool == true, "\(json)")
    #expect(b.daemon.log.contains("LocalSend: receiving on port \(b.port)"), "\(b.daemon.log)")
    for text in [status.stdoutText, json, b.daemon.log] { #expect(!text.contains(pin)) }
  }

  @Test func thePinInTheSettingsIsRequiredWhenLocalSendIsTurnedOnByTheCommandLine() throws {
    // Non-ASCII: sent percent-encoded as UTF-8, as the query string has it.
    let b = try Receiving(settings: ["localsend_pin": "Åb-42"])
    defer { _ = b.daemon.stop() }
    let notes = try b.home.file("notes.txt", "from the settings\n")
    let none = try Curl.prepareUpload(port: b.port, file: notes, pin: nil).wait(timeout: .seconds(30))
    #expect(none.stdoutText.hasSuffix("\n401") && none.stdoutText.contains("PIN required"), "\(none)")

    let prepare = try Curl.prepareUpload(port: b.port, file: notes, pin: "%C3%85b-42")
    defer { if prepare.isRunning { prepare.signal(SIGKILL) } }
    let ask = try #require(try b.waitingAsks().first, "the right PIN reaches share's gate")
    #expect(try b.home.share("decline", String(try #require(ask["id"] as? Int))).exited(with: 0))
    #expect(prepare.wait(timeout: .seconds(30)).stdoutText.hasSuffix("\n403"))
    #expect(try b.home.share("status").stdoutText.contains("PIN required"))
    #expect(!b.daemon.log.contains("Åb-42"), "\(b.daemon.log)")
  }

  @Test func aPinThatIsNotPrintableInTheSettingsStopsTheDaemonWithoutShowingIt() throws {
    let home = try ShareHome(name: "lab-b")
    let secret = "12 34\u{7}"
    let json = try JSONSerialization.data(withJSONObject: ["name": "lab-b", "localsend": true, "localsend_pin": secret])
    try json.write(to: home.home.appendingPathComponent("settings.json"))
    let port = try freeLoopbackPort()
    let result = try home.start(
      ["--home", home.home.path, "daemon", "--port", "0", "--host", "127.0.0.1", "--localsend-port", String(port), "--localsend"]
    ).wait(timeout: .seconds(30))
    #expect(result.exited(with: 1), "\(result)")
    #expect(result.stderrText.contains("settings.json: localsend_pin may hold only"), "\(result)")
    #expect(!result.stderrText.contains("12 34"), "\(result)")
  }
}

/// curl speaking LocalSend's upload API to a daemon on 127.0.0.1, printing the body, a newline
/// and the HTTP status.
enum Curl {
  struct Session {
    var id: String
    var token: String
  }

  /// `POST /prepare-upload[?pin=PIN]` offering `file` as file `f` (`pin` as it goes in the URL).
  static func prepareUpload(port: UInt16, file: URL, pin: String?) throws -> ChildProcess {
    let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
    let offer =
      #"{"info":{"alias":"curl","version":"2.1","deviceType":"headless","fingerprint":"x","port":1,"protocol":"https"},"#
      + #""files":{"f":{"id":"f","fileName":"\#(file.lastPathComponent)","size":\#(size),"fileType":"text/plain"}}}"#
    let query = pin.map { "?pin=\($0)" } ?? ""
    return try run(["-H", "Content-Type: application/json", "--data", offer, url(port, "prepare-upload\(query)")])
  }

  /// The session and file `f`'s token from a prepare-upload's 200 answer.
  static func session(_ result: CommandResult) throws -> Session {
    let body = result.stdoutText.split(separator: "\n").first.map(String.init) ?? ""
    guard result.stdoutText.hasSuffix("\n200"),
      let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
      let id = object["sessionId"] as? String, let token = (object["files"] as? [String: String])?["f"]
    else { throw HarnessError("prepare-upload did not open a session: \(result)") }
    return Session(id: id, token: token)
  }

  /// `POST /upload` of `file`'s bytes as file `f` of `session`.
  static func upload(port: UInt16, file: URL, session: Session) throws -> ChildProcess {
    try run([
      "-H", "Content-Type: application/octet-stream", "--data-binary", "@\(file.path)",
      url(port, "upload?sessionId=\(session.id)&fileId=f&token=\(session.token)"),
    ])
  }

  private static func url(_ port: UInt16, _ path: String) -> String {
    "https://127.0.0.1:\(port)/api/localsend/v2/\(path)"
  }

  private static func run(_ arguments: [String]) throws -> ChildProcess {
    try ChildProcess(
      executable: URL(fileURLWithPath: "/usr/bin/curl"), arguments: ["-sk", "-w", "\n%{http_code}"] + arguments,
      environment: ProcessInfo.processInfo.environment)
  }
}
