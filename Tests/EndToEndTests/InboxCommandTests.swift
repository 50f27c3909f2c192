import Foundation
import Glibc
import Testing

/// `share inbox move/delete/show` on items that really arrived: never overwriting, never leaving
/// the Inbox by a crafted name, and working across file systems.
@Suite struct InboxCommandTests {
  /// A receiver home holding `names` (each a small text file sent by alice).
  func receiverHolding(_ names: [String]) throws -> ShareHome {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let paths = try names.map { try a.file($0, "content of \($0)\n").path }
    let sent = try a.run(["--home", a.home.path, "send"] + paths + ["--to", daemon.address])
    guard sent.exited(with: 0) else { throw HarnessError("setup send failed:\n\(sent)") }
    return b
  }

  /// Review 38: DEST's `..` was taken as written: `link/../` moved the item beside the link,
  /// where `mv` moves it into the folder `..` leads to from the link's target.
  @Test func aDestinationThroughALinkIsWhereTheKernelTakesIt() throws {
    let b = try receiverHolding(["note.txt", "other.txt"])
    let root = b.root.appendingPathComponent("dest")
    let deep = root.appendingPathComponent("real/deep")
    try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link"), withDestinationURL: deep)
    let moved = try b.share("inbox", "move", "note.txt", root.path + "/link/../")
    #expect(moved.exited(with: 0), "\(moved)")
    #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("real/note.txt").path), "\(moved)")
    let renamed = try b.share("inbox", "move", "other.txt", root.path + "/link/../renamed.txt")
    #expect(renamed.exited(with: 0), "\(renamed)")
    #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("real/renamed.txt").path), "\(renamed)")
  }

  /// Review 38: with the Inbox folder removed while the daemon ran, every item after failed
  /// ("rename failed") and `share inbox` called the missing folder empty.
  @Test func anInboxFolderRemovedWhileTheDaemonRunsIsMadeAgain() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    try FileManager.default.removeItem(at: b.inbox)
    let listed = try b.share("inbox")
    #expect(listed.exited(with: 0) && listed.stderrText.contains("There is no Inbox folder"), "\(listed)")
    let sent = try a.share("send", try a.file("after.txt", "after\n").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(b.inboxNames() == ["after.txt"])
    let mode = try FileManager.default.attributesOfItem(atPath: b.inbox.path)[.posixPermissions] as? Int
    #expect(mode == 0o700)
  }

  @Test func showJSONPrintsOneObjectWithTheDocumentedKeys() throws {
    let b = try receiverHolding(["a.txt"])
    let show = try b.share("inbox", "show", "a.txt", "--json")
    #expect(show.exited(with: 0), "\(show)")
    let objects = try parseJSONLines(show.stdoutText)
    #expect(objects.count == 1)
    let keys = Set(objects.first?.keys.map { $0 } ?? [])
    let documented: Set = ["name", "path", "kind", "size", "original_name", "sender_name", "sender_id", "received_at", "sha256"]
    #expect(documented.isSubset(of: keys), "missing: \(documented.subtracting(keys))")
    #expect(objects.first?["received_at"].flatMap { $0 as? String }.flatMap { ISO8601DateFormatter().date(from: $0) } != nil)
  }

  @Test func movingIntoAFolderWhereTheNameIsTakenUsesTheNextFreeName() throws {
    let b = try receiverHolding(["a.txt"])
    let folder = b.root.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("mine\n".utf8).write(to: folder.appendingPathComponent("a.txt"))
    let moved = try b.share("inbox", "move", "a.txt", folder.path + "/")
    #expect(moved.exited(with: 0), "\(moved)")
    #expect(moved.stdoutLines == [folder.appendingPathComponent("a-1.txt").path], "\(moved)")
    #expect(FileManager.default.contents(atPath: folder.appendingPathComponent("a.txt").path) == Data("mine\n".utf8))
    #expect(FileManager.default.contents(atPath: folder.appendingPathComponent("a-1.txt").path) == Data("content of a.txt\n".utf8))
    #expect(b.inboxNames().isEmpty)
  }

