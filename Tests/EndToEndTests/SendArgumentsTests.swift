import Foundation
import Testing

/// What `share send` makes of its arguments: standard input named by its content and announced
/// on a terminal, `--name` honoured or refused (never ignored), the same path sent once.
@Suite struct SendArgumentsTests {
  @Test func standardInputIsNamedByItsContent() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let png = try a.run(["--home", a.home.path, "send", "-", "--to", daemon.address], stdin: tinyPNG)
    #expect(png.exited(with: 0), "\(png)")
    #expect(png.stdoutLines == ["stored   stdin.png"], "\(png)")
    let text = try a.run(["--home", a.home.path, "send", "-", "--to", daemon.address], stdin: Data("dear bob\n".utf8))
    #expect(text.exited(with: 0), "\(text)")
    #expect(text.stdoutLines == ["stored   stdin.txt"], "\(text)")
    #expect(b.inboxNames() == ["stdin.png", "stdin.txt"])
    #expect(try Data(contentsOf: b.inbox.appendingPathComponent("stdin.png")) == tinyPNG, "the bytes read to name it are sent too")
    #expect(try String(contentsOf: b.inbox.appendingPathComponent("stdin.txt"), encoding: .utf8) == "dear bob\n")
  }

  @Test func aLongStreamIsNamedByItsFirstBytesAndArrivesWhole() throws {
    let (a, b, c) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"), try ShareHome(name: "carol"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let other = try c.startDaemon(trusting: [a])
    defer { _ = other.stop() }
    let line = "a line of a long log, more than the 64 KiB read to name it\n"
    let text = Data(String(repeating: line, count: (1 << 20) / line.utf8.count).utf8)
    let sent = try a.run(["--home", a.home.path, "send", "-", "--to", daemon.address, "--to", other.address], stdin: text)
    #expect(sent.exited(with: 0), "\(sent)")
    let single = try a.run(["--home", a.home.path, "send", "-", "--to", daemon.address], stdin: text)
    #expect(single.exited(with: 0), "\(single)")
    #expect(b.inboxNames() == ["stdin.txt", "stdin-1.txt"] && c.inboxNames() == ["stdin.txt"], "spooled for two, streamed to one")
    for (home, name) in b.inboxNames().map({ (b, $0) }) + c.inboxNames().map({ (c, $0) }) {
      #expect(FileManager.default.contents(atPath: home.inbox.appendingPathComponent(name).path) == text, "\(name)")
    }
  }

  @Test func standardInputOnATerminalSaysItIsBeingReadAndHowToEndIt() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let shell =
      ([try ShareBinary.require().path, "--home", a.home.path, "send", "-", "--to", daemon.address]).map(shellQuoted)
      .joined(separator: " ") + "; echo share-exit=$?; exec sleep 600"
    var environment = a.environment()
    environment["TMUX"] = nil
    let session = try TmuxSession(command: shell, width: 100, height: 20, environment: environment)
    let prompt = try session.waitForScreen(timeout: .seconds(20)) {
      $0.contains { $0.contains("Reading standard input; end it with Ctrl-D.") }
    }
    #expect(prompt.matched, "no hint that standard input is read:\n\(prompt.screen.joined(separator: "\n"))")
    try session.type("typed by hand", "Enter", "C-d")
    let done = try session.waitForScreen { $0.contains { $0.hasPrefix("share-exit=") } }
    #expect(done.screen.contains("share-exit=0"), "\(done.screen.joined(separator: "\n"))")
    #expect(try String(contentsOf: b.inbox.appendingPathComponent("stdin.txt"), encoding: .utf8) == "typed by hand\n")
  }

  @Test func nameOffersASingleFileUnderThatName() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let file = try a.file("report-final-v3.txt", "the report\n")
    let sent = try a.share("send", file.path, "--name", "report.txt", "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(sent.stdoutLines == ["stored   report.txt"], "\(sent)")
    #expect(b.inboxNames() == ["report.txt"])
  }

  @Test func nameWithSeveralFilesIsAUsageErrorBeforeAnythingIsSent() throws {
    let a = try ShareHome(name: "alice")
    let result = try a.share("send", try a.file("x.txt", "x").path, try a.file("y.txt", "y").path, "--name", "z.txt", "--to", "127.0.0.1:9")
    #expect(result.exited(with: 64), "\(result)")
    #expect(result.stderrLines.first?.hasPrefix("Error: --name names standard input") == true, "\(result)")
  }

  @Test func theSamePathGivenTwiceIsSentOnce() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let file = try a.file("once.txt", "once\n")
    let again = a.files.appendingPathComponent("./once.txt").path
    let sent = try a.share("send", file.path, again, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(sent.stdoutLines == ["stored   once.txt"], "\(sent)")
    #expect(sent.stderrText.contains("named more than once; it is sent once"), "\(sent)")
    #expect(b.inboxNames() == ["once.txt"])
  }

  /// Review 20: `café.txt` in NFC and in NFD, two files, were taken for one named twice.
  @Test func twoFilesWhoseNamesDifferOnlyInNormalisationAreBothSent() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let composed = try a.file("caf\u{E9}.txt", "composed\n")
    let decomposed = try a.file("cafe\u{301}.txt", "decomposed\n")
    #expect(composed.path.utf8.count != decomposed.path.utf8.count)
    let sent = try a.share("send", composed.path, decomposed.path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(!sent.stderrText.contains("more than once"), "\(sent)")
    #expect(b.inboxNames().count == 2, "\(b.inboxNames())")
  }

  /// Review 18: two `--to` that reach one device (its name and its HOST:PORT) stored everything
  /// twice. The device is sent to once; the other receiver says why it took nothing.
  @Test func twoTargetsThatAreOneDeviceGetTheItemsOnce() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let file = try a.file("once.txt", "once\n")
    let other = "localhost:\(daemon.port)"
    let sent = try a.share("send", file.path, "--to", daemon.address, "--to", other)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(b.inboxNames() == ["once.txt"], "\(b.inboxNames())")
    #expect(sent.stderrText.contains("already a receiver of this send: its items go there once"), "\(sent)")
    let json = try a.share("send", file.path, "--to", daemon.address, "--to", other, "--json")
    #expect(json.exited(with: 0), "\(json)")
    let events = try parseJSONLines(json.stdoutText)
    #expect(events.filter { $0["event"] as? String == "done" }.count == 1, "\(json)")
    #expect(events.contains { $0["event"] as? String == "warning" && ($0["message"] as? String)?.contains("the same device as") == true })
    #expect(b.inboxNames().count == 2, "\(b.inboxNames())")
  }

  @Test func sendingToThisDevicesOwnNameOrIDSaysItIsThisDevice() throws {
    // A name no other helper's peer has, so nothing nearby answers to it.
    let me = try ShareHome(name: "self-\(UUID().uuidString.prefix(8).lowercased())")
    let daemon = try me.startDaemon()
    defer { _ = daemon.stop() }
    let file = try me.file("x.txt", "x\n")
    let id = try me.deviceID()
    for target in [me.name, String(id.prefix(12))] {
      let sent = try me.share("send", file.path, "--to", target)
      #expect(sent.exited(with: 1), "\(sent)")
      #expect(sent.stderrText.contains("'\(target)' is this device (\(me.name)"), "\(sent)")
      #expect(!sent.stderrText.contains("no nearby peer"), "\(sent)")
    }
    #expect(me.inboxNames().isEmpty)
  }
}

