import Foundation
import Glibc
import Testing

/// The daemon and the CLI run as an ordinary user, for whom the file system's permission checks
/// apply (root passes them all, so the other tests cannot see what follows). A folder item is
/// read-only in the Inbox, and Linux moves a folder under another parent only when the folder
/// itself is writable: receiving a folder, moving one out and deleting one must all still work.
@Suite(.enabled(if: getuid() == 0, "needs root to run share as another user"))
struct UnprivilegedUserTests {
  /// alice and bob, both homes owned by the test user; bob's daemon runs as it, trusting alice.
  func peers() throws -> (alice: ShareHome, bob: ShareHome, daemon: Daemon) {
    let user = try TestUser.require()
    let (a, b) = (try ShareHome(name: "alice", user: user), try ShareHome(name: "bob", user: user))
    return (a, b, try b.startDaemon(trusting: [a]))
  }

  /// `album/` with two text files and `sub/` holding a third, in alice's files.
  func album(in home: ShareHome) throws -> URL {
    let album = home.files.appendingPathComponent("album")
    try FileManager.default.createDirectory(at: album.appendingPathComponent("sub"), withIntermediateDirectories: true)
    for (path, text) in [("one.txt", "one\n"), ("two.txt", "two\n"), ("sub/three.txt", "three\n")] {
      try Data(text.utf8).write(to: album.appendingPathComponent(path))
    }
    return album
  }

  /// bob's Inbox holding alice's album, received by bob's daemon running as the test user.
  func bobHoldingAnAlbum() throws -> ShareHome {
    let (a, b, daemon) = try peers()
    defer { _ = daemon.stop() }
    let sent = try a.share("send", try album(in: a).path, "--to", daemon.address)
    guard sent.exited(with: 0) else { throw HarnessError("sending the album failed:\n\(sent)\n--- daemon:\n\(daemon.log)") }
    return b
  }

  /// Every leftover in bob's staging (nothing may be left once an item is placed, moved or deleted).
  func leftovers(_ home: ShareHome) -> [String] { home.stagingEntries().map(\.name) }

  @Test func aFolderIsStoredReadOnlyWhenTheDaemonIsNotRoot() throws {
    let (a, b, daemon) = try peers()
    let sent = try a.share("send", try album(in: a).path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)\n--- daemon:\n\(daemon.log)")
    let stored = b.inbox.appendingPathComponent("album")
    #expect(permissions(stored) == 0o555)
    #expect(permissions(stored.appendingPathComponent("sub")) == 0o555)
    #expect(permissions(stored.appendingPathComponent("sub/three.txt")) == 0o444)
    #expect(FileManager.default.contents(atPath: stored.appendingPathComponent("sub/three.txt").path) == Data("three\n".utf8))
    #expect(FileManager.default.contents(atPath: stored.appendingPathComponent("one.txt").path) == Data("one\n".utf8))
    #expect(leftovers(b).isEmpty, "staging: \(leftovers(b))")
    _ = daemon.stop()
    let listed = try b.listedItems()
    #expect(listed.count == 1)
    #expect(listed.first?["kind"] as? String == "folder")
    #expect(listed.first?["original_name"] as? String == "album", "the folder's metadata follows it into the Inbox")
  }

  @Test func inboxMoveTakesAFolderOutWritableWhenNotRoot() throws {
    let b = try bobHoldingAnAlbum()
    let moved = try b.share("inbox", "move", "album")
    let target = b.documents.appendingPathComponent("album")
    #expect(moved.exited(with: 0), "\(moved)")
    #expect(moved.stdoutLines == [target.path], "\(moved)")
    #expect(b.inboxNames().isEmpty)
    #expect(FileManager.default.contents(atPath: target.appendingPathComponent("sub/three.txt").path) == Data("three\n".utf8))
    #expect((permissions(target) ?? 0) & 0o200 != 0, "the folder is writable again")
    #expect((permissions(target.appendingPathComponent("sub")) ?? 0) & 0o200 != 0, "and so is what is in it")
    #expect(leftovers(b).isEmpty, "staging: \(leftovers(b))")
  }

