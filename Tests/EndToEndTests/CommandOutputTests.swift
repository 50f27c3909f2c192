import Foundation
import Glibc
import Testing

/// What the receiver's owner reads: aligned tables with a header, local times and type names on
/// a terminal (tab-separated on a pipe), `share requests` naming the ask's number, `inbox move`
/// refusing a folder that is not there, `share receive` with no daemon running.
@Suite struct CommandOutputTests {
  /// Runs `share ARGUMENTS` for `home` in a tmux window (stdout a terminal); returns the screen.
  func onATerminal(_ home: ShareHome, _ arguments: [String]) throws -> [String] {
    let shell =
      ([try ShareBinary.require().path, "--home", home.home.path] + arguments).map(shellQuoted)
      .joined(separator: " ") + "; echo share-exit=$?; exec sleep 600"
    var environment = home.environment()
    environment["TMUX"] = nil
    let session = try TmuxSession(command: shell, width: 160, height: 20, environment: environment)
    let done = try session.waitForScreen(timeout: .seconds(30)) { $0.contains { $0.hasPrefix("share-exit=") } }
    return done.screen
  }

  @Test func inboxAndTrustPrintAlignedColumnsWithAHeaderLocalTimesAndTypeNamesOnATerminal() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let sent = try a.share(
      "send", try a.pngFile("photo.png").path, try a.file("a-much-longer-name.txt", "x\n").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")

    let inbox = try onATerminal(b, ["inbox"])
    #expect(inbox.first?.hasPrefix("NAME ") == true && inbox.first?.contains(" RECEIVED ") == true, "\(inbox.joined(separator: "\n"))")
    let rows = inbox.filter { $0.hasPrefix("photo.png") || $0.hasPrefix("a-much-longer-name.txt") }
    #expect(rows.count == 2, "\(inbox.joined(separator: "\n"))")
    #expect(rows.contains { $0.contains("PNG image") } && rows.contains { $0.contains("plain text") }, "\(rows)")
    #expect(!rows.joined().contains("\t") && !rows.joined().contains("public."), "\(rows)")
    // Columns line up: each column starts at the same place on every line.
    let header = try #require(inbox.first)
    let sizeColumn = try #require(header.range(of: "SIZE")).lowerBound.utf16Offset(in: header)
    for row in rows { #expect(row.dropFirst(sizeColumn).first?.isNumber == true, "\(row) | \(header)") }
    // Local time to the minute, not UTC in ISO 8601.
    let local = DateFormatter()
    local.dateFormat = "yyyy-MM-dd HH:"
    #expect(
      rows.allSatisfy { $0.contains(local.string(from: Date())) || $0.contains(local.string(from: Date().addingTimeInterval(-3600))) },
      "\(rows)")

    // On a pipe: tab-separated as before, for scripts.
    let piped = try b.share("inbox")
    #expect(piped.stdoutLines.allSatisfy { $0.split(separator: "\t").count == 5 }, "\(piped)")
    #expect(piped.stdoutText.contains("public.png"), "\(piped)")

    let trust = try onATerminal(b, ["trust"])
    #expect(trust.first?.hasPrefix("NAME") == true && trust.first?.contains("ID") == true, "\(trust.joined(separator: "\n"))")
    #expect(trust.contains { $0.hasPrefix("alice  ") }, "\(trust.joined(separator: "\n"))")
  }

