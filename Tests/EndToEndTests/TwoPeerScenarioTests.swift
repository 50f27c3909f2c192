import Foundation
import Glibc
import Testing

/// The done-when scenario, run as a user would: two homes, a daemon in one, `share send`
/// from the other, then `share inbox` to look at, move and delete what arrived.
@Suite struct TwoPeerScenarioTests {
  @Test func filesSentToADaemonArriveIdenticalReadOnlyAttributedAndCanBeMovedOutOrDeleted() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    // The scenario's 256 MiB of random bytes named big.bin is unknown binary data
    // (`public.data`), which the default declarations do not accept. Bob's home carries its own
    // Declarations.plist accepting any item, as a user who wants a plain transport would write;
    // the default declarations are exercised end to end in TypeDeclarationTests.
    try b.acceptEverything()
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let big = try a.randomFile("big.bin", size: 256 << 20)
    let notes = try a.file("notes.txt", "remember the milk\n")

    let sent = try a.share("send", big.path, notes.path, "--to", daemon.address, timeout: .seconds(120))
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(sent.stdoutLines == ["stored   big.bin", "stored   notes.txt"], "\(sent)")

    // Byte-identical, with no write bit for anyone.
    #expect(b.inboxNames() == ["big.bin", "notes.txt"])
    for (source, name) in [(big, "big.bin"), (notes, "notes.txt")] {
      let stored = b.inbox.appendingPathComponent(name)
      #expect(filesAreIdentical(source, stored), "\(name) differs from what was sent")
      let mode = try #require(permissions(stored))
      #expect(mode & 0o222 == 0, "\(name) has mode \(String(mode, radix: 8))")
    }

    // The Inbox lists both, attributed to A's ID, with the right size and digest.
    let aliceID = try a.deviceID()
    let listed = try b.listedItems()
    #expect(Set(listed.compactMap { $0["name"] as? String }) == ["big.bin", "notes.txt"])
    for item in listed {
      let name = try #require(item["name"] as? String)
      let source = name == "big.bin" ? big : notes
      #expect(item["sender_id"] as? String == aliceID, "\(item)")
      #expect(item["sender_name"] as? String == "alice")
      #expect(item["kind"] as? String == "file")
      #expect((item["size"] as? NSNumber)?.int64Value == fileSize(source))
      #expect(item["sha256"] as? String == (try sha256sum(source)))
      #expect(item["path"] as? String == b.inbox.appendingPathComponent(name).path)
    }

    // The same name again takes the next free name.
    let again = try a.share("send", notes.path, "--to", daemon.address)
    #expect(again.exited(with: 0), "\(again)")
    #expect(again.stdoutLines == ["stored   notes.txt as notes-1.txt"], "\(again)")
    #expect(b.inboxNames() == ["big.bin", "notes.txt", "notes-1.txt"])

    // Moving an item out makes it writable in Documents/ and takes it out of the Inbox.
    let moved = try b.share("inbox", "move", "notes.txt")
    #expect(moved.exited(with: 0), "\(moved)")
    let destination = b.documents.appendingPathComponent("notes.txt")
    #expect(moved.stdoutLines == [destination.path])
    #expect(filesAreIdentical(notes, destination))
    #expect((permissions(destination) ?? 0) & 0o200 != 0, "the moved item is not writable by its owner")
    #expect(!b.inboxNames().contains("notes.txt"))
    #expect(!(try b.listedItems()).contains { $0["name"] as? String == "notes.txt" })

    // Deleting removes an item from the disk and from the list.
    let deleted = try b.share("inbox", "delete", "notes-1.txt")
    #expect(deleted.exited(with: 0), "\(deleted)")
    #expect(b.inboxNames() == ["big.bin"])
    #expect((try b.listedItems()).compactMap { $0["name"] as? String } == ["big.bin"])
    #expect(daemon.isRunning)
  }

  @Test func inboxWithoutASubcommandListsLikeInboxList() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let sent = try a.share("send", try a.file("a.txt", "a list\n").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    let bare = try b.share("inbox")
    let list = try b.share("inbox", "list")
    #expect(bare.exited(with: 0) && list.exited(with: 0))
    #expect(bare.stdoutText == list.stdoutText)
    let line = try #require(list.stdoutLines.first)
    #expect(line.hasPrefix("a.txt\t"), "\(list)")
    #expect(line.contains("alice"))
  }
}
