import Foundation
import Testing

/// `--to` repeated: the sends run at once, each receiver gets everything, and one that cannot be
/// reached fails on its own without holding back the others.
@Suite struct MultipleReceiverTests {
  @Test func twoReceiversBothGetEveryItemAndTheOutputHasAHeaderPerReceiver() throws {
    let a = try ShareHome(name: "alice")
    let (b, c) = (try ShareHome(name: "bob"), try ShareHome(name: "carol"))
    let (bob, carol) = (try b.startDaemon(trusting: [a]), try c.startDaemon(trusting: [a]))
    defer {
      _ = bob.stop()
      _ = carol.stop()
    }
    let notes = try a.file("notes.txt", "for both of you\n")
    let photo = try a.pngFile("photo.png")

    let sent = try a.share("send", notes.path, photo.path, "--to", bob.address, "--to", carol.address)
    #expect(sent.exited(with: 0), "\(sent)")
    for (home, daemon) in [(b, bob), (c, carol)] {
      #expect(home.inboxNames() == ["notes.txt", "photo.png"], "\(home.name): \(home.inboxNames())")
      #expect(filesAreIdentical(notes, home.inbox.appendingPathComponent("notes.txt")))
      #expect(filesAreIdentical(photo, home.inbox.appendingPathComponent("photo.png")))
      // Each receiver's results under a header naming it, in the order of --to.
      let header = "\(home.name) (\(daemon.address)):"
      let at = try #require(sent.stdoutLines.firstIndex(of: header), "no '\(header)' in:\n\(sent)")
      #expect(Array(sent.stdoutLines[at...].prefix(3)) == [header, "  stored   notes.txt", "  stored   photo.png"], "\(sent)")
      #expect(sent.stderrLines.contains("Connected to \(home.name) at \(daemon.address)"), "\(sent)")
      #expect(sent.stderrLines.contains { $0.hasPrefix("2 of 2 stored in \(home.name)'s Inbox: ") }, "\(sent)")
    }
    #expect(sent.stdoutLines.count == 6, "\(sent)")
    #expect(sent.stdoutLines.first == "bob (\(bob.address)):", "results follow the order of --to: \(sent)")
  }

  @Test func anUnreachableThirdReceiverMakesTheSendExit1WhileTheOthersStillGetEverything() throws {
    let a = try ShareHome(name: "alice")
    let (b, c) = (try ShareHome(name: "bob"), try ShareHome(name: "carol"))
    let (bob, carol) = (try b.startDaemon(trusting: [a]), try c.startDaemon(trusting: [a]))
    defer {
      _ = bob.stop()
      _ = carol.stop()
    }
    let closed = "127.0.0.1:\(try unusedLoopbackPort())"
    let notes = try a.file("notes.txt", "for all three of you\n")
    let big = try a.file("long.txt", String(repeating: "a line of text to make it longer\n", count: 100_000))

    let sent = try a.share("send", notes.path, big.path, "--to", bob.address, "--to", closed, "--to", carol.address)
    #expect(sent.exited(with: 1), "\(sent)")
    let error = try #require(sent.stderrLines.first { $0.hasPrefix("Error: ") }, "\(sent)")
    #expect(error.hasPrefix("Error: \(closed): "), "the error names the receiver that failed: \(error)")
    #expect(error.lowercased().contains("refused"), "\(error)")
    #expect(sent.stderrLines.filter { $0.hasPrefix("Error: ") }.count == 1, "\(sent)")
    for home in [b, c] {
      #expect(home.inboxNames() == ["long.txt", "notes.txt"], "\(home.name): \(home.inboxNames())")
      #expect(filesAreIdentical(big, home.inbox.appendingPathComponent("long.txt")))
      #expect(sent.stderrLines.contains { $0.hasPrefix("2 of 2 stored in \(home.name)'s Inbox: ") }, "\(sent)")
    }
  }

  @Test func sendJSONToTwoReceiversIsOneObjectPerLineEachNamingItsReceiver() throws {
    let a = try ShareHome(name: "alice")
    let (b, c) = (try ShareHome(name: "bob"), try ShareHome(name: "carol"))
    let (bob, carol) = (try b.startDaemon(trusting: [a]), try c.startDaemon(trusting: [a]))
    defer {
      _ = bob.stop()
      _ = carol.stop()
    }
    let notes = try a.file("notes.txt", "json for two\n")
    let (bobID, carolID) = (try b.deviceID(), try c.deviceID())

    let sent = try a.share("send", notes.path, "--to", bob.address, "--to", carol.address, "--json")
    #expect(sent.exited(with: 0), "\(sent)")
    let events = try parseJSONLines(sent.stdoutText)
    #expect(events.count == sent.stdoutLines.count)
    // Every line says which receiver it is about.
    #expect(events.allSatisfy { [bob.address, carol.address].contains($0["to"] as? String ?? "") }, "\(sent.stdoutText)")
    for (address, id, name) in [(bob.address, bobID, "bob"), (carol.address, carolID, "carol")] {
      let mine = events.filter { $0["to"] as? String == address }
      let kinds = mine.compactMap { $0["event"] as? String }
      #expect(kinds.first == "connected" && kinds.last == "done", "\(address): \(kinds)")
      #expect(kinds.contains("stored"), "\(address): \(kinds)")
      #expect(mine.first?["peer_id"] as? String == id)
      #expect(mine.first?["peer_name"] as? String == name)
      let done = try #require(mine.last)
      #expect((done["stored"] as? NSNumber)?.intValue == 1, "\(done)")
    }
    #expect(b.inboxNames() == ["notes.txt"] && c.inboxNames() == ["notes.txt"])
  }
}
