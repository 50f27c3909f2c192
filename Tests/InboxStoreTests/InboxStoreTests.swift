import Foundation
import Glibc
import System
import Testing
import TextEscaping
import UniformTypes

@testable import InboxStore

/// A fresh Documents folder in a temporary directory, removed at the end.
final class TempDocuments: Sendable {
  let root: URL
  let store: InboxStore

  init() throws {
    root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("inbox-test-\(UUID().uuidString)")
    store = try InboxStore(documents: root.appendingPathComponent("Documents"))
  }

  deinit { try? removeTree(root) }

  /// Stages `bytes` as a finished file and returns its placement.
  func stage(_ bytes: [UInt8], name: String, sync: Bool = true) throws -> InboxStore.Placement {
    let file = try store.createStagingFile()
    try bytes.withUnsafeBytes { try file.write($0) }
    let identity = try file.finish(sync: sync)
    let meta = ItemMetadata(
      originalName: PeerText(name), kind: .file, senderName: "peer", senderId: String(repeating: "a", count: 64),
      receivedAt: Date(), size: Int64(bytes.count), sha256: nil, type: "public.data")
    return InboxStore.Placement(staged: file.url, name: name, identity: identity, metadata: meta)
  }

  func mode(_ url: URL) -> mode_t {
    var info = stat()
    lstat(url.path, &info)
    return info.st_mode & 0o7777
  }

  func device(_ url: URL) -> dev_t? {
    var info = stat()
    return lstat(url.path, &info) == 0 ? info.st_dev : nil
  }

  func modified(_ url: URL) -> timespec? {
    var info = stat()
    return lstat(url.path, &info) == 0 ? info.st_mtim : nil
  }
}

@Suite struct InboxStoreTests {
  @Test func foldersAreCreatedOwnerOnly() throws {
    let t = try TempDocuments()
    #expect(t.mode(t.store.inbox) == 0o700)
    #expect(t.mode(t.store.staging) == 0o700)
  }

  @Test func placedFilesAreReadOnlyWithTheirBytes() throws {
    let t = try TempDocuments()
    let results = t.store.place([try t.stage(Array("hello".utf8), name: "hello.txt")])
    #expect(try results[0].get() == "hello.txt")
    let url = t.store.inbox.appendingPathComponent("hello.txt")
    #expect(t.mode(url) == 0o444)
    #expect(FileManager.default.contents(atPath: url.path) == Data("hello".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: t.store.staging.path).isEmpty)
  }

  @Test func oneNameSpeltComposedAndDecomposedCollides() throws {
    let t = try TempDocuments()
    for spelling in ["caf\u{E9}.txt", "cafe\u{301}.txt"] {
      _ = t.store.place([try t.stage(Array(spelling.utf8), name: try InboxName.sanitize(spelling))])
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: t.store.inbox.path).map { Array($0.utf8) }.sorted {
      $0.lexicographicallyPrecedes($1)
    }
    #expect(names == [Array("caf\u{E9}-1.txt".utf8), Array("caf\u{E9}.txt".utf8)])
  }