  @Test func inboxMoveTakesAFolderToAnotherFileSystemWhenNotRoot() throws {
    let b = try bobHoldingAnAlbum()
    let shm = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("share-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: shm, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: shm) }
    try TestUser.require().own(shm)
    let moved = try b.share("inbox", "move", "album", shm.path)
    #expect(moved.exited(with: 0), "\(moved)")
    let target = shm.appendingPathComponent("album")
    #expect(FileManager.default.contents(atPath: target.appendingPathComponent("sub/three.txt").path) == Data("three\n".utf8))
    #expect(FileManager.default.contents(atPath: target.appendingPathComponent("two.txt").path) == Data("two\n".utf8))
    #expect((permissions(target.appendingPathComponent("sub")) ?? 0) & 0o200 != 0)
    #expect(b.inboxNames().isEmpty)
    #expect((try FileManager.default.contentsOfDirectory(atPath: shm.path)) == ["album"], "no temporary copy left")
    #expect(leftovers(b).isEmpty, "staging: \(leftovers(b))")
  }

  @Test func inboxDeleteRemovesAFolderWhenNotRoot() throws {
    let b = try bobHoldingAnAlbum()
    let deleted = try b.share("inbox", "delete", "album")
    #expect(deleted.exited(with: 0), "\(deleted)")
    #expect(b.inboxNames().isEmpty)
    #expect(leftovers(b).isEmpty, "staging: \(leftovers(b))")
  }

  /// What a crash in `share inbox move` leaves once the folder crossed to its transient name and
  /// was made writable: the passage record in staging (the format `FolderPassage` writes) and
  /// the folder, writable, under that name in the Inbox.
  func crashWhileLeaving(_ b: ShareHome) throws {
    let transient = ".share-\(String(repeating: "0a", count: 12)).passage"
    let record = try JSONSerialization.data(withJSONObject: [["transient": transient, "name": "album"]])
    try record.write(to: b.staging.appendingPathComponent("0123456789abcdef01234567.passage"))
    let moved = b.inbox.appendingPathComponent(transient)
    try FileManager.default.moveItem(at: b.inbox.appendingPathComponent("album"), to: moved)
    chmod(moved.path, 0o700)
    try TestUser.require().own(b.staging)
  }

  /// Review 27: the next inbox command repairs it (before, only the daemon's next start did,
  /// and the folder was missing from `share inbox` meanwhile).
  @Test func aFolderLeftWritableByACrashIsNeverListedWritableAndIsSealedBackByTheNextInboxCommand() throws {
    let b = try bobHoldingAnAlbum()
    try crashWhileLeaving(b)
    #expect(try b.listedItems().map { $0["name"] as? String } == ["album"], "repaired before it is listed")
    #expect(permissions(b.inbox.appendingPathComponent("album")) == 0o555)
    let daemon = try b.startDaemon()
    _ = daemon.stop()
    #expect(b.inboxNames() == ["album"], "\(daemon.log)")
    #expect(permissions(b.inbox.appendingPathComponent("album")) == 0o555)
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("album/sub/three.txt").path) == Data("three\n".utf8))
    #expect(try b.listedItems().first?["original_name"] as? String == "album")
    #expect(leftovers(b).isEmpty, "staging: \(leftovers(b))")
  }

  /// Review 32 M3: with settings.json not writable, `share receive` said only "cannot write …"
  /// (exit 1) while the running daemon had taken the new mode. It says what holds now.
  @Test func aModeTheDaemonTookButCouldNotKeepIsSaidSo() throws {
    let (_, b, daemon) = try peers()
    defer { _ = daemon.stop() }
    // The home's folder read-only for its owner: no new settings.json can be written in it.
    #expect(chmod(b.home.path, 0o500) == 0)
    defer { chmod(b.home.path, 0o700) }
    let changed = try b.share("receive", "everyone", "--for", "10m")
    #expect(changed.exited(with: 1), "\(changed)")
    #expect(changed.stderrText.contains("the running daemon now receives: everyone until "), "\(changed)")
    #expect(changed.stderrText.contains("not kept for its next start"), "\(changed)")
    let status = try b.share("status", "--json")
    #expect(status.stdoutText.contains("\"everyone\""), "\(status)")
  }
}