extension SendArgumentsTests {
  /// Review 27: a file whose name is not UTF-8 (Latin-1 `caf\xE9.txt`) could not be sent, alone
  /// or in a folder — the argument and the folder's listing were repaired into U+FFFD, and the
  /// file was then "No such file or directory". It is read by its own bytes and offered with
  /// U+FFFD where its name is not UTF-8.
  @Test func filesWhoseNamesAreNotUTF8AreSentAloneAndInAFolder() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    // The shell makes the names: a Swift String cannot hold them, nor Foundation pass them on.
    let script = #"""
      cd "$1" && file=$(printf 'caf\351.txt') && folder=$(printf 'old\377') && mkdir "$folder" &&
      printf 'latin1\n' > "$file" && printf 'entry\n' > "$folder/$(printf 'r\351sum\351.txt')" &&
      printf 'plain\n' > "$folder/plain.txt" &&
      printf 'oe\n' > "$folder/$(printf 'M\366ller.txt')" && printf 'ue\n' > "$folder/$(printf 'M\374ller.txt')" &&
      mkdir "$folder/$(printf 'd\350')" "$folder/$(printf 'd\351')" &&
      printf 'grave\n' > "$folder/$(printf 'd\350')/x" && printf 'acute\n' > "$folder/$(printf 'd\351')/x" &&
      exec "$2" --home "$3" send "$file" "$folder" --to "$4"
      """#
    let arguments = ["-c", script, "sh", a.files.path, try ShareBinary.require().path, a.home.path, daemon.address]
    let sent = try ChildProcess(executable: URL(fileURLWithPath: "/bin/sh"), arguments: arguments, environment: a.environment())
      .wait(timeout: .seconds(60))
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(sent.stdoutLines == ["stored   caf\u{FFFD}.txt", "stored   old\u{FFFD}"], "\(sent)")
    #expect(b.inboxNames() == ["caf\u{FFFD}.txt", "old\u{FFFD}"])
    let folder = b.inbox.appendingPathComponent("old\u{FFFD}")
    #expect(try String(contentsOf: b.inbox.appendingPathComponent("caf\u{FFFD}.txt"), encoding: .utf8) == "latin1\n")
    #expect(try String(contentsOf: folder.appendingPathComponent("r\u{FFFD}sum\u{FFFD}.txt"), encoding: .utf8) == "entry\n")
    #expect(try String(contentsOf: folder.appendingPathComponent("plain.txt"), encoding: .utf8) == "plain\n")
    // Names that become one when repaired are each stored, numbered as items are (review 32:
    // one was kept, and every other reported under the same name); the sender says so.
    let stored = [
      "M\u{FFFD}ller.txt": "oe\n", "M\u{FFFD}ller-1.txt": "ue\n", "d\u{FFFD}/x": "grave\n", "d\u{FFFD}-1/x": "acute\n",
    ]
    for (path, text) in stored {
      #expect(try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8) == text, "\(path)")
    }
    #expect(sent.stderrText.contains(#"offered old\xFF/M\xFCller.txt as M\#u{FFFD}ller-1.txt"#), "\(sent)")
    // Said without "made UTF-8 text" (review 34: said for names that were UTF-8 already).
    #expect(sent.stderrText.contains("another entry's name is the same as stored"), "\(sent)")
  }
}

extension SendArgumentsTests {
  /// Review 30: a symbolic link to a file, named on the command line, was offered but opened
  /// without following links, so no byte went ("could not examine the content", exit 4).
  @Test func aLinkNamedOnTheCommandLineSendsWhatItPointsAtUnderItsOwnName() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let target = try a.file("notes.txt", "the notes\n")
    let link = a.files.appendingPathComponent("today.txt")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "notes.txt")
    let sent = try a.share("send", link.path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(sent.stdoutLines == ["stored   today.txt"], "\(sent)")
    #expect(try String(contentsOf: b.inbox.appendingPathComponent("today.txt"), encoding: .utf8) == "the notes\n")
    #expect(FileManager.default.fileExists(atPath: target.path))
  }
}

extension SendArgumentsTests {
  /// Review 26's L3: a /proc file says it holds 0 bytes; it was sent empty and reported stored.
  /// It is read to its end, as standard input is.
  @Test func aFileThatSaysItIsEmptyButIsNotIsSentWhole() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let expected = try #require(FileManager.default.contents(atPath: "/proc/version"))
    try #require(!expected.isEmpty)
    let empty = try a.file("empty.txt", "")
    let sent = try a.share("send", "/proc/version", empty.path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("version").path) == expected)
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("empty.txt").path) == Data())
  }
}