  /// Found by review 13: `share inbox list` shows `a\b.txt` as `a\\b.txt`; pasted back, it
  /// named nothing.
  @Test func anItemIsFoundByItsNameOrByTheEscapedSpellingShareShowsOfIt() throws {
    let t = try TempDocuments()
    _ = t.store.place([try t.stage([1], name: #"a\b.txt"#)])
    #expect(try t.store.item(named: #"a\b.txt"#).name == #"a\b.txt"#)
    #expect(try t.store.item(named: #"a\\b.txt"#).name == #"a\b.txt"#)
    #expect(try t.store.item(named: #"\u{61}\\b.txt"#).name == #"a\b.txt"#)
    // A second item named as the first is shown makes that spelling name neither (review 14: a
    // sender could name one to catch the other); each is named alone with \u{5C} for backslashes.
    _ = t.store.place([try t.stage([2], name: #"a\\b.txt"#)])
    #expect {
      try t.store.item(named: #"a\\b.txt"#)
    } throws: { error in
      guard case InboxError.ambiguousName(_, let asIs, let asShown) = error else { return false }
      return asIs == #"a\\b.txt"# && asShown == #"a\b.txt"# && "\(error)".contains(#""a\u{5C}\u{5C}b.txt" or "a\u{5C}b.txt""#)
    }
    #expect(try t.store.item(named: #"a\u{5C}b.txt"#).name == #"a\b.txt"#)
    #expect(try t.store.item(named: #"a\u{5C}\u{5C}b.txt"#).name == #"a\\b.txt"#)
    // Unescaping never makes a path.
    #expect(throws: InboxError.self) { try t.store.item(named: #"a\u{2F}b.txt"#) }
  }

  @Test func collisionsTakeNumberedNamesAndNeverReplace() throws {
    let t = try TempDocuments()
    for i in 0..<3 {
      _ = t.store.place([try t.stage([UInt8(i)], name: "notes.txt")])
    }
    let names = Set(try FileManager.default.contentsOfDirectory(atPath: t.store.inbox.path))
    #expect(names == ["notes.txt", "notes-1.txt", "notes-2.txt"])
    #expect(FileManager.default.contents(atPath: t.store.inbox.appendingPathComponent("notes.txt").path) == Data([0]))
  }

  @Test func concurrentPlacementsOfOneNameAllSurvive() async throws {
    let t = try TempDocuments()
    let placements = try (0..<20).map { try t.stage([UInt8($0)], name: "same.bin") }
    await withTaskGroup(of: Void.self) { group in
      for p in placements { group.addTask { _ = t.store.place([p]) } }
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: t.store.inbox.path)
    #expect(names.count == 20)
    let contents = Set(names.compactMap { FileManager.default.contents(atPath: t.store.inbox.appendingPathComponent($0).path) })
    #expect(contents.count == 20)
  }

  @Test func listCarriesMetadataAndFollowsARename() throws {
    let t = try TempDocuments()
    _ = t.store.place([try t.stage(Array("x".utf8), name: "a.txt")])
    #expect(t.store.list().first?.metadata?.originalName == "a.txt")
    // The record is keyed by the file, not its name.
    rename(t.store.inbox.appendingPathComponent("a.txt").path, t.store.inbox.appendingPathComponent("b.txt").path)
    let item = try #require(t.store.list().first)
    #expect(item.name == "b.txt")
    #expect(item.metadata?.originalName == "a.txt")
  }

  /// Review 38: a name that is not UTF-8 (made by hand or by a hook; never by a peer) was left
  /// out of the list, and a folder holding one could not be deleted whole.
  @Test func namesThatAreNotUTF8AreListedAndDeleted() throws {
    let t = try TempDocuments()
    let name = FileNameText.decoding(Array("old-".utf8) + [0xE9] + Array(".txt".utf8))
    let inbox = t.store.inbox.path
    let file = try FileDescriptor.open(inbox + "/" + name, .writeOnly, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite)
    try file.close()
    try FileSystem.makeDirectory(inbox + "/dir", permissions: .ownerReadWriteExecute)
    let inner = try FileDescriptor.open(
      inbox + "/dir/" + name, .writeOnly, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite)
    try inner.close()
    #expect(Set(t.store.list().map(\.name)) == [name, "dir"])
    try t.store.delete("dir")
    try t.store.delete(name)
    #expect(t.store.list().isEmpty)
  }

  @Test func aFileDroppedInByHandHasNoMetadata() throws {
    let t = try TempDocuments()
    _ = FileManager.default.createFile(atPath: t.store.inbox.appendingPathComponent("manual").path, contents: Data([1]))
    let item = try #require(t.store.list().first)
    #expect(item.metadata == nil)
  }

  @Test func moveMakesTheItemWritableInDocuments() throws {
    let t = try TempDocuments()
    _ = t.store.place([try t.stage(Array("x".utf8), name: "n.txt")])
    let moved = try t.store.move("n.txt")
    #expect(moved.path == t.store.documents.appendingPathComponent("n.txt").path)
    #expect(t.mode(moved) & 0o200 != 0)
    #expect(!FileManager.default.fileExists(atPath: t.store.inbox.appendingPathComponent("n.txt").path))
  }

  /// Found by review 19: `share inbox move` by the spelling `share inbox list` shows moved
  /// `notes.txt\` to `Documents/notes.txt\\`, a name the item never had.
  @Test func moveByTheEscapedSpellingKeepsTheItemsOwnName() throws {
    let t = try TempDocuments()
    _ = t.store.place([try t.stage([1], name: #"notes.txt\"#)])
    let moved = try t.store.move(#"notes.txt\\"#)
    #expect(moved.lastPathComponent == #"notes.txt\"#)
    #expect(FileManager.default.fileExists(atPath: t.store.documents.appendingPathComponent(#"notes.txt\"#).path))
  }

  @Test func moveNeverOverwrites() throws {
    let t = try TempDocuments()
    _ = FileManager.default.createFile(atPath: t.store.documents.appendingPathComponent("n.txt").path, contents: Data("old".utf8))
    _ = t.store.place([try t.stage(Array("new".utf8), name: "n.txt")])
    let moved = try t.store.move("n.txt")
    #expect(moved.lastPathComponent == "n-1.txt")
    #expect(FileManager.default.contents(atPath: t.store.documents.appendingPathComponent("n.txt").path) == Data("old".utf8))
    // An explicit destination path that exists is an error, and the item stays.
    _ = t.store.place([try t.stage(Array("again".utf8), name: "m.txt")])
    #expect(throws: InboxError.self) { try t.store.move("m.txt", to: t.store.documents.appendingPathComponent("n.txt")) }
    #expect(FileManager.default.fileExists(atPath: t.store.inbox.appendingPathComponent("m.txt").path))
  }

  @Test func moveWorksAcrossFileSystems() throws {
    let t = try TempDocuments()
    let other = URL(fileURLWithPath: "/dev/shm/share-move-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    defer { try? removeTree(other) }
    _ = t.store.place([try t.stage(Array(repeating: 7, count: 100_000), name: "big.bin")])
    let moved = try t.store.move("big.bin", to: other)
    #expect(FileManager.default.contents(atPath: moved.path)?.count == 100_000)
    #expect(t.mode(moved) & 0o200 != 0)
    #expect(t.store.list().isEmpty)
  }

  /// Review 16: a move to another file system (a copy) set every modification time to now; a
  /// rename keeps them.
  @Test func moveAcrossFileSystemsKeepsTheModificationTimesOfFilesAndFolders() throws {
    let t = try TempDocuments()
    let other = URL(fileURLWithPath: "/dev/shm/share-move-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    defer { try? removeTree(other) }
    try #require(t.device(t.store.inbox) != t.device(other), "this test needs /dev/shm on another file system")
    _ = t.store.place([try t.stage(Array("old".utf8), name: "old.txt")])
    let folder = try t.store.createStagingFolder()
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("sub/f").path, contents: Data([1]))
    let meta = ItemMetadata(originalName: "tree", kind: .folder, senderName: "p", senderId: "x", receivedAt: Date(), size: 1)
    let identity = try t.store.seal(folder: folder)
    #expect(try t.store.place([.init(staged: folder, name: "tree", identity: identity, metadata: meta)])[0].get() == "tree")
    // Distinct times, deepest first (setting an entry's time leaves its folder's alone).
    let times: [(String, Int)] = [
      ("old.txt", 1_000_000_001), ("tree/sub/f", 1_000_000_002), ("tree/sub", 1_000_000_003), ("tree", 1_000_000_004),
    ]
    for (path, seconds) in times {
      var stamps = [timespec(tv_sec: seconds, tv_nsec: 123_456_789), timespec(tv_sec: seconds, tv_nsec: 123_456_789)]
      try #require(utimensat(AT_FDCWD, t.store.inbox.appendingPathComponent(path).path, &stamps, 0) == 0)
    }
    try t.store.move("old.txt", to: other)
    try t.store.move("tree", to: other)
    for (path, seconds) in times {
      let modified = t.modified(other.appendingPathComponent(path))
      #expect(modified?.tv_sec == seconds && modified?.tv_nsec == 123_456_789, "\(path): \(String(describing: modified))")
    }
  }

  @Test func moveAndDeleteRefuseNamesOutsideTheInbox() throws {
    let t = try TempDocuments()
    for name in ["../Inbox", "..", "/etc/passwd", "a/b"] {
      #expect(throws: InboxError.self) { try t.store.delete(name) }
      #expect(throws: InboxError.self) { try t.store.move(name) }
    }
  }

  /// Where components become a path, one that is not a plain name is refused whatever checked
  /// it before (fuzz finding F2 passed `..` from the sanitiser to here).
  @Test func aStagedFolderRefusesComponentsThatLeaveIt() throws {
    let t = try TempDocuments()
    let folder = try t.store.createStagedFolder()
    defer { folder.discard() }
    for path in [["..", "x.txt"], ["a", "..", "..", "x.txt"], [".", "x.txt"], ["", "x.txt"], ["a/../../x.txt"], ["x\0.txt"]] {
      #expect(throws: InboxError.self) { _ = try folder.createFile(path) }
      #expect(throws: InboxError.self) { try folder.makeFolder(path) }
    }
    #expect(!FileManager.default.fileExists(atPath: t.store.staging.appendingPathComponent("x.txt").path))
    #expect(!FileManager.default.fileExists(atPath: t.root.appendingPathComponent("Documents/x.txt").path))
    _ = try folder.createFile(["a", "x.txt"])
  }

  @Test func deleteRemovesAReadOnlyFolderTree() throws {
    let t = try TempDocuments()
    let folder = try t.store.createStagingFolder()
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("sub/f").path, contents: Data([1]))
    chmod(folder.appendingPathComponent("sub/f").path, 0o444)
    let identity = try t.store.seal(folder: folder)
    #expect(t.mode(folder.appendingPathComponent("sub")) == 0o555)
    let meta = ItemMetadata(originalName: "d", kind: .folder, senderName: "p", senderId: "x", receivedAt: Date(), size: 1)
    #expect(try t.store.place([.init(staged: folder, name: "d", identity: identity, metadata: meta)])[0].get() == "d")
    #expect(t.store.list().first?.kind == .folder)
    try t.store.delete("d")
    #expect(t.store.list().isEmpty)
  }

  @Test func compactionKeepsOnlyLiveRecords() throws {
    let t = try TempDocuments()
    for i in 0..<5 { _ = t.store.place([try t.stage([UInt8(i)], name: "f\(i)")]) }
    for i in 0..<4 { try t.store.delete("f\(i)") }
    try t.store.compactMetadata(force: true, now: Date() + MetadataJournal.settleTime + 1)
    let journal = MetadataJournal(directory: t.store.metadataDirectory).readAll()
    #expect(journal.records.count == 1)
    #expect(journal.files.count == 1)
    #expect(t.store.list().first?.metadata?.originalName == "f4")
  }

  /// Review 27: a compaction between a daemon's writing a batch's records and its renaming the
  /// items into the Inbox dropped the records of every item not yet there.
  @Test func compactionLeavesRecentRecordsOfItemsNotYetPlaced() throws {
    let t = try TempDocuments()
    _ = t.store.place([try t.stage([1], name: "kept")])
    let journal = MetadataJournal(directory: t.store.metadataDirectory)
    let coming = try t.stage([2], name: "coming")
    let record = MetadataRecord(file: coming.identity, meta: coming.metadata)
    try journal.append([record])
    try t.store.compactMetadata(force: true)
    #expect(journal.readAll().records.contains { $0.file == coming.identity }, "a batch being placed keeps its records")
    try t.store.compactMetadata(force: true, now: Date() + MetadataJournal.settleTime + 1)
    #expect(!journal.readAll().records.contains { $0.file == coming.identity }, "one never placed goes once settled")
    #expect(t.store.list().first?.metadata?.originalName == "kept")
  }

  @Test func aTornJournalLineIsSkipped() throws {
    let t = try TempDocuments()
    _ = t.store.place([try t.stage([1], name: "ok")])
    _ = FileManager.default.createFile(
      atPath: t.store.metadataDirectory.appendingPathComponent("zz.jsonl").path, contents: Data("{\"file\":{\"ino".utf8))
    #expect(t.store.list().first?.metadata?.originalName == "ok")
  }
}

@Suite struct MetadataRecordTests {
  @Test func aJournalLineDecodesToTheSameRecordWhateverTheNamesHold() throws {
    let hostile = "q\"uote\\back\nline\u{1b}[2J\u{9b}tab\there 日本 \u{202e}"
    let meta = ItemMetadata(
      originalName: PeerText(hostile), kind: .file, senderName: PeerText(hostile), senderId: String(repeating: "ab", count: 32),
      receivedAt: Date(timeIntervalSince1970: 1_790_000_000), size: 42, sha256: String(repeating: "0", count: 64),
      type: "public.plain-text", files: 3)
    let record = MetadataRecord(file: FileIdentity(inode: 12345, size: 42, mtimeNanoseconds: 1_790_000_000_123_456_789), meta: meta)
    let line = record.jsonLine
    #expect(line.hasSuffix("\n") && !line.dropLast().contains("\n"))
    let decoded = try MetadataJournal.decoder.decode(MetadataRecord.self, from: Data(line.utf8))
    #expect(decoded.meta == meta)
    #expect(decoded.file == record.file)
  }
}
