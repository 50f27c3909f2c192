import Foundation
import Glibc
import System
import Testing
import TextEscaping
import UniformTypes

@testable import InboxStore

/// A folder item's top folder stays writable in staging (it could not move into the Inbox
/// otherwise, for anyone but root) and is sealed under a transient name before it takes its
/// name in the Inbox; a folder leaving is made writable only under that name; a crash in between
/// is repaired when the daemon starts (`FolderPassage`). (The end-to-end `UnprivilegedUserTests` run the same as an
/// ordinary user; these run as root, which passes every permission check, so they look at modes
/// and at what a crash would leave.)
@Suite struct FolderSealingTests {
  /// Stages a folder `d` holding `sub/f`, sealed as the receiver seals it.
  func stageFolder(_ t: TempDocuments) throws -> InboxStore.Placement {
    let folder = try t.store.createStagingFolder()
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("sub/f").path, contents: Data([1]))
    chmod(folder.appendingPathComponent("sub/f").path, 0o444)
    let identity = try t.store.seal(folder: folder)
    let meta = ItemMetadata(originalName: "d", kind: .folder, senderName: "p", senderId: "x", receivedAt: Date(), size: 1)
    return InboxStore.Placement(staged: folder, name: "d", identity: identity, metadata: meta)
  }

  func stagingNames(_ t: TempDocuments) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: t.store.staging.path)
  }

  func inboxNames(_ t: TempDocuments) throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: t.store.inbox.path))
  }

  @Test func aStagedFolderKeepsOnlyItsTopFolderWritableUntilPlaced() throws {
    let t = try TempDocuments()
    let placement = try stageFolder(t)
    #expect(t.mode(placement.staged) == 0o700)
    #expect(t.mode(placement.staged.appendingPathComponent("sub")) == 0o555)
    #expect(try t.store.place([placement])[0].get() == "d")
    let placed = t.store.inbox.appendingPathComponent("d")
    #expect(t.mode(placed) == 0o555)
    #expect(t.mode(placed.appendingPathComponent("sub")) == 0o555)
    #expect(t.mode(placed.appendingPathComponent("sub/f")) == 0o444)
    #expect(try inboxNames(t) == ["d"], "no transient name left in the Inbox")
    #expect(try stagingNames(t).isEmpty, "no passage record or staging left")
    #expect(t.store.list().first?.metadata?.originalName == "d", "sealing on the way keeps the folder's identity")
  }

  @Test func aFolderCrossingIntoTheInboxIsNotListedAndACrashIsRepairedWhenTheDaemonStarts() throws {
    for sealedBeforeTheCrash in [false, true] {
      let t = try TempDocuments()
      let placement = try stageFolder(t)
      _ = t.store.place([try t.stage([1], name: "other")])
      // What a crash leaves after the first rename (and, the second time, after the seal).
      let passage = try FolderPassage.record(["d"], in: t.store.staging)
      let transient = t.store.inbox.appendingPathComponent(passage.crossings[0].transient)
      #expect(rename(placement.staged.path, transient.path) == 0)
      if sealedBeforeTheCrash { chmod(transient.path, 0o555) }
      #expect(t.store.list().map(\.name) == ["other"], "a folder under its transient name is not an item")
      passage.lock?.unlock()  // the process that held it is gone
      t.store.cleanStaging(expiry: 3600)
      let placed = t.store.inbox.appendingPathComponent("d")
      #expect(t.mode(placed) == 0o555)
      #expect(FileManager.default.contents(atPath: placed.appendingPathComponent("sub/f").path) == Data([1]))
      #expect(try inboxNames(t) == ["d", "other"])
      #expect(try stagingNames(t).isEmpty)
    }
  }

  /// A placed folder `d` as `move` or `delete` leaves it once under its transient name,
  /// writable; the passage's lock is still held (by this process).
  func leavingFolder(_ t: TempDocuments) throws -> FolderPassage {
    _ = t.store.place([try stageFolder(t)])
    let passage = try FolderPassage.record(["d"], in: t.store.staging)
    let transient = t.store.inbox.appendingPathComponent(passage.crossings[0].transient)
    #expect(rename(t.store.inbox.appendingPathComponent("d").path, transient.path) == 0)
    chmod(transient.path, 0o700)
    return passage
  }

  @Test func aCrashWhileAFolderLeavesTheInboxPutsItBackSealed() throws {
    let t = try TempDocuments()
    let passage = try leavingFolder(t)
    #expect(t.store.list().isEmpty, "a writable folder is never listed")
    passage.lock?.unlock()  // the process that held it is gone
    t.store.cleanStaging(expiry: 3600)
    #expect(try inboxNames(t) == ["d"])
    #expect(t.mode(t.store.inbox.appendingPathComponent("d")) == 0o555)
    #expect(t.store.list().first?.metadata?.originalName == "d", "its metadata still applies")
    #expect(try stagingNames(t).isEmpty)
  }

  /// Review 27: a move killed mid-copy left its folder hidden until the daemon's next start.
  /// Every inbox command repairs first — but never a passage whose maker still holds its lock
  /// (a move or a placement in progress in another process).
  @Test func aRepairLeavesAPassageInProgressAndMendsOneWhoseMakerIsGone() throws {
    let t = try TempDocuments()
    let passage = try leavingFolder(t)
    #expect(t.store.repairPassages() == 0, "a crossing in progress is left to its maker")
    t.store.cleanStaging(expiry: 3600)
    #expect(try inboxNames(t) == [passage.crossings[0].transient], "a daemon starting meanwhile leaves it too")
    let left = try stagingNames(t)
    #expect(left.filter { !$0.hasPrefix(".") }.count == 2, "its record and its lock stay: \(left)")
    passage.lock?.unlock()
    #expect(t.store.repairPassages() == 1)
    #expect(try inboxNames(t) == ["d"])
    #expect(t.mode(t.store.inbox.appendingPathComponent("d")) == 0o555)
    #expect(try stagingNames(t).isEmpty, "record and lock removed")
  }

  @Test func aPassageWhoseFolderNeverReachedTheInboxIsDropped() throws {
    let t = try TempDocuments()
    _ = try stageFolder(t)
    _ = try FolderPassage.record(["d"], in: t.store.staging)
    // The crash came before the rename: the folder is still in staging, which is cleaned.
    t.store.cleanStaging(expiry: 3600)
    #expect(try stagingNames(t).isEmpty)
    #expect(try inboxNames(t).isEmpty)
  }

  @Test func aSendersNameShapedLikeATransientOneIsListed() throws {
    let t = try TempDocuments()
    let name = FolderPassage.transientName()
    _ = t.store.place([try t.stage([1], name: name)])
    #expect(t.store.list().map(\.name) == [name], "only a name a passage record names is hidden")
  }

  @Test func aFailedMoveLeavesTheFolderSealedInTheInbox() throws {
    let t = try TempDocuments()
    _ = t.store.place([try stageFolder(t)])
    let taken = t.root.appendingPathComponent("taken")
    _ = FileManager.default.createFile(atPath: taken.path, contents: Data([2]))
    #expect(throws: InboxError.self) { try t.store.move("d", to: taken) }
    #expect(try inboxNames(t) == ["d"])
    #expect(t.mode(t.store.inbox.appendingPathComponent("d")) == 0o555)
    #expect(try stagingNames(t).isEmpty)
  }

  @Test func deletingAFolderTakesItOutOfTheInboxInOneRename() throws {
    let t = try TempDocuments()
    _ = t.store.place([try stageFolder(t)])
    try t.store.delete("d")
    #expect(try inboxNames(t).isEmpty)
    #expect(try stagingNames(t).isEmpty)
  }
}