  /// Review 45: for a name that is not UTF-8 the printed path held U+10FFE9 for the byte, a
  /// path that does not exist; a script gets the bytes on disk.
  @Test func movingANameThatIsNotUTF8PrintsThePathOnDisk() throws {
    let b = try ShareHome(name: "bob")
    #expect(try b.share("id").exited(with: 0))
    try FileManager.default.createDirectory(at: b.inbox, withIntermediateDirectories: true)
    // A Latin-1 name, as another program may leave it there.
    let raw = Array(b.inbox.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".txt".utf8) + [0]
    let fd = raw.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o444) } }
    #expect(fd >= 0)
    close(fd)
    let folder = b.root.appendingPathComponent("out")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let moved = try b.share("inbox", "move", #"caf\xE9.txt"#, folder.path + "/")
    #expect(moved.exited(with: 0), "\(moved)")
    #expect(Array(moved.stdout) == Array(folder.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".txt\n".utf8), "\(moved)")
  }

  @Test func movingOntoAnExistingFileFailsAndOverwritesNothing() throws {
    let b = try receiverHolding(["a.txt"])
    let target = b.root.appendingPathComponent("taken.txt")
    try Data("precious\n".utf8).write(to: target)
    let moved = try b.share("inbox", "move", "a.txt", target.path)
    #expect(moved.exited(with: 1), "\(moved)")
    #expect(FileManager.default.contents(atPath: target.path) == Data("precious\n".utf8))
    #expect(b.inboxNames() == ["a.txt"])
    #expect(moved.stdout.isEmpty, "\(moved)")
    #expect(moved.stderrLines == ["Error: \(target.path) already exists; share never overwrites"], "\(moved)")
  }

  @Test func movingToAnotherFileSystemWorksAndLeavesTheInbox() throws {
    let b = try receiverHolding(["a.txt"])
    let shm = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("share-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: shm, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: shm) }
    var here = stat()
    var there = stat()
    try #require(stat(b.inbox.path, &here) == 0 && stat(shm.path, &there) == 0)
    try #require(here.st_dev != there.st_dev, "this test needs /dev/shm on another file system than \(NSTemporaryDirectory())")

    let moved = try b.share("inbox", "move", "a.txt", shm.path)
    #expect(moved.exited(with: 0), "\(moved)")
    let destination = shm.appendingPathComponent("a.txt")
    #expect(FileManager.default.contents(atPath: destination.path) == Data("content of a.txt\n".utf8))
    #expect((permissions(destination) ?? 0) & 0o200 != 0, "not writable after the move")
    #expect(b.inboxNames().isEmpty)
    // No temporary copy left behind.
    #expect((try FileManager.default.contentsOfDirectory(atPath: shm.path)) == ["a.txt"])
  }

  /// Review 30: a folder that could not be copied to a full file system was named by the
  /// transient name it crosses under (`Inbox/.share-….passage`), not as the item it is.
  @Test(.enabled(if: MountNamespace.available, "needs root and unshare for a small private tmpfs"))
  func aFolderThatCannotBeCopiedIsNamedAsTheItemAndStays() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    let folder = a.files.appendingPathComponent("big")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    _ = try a.randomFile("big/payload.bin", size: 3 << 20)
    let sent = try a.share("send", folder.path, "--to", daemon.address)
    _ = daemon.stop()
    try #require(sent.exited(with: 0), "\(sent)")
    let script = #"mkdir -p "$3" && mount -t tmpfs -o size=1m tmpfs "$3" && exec "$1" --home "$2" inbox move big "$3/""#
    let moved = try MountNamespace.run(
      script, arguments: [try ShareBinary.require().path, b.home.path, b.root.appendingPathComponent("small").path],
      environment: b.environment())
    #expect(moved.exited(with: 1), "\(moved)")
    #expect(moved.stderrText.contains(#"cannot copy "big" to "#) && !moved.stderrText.contains(".passage"), "\(moved)")
    #expect(b.inboxNames() == ["big"])
  }

  @Test func deletingSeveralItemsDeletesThoseThatExistAndExits1ForTheMissingOne() throws {
    let b = try receiverHolding(["a.txt", "b.txt"])
    let deleted = try b.share("inbox", "delete", "a.txt", "nosuch", "b.txt")
    #expect(deleted.exited(with: 1), "\(deleted)")
    #expect(b.inboxNames().isEmpty)
    #expect(deleted.stderrText.contains("no item named \"nosuch\""), "\(deleted)")
  }

  /// Review 32 L6: the second of one name said "no item named" and exit 1.
  @Test func anItemNamedTwiceIsDeletedOnce() throws {
    let b = try receiverHolding(["a.txt", "b.txt"])
    let deleted = try b.share("inbox", "delete", "a.txt", "a.txt")
    #expect(deleted.exited(with: 0), "\(deleted)")
    #expect(deleted.stderrText.contains("a.txt was named more than once; it is deleted once"), "\(deleted)")
    #expect(b.inboxNames() == ["b.txt"])
    // One that is not there is said to be missing, once, and not to be deleted once (review 38).
    let missing = try b.share("inbox", "delete", "ghost.txt", "ghost.txt")
    #expect(missing.exited(with: 1), "\(missing)")
    #expect(missing.stderrText.components(separatedBy: "no item named").count == 2, "\(missing)")
    #expect(!missing.stderrText.contains("deleted once"), "\(missing)")
  }

  @Test func aNameThatIsAPathCannotReachOutsideTheInbox() throws {
    let b = try receiverHolding(["a.txt"])
    let outside = b.documents.appendingPathComponent("outside.txt")
    try Data("outside\n".utf8).write(to: outside)
    for command in [
      ["show", "../outside.txt"], ["delete", "../outside.txt"], ["move", "../outside.txt"], ["show", "."], ["delete", ".."],
    ] {
      let result = try b.run(["--home", b.home.path, "inbox"] + command)
      #expect(result.exited(with: 1), "\(result)")
    }
    #expect(FileManager.default.contents(atPath: outside.path) == Data("outside\n".utf8))
    #expect(b.inboxNames() == ["a.txt"])
  }

  /// Review 30 L6: a listing in a fresh home made `Documents/Inbox` and `.share/` (reading must
  /// not create); showing, moving or deleting there finds no item, and makes nothing either.
  @Test func readingTheInboxOfAFreshHomeCreatesNothing() throws {
    let b = try ShareHome(name: "bob")
    let documents = b.root.appendingPathComponent("user/Documents")
    let listed = try b.run(["inbox"])
    #expect(listed.exited(with: 0) && listed.stdout.isEmpty, "\(listed)")
    #expect(listed.stderrText.contains("The Inbox is empty"), "\(listed)")
    for command in [["show", "a.txt"], ["delete", "a.txt"], ["move", "a.txt"]] {
      let result = try b.run(["inbox"] + command)
      #expect(result.exited(with: 1) && result.stderrText.contains("no item named \"a.txt\" in the Inbox"), "\(result)")
    }
    #expect(!FileManager.default.fileExists(atPath: documents.path), "\(everything(under: b.root))")
    // A home made by --home (its identity exists) and never sent to: the same.
    #expect(try b.share("id").exited(with: 0))
    #expect(try b.share("inbox", "list", "--json").exited(with: 0))
    #expect(!FileManager.default.fileExists(atPath: b.inbox.path))
  }

  /// Review 30 L3: a DEST ending in "/" that is a file was told to 'mkdir -p' it.
  @Test func aDestinationWithASlashThatIsAFileIsNamedAsOne() throws {
    let b = try receiverHolding(["a.txt"])
    let file = b.root.appendingPathComponent("plain.txt")
    try Data("x\n".utf8).write(to: file)
    let moved = try b.share("inbox", "move", "a.txt", file.path + "/")
    #expect(moved.exited(with: 1), "\(moved)")
    #expect(moved.stderrLines.first?.contains("is a file, not a folder") == true, "\(moved)")
    #expect(!moved.stderrText.contains("mkdir"), "\(moved)")
    #expect(b.inboxNames() == ["a.txt"])
    // A folder no file can be made in, on another file system: the system's reason, not
    // Foundation's "The file doesn't exist." (review 30 L3).
    let proc = try b.share("inbox", "move", "a.txt", "/proc/")
    #expect(proc.exited(with: 1), "\(proc)")
    #expect(proc.stderrLines == ["Error: cannot copy \"a.txt\" to /proc: No such file or directory"], "\(proc)")
    #expect(b.inboxNames() == ["a.txt"])
  }
}