  @Test func inboxShowPrintsOneSizeAndTheTypeByName() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    #expect(try a.share("send", try a.file("n.txt", "note\n").path, "--to", daemon.address).exited(with: 0))
    let show = try b.share("inbox", "show", "n.txt")
    #expect(show.stdoutLines.contains("Size:       5 bytes"), "\(show)")
    #expect(show.stdoutLines.contains("Type:       plain text (public.plain-text)"), "\(show)")
  }

  @Test func movingToAFolderThatIsNotThereSaysSoAndMovesNothing() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    #expect(try a.share("send", try a.file("n.txt", "note\n").path, "--to", daemon.address).exited(with: 0))
    let missing = b.root.appendingPathComponent("Pictures").path + "/"
    let intoMissing = try b.share("inbox", "move", "n.txt", missing)
    #expect(intoMissing.exited(with: 1), "\(intoMissing)")
    #expect(intoMissing.stderrText.contains("there is no folder \(missing)"), "\(intoMissing)")
    #expect(!FileManager.default.fileExists(atPath: b.root.appendingPathComponent("Pictures").path), "it became a file")
    let deep = try b.share("inbox", "move", "n.txt", b.root.appendingPathComponent("no/such/place.txt").path)
    #expect(deep.exited(with: 1) && deep.stderrText.contains("there is no folder"), "\(deep)")
    #expect(b.inboxNames() == ["n.txt"])
  }

  /// Review 20: a DEST in the Inbox left the item there, writable and renamed; an empty DEST
  /// (an unset "$dest") moved it into the current folder.
  @Test func movingIntoTheInboxOrToAnEmptyDestinationIsRefused() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    #expect(try a.share("send", try a.file("n.txt", "note\n").path, "--to", daemon.address).exited(with: 0))
    let inbox = b.inbox
    for destination in [inbox.path + "/", inbox.appendingPathComponent("other.txt").path, inbox.path + "/../Inbox"] {
      let moved = try b.share("inbox", "move", "n.txt", destination)
      #expect(moved.exited(with: 1) && moved.stderrText.contains("is in the Inbox"), "\(moved)")
    }
    let empty = try b.share("inbox", "move", "n.txt", "")
    #expect(empty.exited(with: 64) && empty.stderrText.contains("DEST is empty"), "\(empty)")
    #expect(b.inboxNames() == ["n.txt"])
    #expect(try b.share("inbox", "move", "n.txt").exited(with: 0))
  }

  @Test func requestsNamesTheAskNumberToAcceptAndAPairingIsNotOfferedTrust() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let sender = try a.startShare("send", try a.file("a.txt", "a\n").path, "--to", daemon.address)
    defer { sender.signal(SIGKILL) }
    let ask = try ExitCodeTests.waitingAsk(b)
    let requests = try b.share("requests")
    #expect(requests.stderrText.contains("Accept with 'share accept \(ask)' (add --trust to trust alice from now on)"), "\(requests)")
    #expect(!requests.stderrText.contains("accept ID"), "\(requests)")
    #expect(requests.stdoutText.contains("plain text"), "\(requests)")
    #expect(try b.share("decline", String(ask)).exited(with: 0))

    let pairing = try a.startShare("pair", daemon.address, "--yes")
    defer { pairing.signal(SIGKILL) }
    let pair = try ExitCodeTests.waitingAsk(b)
    let listed = try b.share("requests")
    #expect(listed.stderrText.contains("shows the same code: 'share accept \(pair)'"), "\(listed)")
    #expect(!listed.stderrText.contains("--trust"), "\(listed)")
    let trusted = try b.share("accept", String(pair), "--trust")
    #expect(trusted.exited(with: 64) && trusted.stderrText.contains("is a pairing request"), "\(trusted)")
  }

  /// Review 19: a folder was listed by the size its sender gave it, never by its files.
  @Test func requestsShowsAFolderByItsBytesAndFiles() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let folder = a.files.appendingPathComponent("album")
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
    try a.file("album/a.txt", "one\n")
    try a.file("album/sub/b.txt", "two 2\n")
    let hidden = try a.file(".hidden", "dot\n")
    let sender = try a.startShare("send", folder.path, hidden.path, "--to", daemon.address)
    defer { sender.signal(SIGKILL) }
    let ask = try ExitCodeTests.waitingAsk(b)
    let requests = try b.share("requests")
    #expect(requests.stdoutText.contains("folder album, 10 bytes in 2 files"), "\(requests)")
    // A name 'ls' does not show is marked (review 29).
    #expect(requests.stdoutText.contains("file .hidden (hidden: its name starts with a dot), 4 bytes"), "\(requests)")
    #expect(!requests.stdoutText.contains("album (hidden"), "\(requests)")
    let listed = try parseJSONLines(try b.share("requests", "--json").stdoutText)
    let item = (listed.first?["items"] as? [[String: Any]])?.first
    #expect(item?["files"] as? Int == 2 && item?["size"] as? Int == 10, "\(listed)")
    #expect(try b.share("decline", String(ask)).exited(with: 0))
  }

  /// Found by an outside review: a stranger giving a contact's name looked like that contact in
  /// `share requests`, and `accept --trust` made it a second contact of that name.
  @Test func aStrangerUsingAContactsNameIsFlaggedAndCannotBeTrustedUnderIt() throws {
    let (alice, impostor, b) = (try ShareHome(name: "alice"), try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [alice], arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let sender = try impostor.startShare("send", try impostor.file("invoice.pdf.txt", "pay\n").path, "--to", daemon.address)
    defer { sender.signal(SIGKILL) }
    let ask = try ExitCodeTests.waitingAsk(b)
    let requests = try b.share("requests")
    let contact = String(try alice.deviceID().prefix(12))
    #expect(requests.stdoutText.contains("NOT your contact alice (\(contact))"), "\(requests)")
    #expect(!requests.stderrText.contains("--trust"), "\(requests)")
    let trusted = try b.share("accept", String(ask), "--trust")
    #expect(trusted.exited(with: 1) && trusted.stderrText.contains("another device"), "\(trusted)")
    #expect(try ExitCodeTests.waitingAsk(b) == ask, "the ask still waits")
    #expect(try b.share("accept", String(ask)).exited(with: 0))
    #expect(sender.wait().exited(with: 0))
    // A pairing trusts too: one asked under a contact's name is not accepted either.
    let pairing = try impostor.startShare("pair", daemon.address, "--yes")
    defer { pairing.signal(SIGKILL) }
    let pair = try ExitCodeTests.waitingAsk(b)
    let paired = try b.share("accept", String(pair))
    #expect(paired.exited(with: 1) && paired.stderrText.contains("another device"), "\(paired)")
    #expect(try b.share("decline", String(pair)).exited(with: 0))
    let contacts = try parseJSONLines(try b.share("trust", "--json").stdoutText)
    #expect(contacts.count == 1, "\(contacts)")
  }

  /// Review 36 L7: pairing with a device that calls itself like a contact was refused only once
  /// its owner had been asked (the request showed in its 'share requests' first).
  @Test func pairingWithADeviceCalledLikeAContactIsRefusedBeforeItsOwnerIsAsked() throws {
    let (a, bob, impostor) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"), try ShareHome(name: "bob"))
    #expect(try a.share("trust", "add", try bob.deviceID(), "--name", "bob").exited(with: 0))
    let daemon = try impostor.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let pairing = try a.share("pair", daemon.address, "--yes")
    #expect(pairing.exited(with: 1), "\(pairing)")
    #expect(pairing.stderrText.contains("Not pairing: your contact bob ("), "\(pairing)")
    #expect(!pairing.stderrText.contains("Verification code"), "\(pairing)")
    #expect(try parseJSONLines(try impostor.share("requests", "--json").stdoutText).isEmpty)
    #expect(!daemon.log.contains("asks to pair"), "\(daemon.log)")
  }

  /// Review 38: `share status` (and requests, receive) waited for ever on a daemon that does
  /// not answer, one stopped with Ctrl-Z; they give up and say so.
  @Test func aCommandGivesUpOnADaemonThatDoesNotAnswer() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon()
    defer { _ = daemon.stop() }
    daemon.process.signal(SIGSTOP)
    defer { daemon.process.signal(SIGCONT) }
    let status = try b.share("status")
    #expect(status.exited(with: 1), "\(status)")
    #expect(status.stderrText.contains("did not answer within 10 s"), "\(status)")
  }

  /// Review 38: a stream still coming in (standard input) showed as "1.0 MiB of 0 bytes (100%)".
  @Test func statusShowsAStreamOfUnknownSizeWithoutAShare() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let stream = try StreamingSend(from: a, to: daemon, first: "hello\n")
    defer { stream.sender.signal(SIGKILL) }
    defer { stream.close() }
    let shown = try StreamingSend.statusUnderWay(of: b)
    #expect(shown.contains("1 item(s), ") && shown.contains(" so far (size not known until it ends)"), "\(shown)")
    #expect(!shown.contains("%)"), "\(shown)")
    let json = try b.share("status", "--json").stdoutText
    #expect(json.contains("\"size_unknown\":true"), "\(json)")
  }

  @Test func receiveWithNoDaemonKeepsTheModeForTheNextStart() throws {
    let b = try ShareHome(name: "bob")
    let set = try b.share("receive", "contacts")
    #expect(set.exited(with: 0), "\(set)")
    #expect(set.stderrText.contains("No daemon is running"), "\(set)")
    let daemon = try b.startDaemon()
    defer { _ = daemon.stop() }
    let status = try parseJSONLines(try b.share("status", "--json").stdoutText).first
    #expect(status?["mode"] as? String == "contacts", "\(String(describing: status))")
  }
}
