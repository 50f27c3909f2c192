import Foundation
import Testing

/// A file name with escape sequences, control characters or bidirectional overrides is shown
/// escaped everywhere and stored harmlessly: nothing raw reaches a terminal.
@Suite struct HostileNameTests {
  /// Clears the screen and has a newline.
  static let evil = "evil\u{1b}[2Jname\n.txt"
  /// A right-to-left override that makes the name read "exe.png" backwards.
  static let flipped = "exe\u{202e}gnp.txt"
  /// U+009B is CSI as one C1 control character: an escape sequence without ESC.
  static let csi = "csi\u{9b}31mred.txt"

  /// The characters that must never be printed raw: C0 controls other than tab and newline,
  /// DEL, C1 controls, and invisible bidirectional controls.
  static func rawControls(in data: Data) -> [String] {
    String(decoding: data, as: UTF8.self).unicodeScalars.filter { scalar in
      switch scalar.value {
      case 0x09, 0x0A: return false
      case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: return true
      default: return false
      }
    }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
  }

  func expectNothingRaw(_ data: Data, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let raw = Self.rawControls(in: data)
    #expect(raw.isEmpty, "raw \(raw) in \(what): \(String(decoding: data, as: UTF8.self).debugDescription)", sourceLocation: sourceLocation)
  }

  @Test func hostileFileNamesAreEscapedInEveryOutputAndStoredWithoutControlCharacters() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let evil = try a.file(Self.evil, "boo\n")
    let flipped = try a.file(Self.flipped, "png?\n")
    let csi = try a.file(Self.csi, "red\n")
    #expect(FileManager.default.fileExists(atPath: evil.path))

    let sent = try a.share("send", evil.path, flipped.path, csi.path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    expectNothingRaw(sent.stdout, "send stdout")
    expectNothingRaw(sent.stderr, "send stderr")
    // Shown as visible escapes (Escaping.escaped: `\u{…}`, uppercase hex), not silently dropped.
    #expect(
      sent.stdoutLines == [
        #"stored   evil\u{1B}[2Jname\u{A}.txt as evil_[2Jname_.txt"#,
        #"stored   exe\u{202E}gnp.txt as exe_gnp.txt"#,
        #"stored   csi\u{9B}31mred.txt as csi_31mred.txt"#,
      ], "\(sent)")

    let json = try a.share("send", evil.path, "--to", daemon.address, "--json")
    #expect(json.exited(with: 0), "\(json)")
    #expect(!json.stdout.contains(escapeByte), "raw ESC in send --json")
    expectNothingRaw(json.stderr, "send --json stderr")

    // On disk: each control character and the override became '_'.
    let names = b.inboxNames()
    #expect(names == ["evil_[2Jname_.txt", "evil_[2Jname_-1.txt", "exe_gnp.txt", "csi_31mred.txt"], "\(names)")
    for name in names {
      #expect(Self.rawControls(in: Data(name.utf8)).isEmpty && !name.contains("\n"), "stored name \(name.debugDescription)")
    }

    let list = try b.share("inbox", "list")
    #expect(list.exited(with: 0), "\(list)")
    expectNothingRaw(list.stdout, "inbox list stdout")
    expectNothingRaw(list.stderr, "inbox list stderr")

    let listJSON = try b.share("inbox", "list", "--json")
    #expect(!listJSON.stdout.contains(escapeByte), "raw ESC in inbox list --json")
    let items = try parseJSONLines(listJSON.stdoutText)
    // The metadata keeps what the sender offered; JSON escapes it.
    #expect(items.contains { $0["original_name"] as? String == Self.evil })

    let show = try b.share("inbox", "show", "evil_[2Jname_.txt")
    #expect(show.exited(with: 0), "\(show)")
    expectNothingRaw(show.stdout, "inbox show stdout")
    #expect(show.stdoutLines.contains(#"Sent as:    evil\u{1B}[2Jname\u{A}.txt"#), "\(show)")

    expectNothingRaw(Data(daemon.log.utf8), "the daemon's log")
  }

  @Test func jsonOutputEscapesC1AndBidiControlsFromNetworkNames() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let sent = try a.share("send", try a.file(Self.flipped, "xx\n").path, try a.file(Self.csi, "yy\n").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    let listJSON = try b.share("inbox", "list", "--json")
    let items = try parseJSONLines(listJSON.stdoutText)
    // The values survive (JSON may spell them as \u escapes and still mean the same string)...
    #expect(Set(items.compactMap { $0["original_name"] as? String }) == [Self.flipped, Self.csi])
    // ...but the bytes printed carry no raw C1 or bidi control: they are spelled as JSON escapes.
    expectNothingRaw(listJSON.stdout, "inbox list --json")
    #expect(listJSON.stdoutText.contains(#"exe\u202egnp.txt"#), "\(listJSON)")
    #expect(listJSON.stdoutText.contains(#"csi\u009b31mred.txt"#), "\(listJSON)")

    // The same for the sender's --json events, which name the items it offered.
    let sentJSON = try a.share("send", try a.file("more" + Self.csi, "zz\n").path, "--to", daemon.address, "--json")
    #expect(sentJSON.exited(with: 0), "\(sentJSON)")
    expectNothingRaw(sentJSON.stdout, "send --json")
    #expect(sentJSON.stdoutText.contains(#""item":"morecsi\u009b31mred.txt""#), "\(sentJSON)")
    #expect(try parseJSONLines(sentJSON.stdoutText).contains { $0["item"] as? String == "more" + Self.csi })
  }

  @Test func aSenderNamedWithEscapeSequencesIsShownEscapedByTheReceiver() throws {
    let (a, b) = (try ShareHome(name: "mallory\u{1b}]0;owned\u{07}"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let sent = try a.share("send", try a.file("hi.txt", "hi").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(daemon.waitForLog("1 stored"))
    expectNothingRaw(Data(daemon.log.utf8), "the daemon's log")
    let list = try b.share("inbox", "list")
    expectNothingRaw(list.stdout, "inbox list")
    // A contact trusted under its ID's first digits (its name cannot be a contact's), and the
    // name it gives itself beside them.
    let contact = try a.deviceID().replacingOccurrences(of: "-", with: "").prefix(12)
    #expect(list.stdoutText.contains(#"\#(contact) (calls itself mallory\u{1B}]0;owned\u{7}) ("#), "\(list)")
    let show = try b.share("inbox", "show", "hi.txt")
    expectNothingRaw(show.stdout, "inbox show")
    #expect(show.stdoutLines.contains(#"From:       \#(contact) (calls itself mallory\u{1B}]0;owned\u{7})"#), "\(show)")
  }

  @Test func aReceiverNamedWithEscapeSequencesIsShownEscapedByTheSender() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob\u{1b}[31m\u{202e}"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let sent = try a.share("send", try a.file("hi.txt", "hi").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    expectNothingRaw(sent.stdout, "send stdout")
    expectNothingRaw(sent.stderr, "send stderr")
    #expect(sent.stderrLines.first == #"Connected to bob\u{1B}[31m\u{202E} at "# + daemon.address, "\(sent)")
    #expect(sent.stderrLines.last?.hasPrefix(#"1 of 1 stored in bob\u{1B}[31m\u{202E}'s Inbox: "#) == true, "\(sent)")
  }
}
