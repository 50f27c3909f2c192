import Foundation
import Glibc
import InboxStore
import TLS
import Testing
import Wire

@testable import ShareKit

/// Folders, URLs, text and streams: every kind of activity item, in one send.
@Suite struct ActivityItemTests {
  @Test func aFolderArrivesAsAReadOnlyTreeWithItsStructure() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let root = a.root.appendingPathComponent("trip")
    try FileManager.default.createDirectory(at: root.appendingPathComponent("day1/photos"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
    let big = randomBytes(3 << 20)
    _ = FileManager.default.createFile(atPath: root.appendingPathComponent("notes.txt").path, contents: Data("n".utf8))
    _ = FileManager.default.createFile(atPath: root.appendingPathComponent("day1/photos/a.bin").path, contents: Data(big))
    try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: "/etc/passwd")
    var catalog = ItemCatalog()
    try catalog.add(path: root.path)
    #expect(catalog.notes.contains { $0.contains("link") && $0.contains("not followed") })
    let report = try Sender(device: a.device).send(catalog.items, to: receiver.endpoint)
    #expect(report.allStored)
    #expect(report.items[0].entriesStored == 2)
    let stored = b.inbox.appendingPathComponent("trip")
    #expect(FileManager.default.contents(atPath: stored.appendingPathComponent("day1/photos/a.bin").path) == Data(big))
    #expect(FileManager.default.fileExists(atPath: stored.appendingPathComponent("empty").path))
    #expect(!FileManager.default.fileExists(atPath: stored.appendingPathComponent("link").path))
    var info = stat()
    lstat(stored.appendingPathComponent("day1").path, &info)
    #expect(info.st_mode & 0o777 == 0o555)
    lstat(stored.appendingPathComponent("notes.txt").path, &info)
    #expect(info.st_mode & 0o777 == 0o444)
    let item = try #require(try InboxStore(documents: b.device.paths.documents).list().first)
    #expect(item.metadata?.kind == .folder)
    #expect(item.metadata?.files == 2)
    #expect(item.metadata?.size == Int64(big.count + 1))
  }

  @Test func aSecondFolderOfTheSameNameTakesANumberedName() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let root = a.root.appendingPathComponent("docs")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: root.appendingPathComponent("x").path, contents: Data([1]))
    for _ in 0..<2 { _ = try Sender(device: a.device).send(try OutgoingItem.files([root.path]), to: receiver.endpoint) }
    #expect(b.inboxNames() == ["docs", "docs-1"])
  }

  @Test func hostileFolderEntriesAreRefusedOneByOne() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    let entries = [
      EntryOffer(path: "ok.txt", kind: .file, size: 1),
      EntryOffer(path: "../escape.txt", kind: .file, size: 1),
      EntryOffer(path: "/etc/abs.txt", kind: .file, size: 1),
      EntryOffer(path: "a//b.txt", kind: .file, size: 1),
      EntryOffer(path: "ok.txt", kind: .file, size: 1),
      EntryOffer(path: "sub/\u{1b}[2Jname.txt", kind: .file, size: 1),
    ]
    let answer = try client.ask([ItemOffer(id: 0, kind: .folder, name: "f", size: 6, entries: entries)])
    let verdicts = try #require(answer.items.first?.entries).map(\.accepted)
    #expect(verdicts == [true, false, false, false, false, true])
    for index in [0, 5] {
      try client.connection.sendBegin(BeginFrame(item: 0, entry: index))
      var framed = [UInt8](repeating: 0, count: FrameHeader.size) + [42]
      try framed.withUnsafeMutableBytes { try client.connection.sendData(framedIn: $0) }
      try client.connection.sendEnd(Digest(bytes: SHA256Hasher.hash([42])))
    }
    try client.connection.flush()
    let receipt = try client.receipt()
    #expect(receipt.items[0].status == .stored)
    #expect(receipt.items[0].entriesStored == 2)
    #expect(receipt.items[0].entriesRefused == 4)
    // Each refused entry is named, in offer order, with why; and so in the Inbox's metadata.
    let refused = try #require(receipt.items[0].refusedEntries)
    #expect(refused.map(\.path) == ["../escape.txt", "/etc/abs.txt", "a//b.txt", "ok.txt"])
    #expect(refused[3].reason == "another entry has the same path")
    let stored = try InboxStore(documents: b.device.paths.documents).list().first { $0.name == "f" }
    #expect(stored?.metadata?.refusedEntries?.map(\.path) == refused.map(\.path))
    #expect(FileManager.default.fileExists(atPath: b.inbox.appendingPathComponent("f/sub/_[2Jname.txt").path))
    #expect(!FileManager.default.fileExists(atPath: b.inbox.appendingPathComponent("escape.txt").path))
  }

  @Test func urlsAndTextArriveAsSmallFilesOfTheirKind() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    var catalog = ItemCatalog()
    try catalog.add(url: "https://example.com/page?q=1")
    catalog.add(text: "see you at 6\n", name: "note")
    let report = try Sender(device: a.device).send(catalog.items, to: receiver.endpoint)
    #expect(report.allStored)
    #expect(b.inboxNames() == ["example.com-page.url", "note.txt"])
    #expect(
      FileManager.default.contents(atPath: b.inbox.appendingPathComponent("example.com-page.url").path)
        == Data("https://example.com/page?q=1\n".utf8))
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("note.txt").path) == Data("see you at 6\n".utf8))
    let kinds = Set(try InboxStore(documents: b.device.paths.documents).list().compactMap { $0.metadata?.kind.rawValue })
    #expect(kinds == ["url", "text"])
  }

  @Test func aURLItemThatIsNotAURLFails() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    let bytes = Array("#!/bin/sh\nrm -rf ~\n".utf8)
    let answer = try client.ask([ItemOffer(id: 0, kind: .url, name: "run.sh", size: Int64(bytes.count))])
    #expect(answer.items[0].accepted)
    try client.sendItem(id: 0, bytes: bytes)
    #expect(try client.receipt().items[0].status == .failed)
    #expect(b.inboxNames().isEmpty)
  }

  @Test func aStreamOfUnknownLengthArrivesWhole() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let payload = randomBytes(2_500_000)
    let readEnd = try feedPipe(payload)
    var catalog = ItemCatalog()
    catalog.add(stream: readEnd, name: "piped.bin")
    let report = try Sender(device: a.device).send(catalog.items, to: receiver.endpoint)
    close(readEnd)
    #expect(report.allStored)
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("piped.bin").path) == Data(payload))
  }

  @Test func urlArgumentsAreToldApartFromPaths() {
    #expect(ItemCatalog.looksLikeURL("https://example.com"))
    #expect(ItemCatalog.looksLikeURL("ftp://host/file"))
    #expect(!ItemCatalog.looksLikeURL("notes.txt"))
    #expect(!ItemCatalog.looksLikeURL("/tmp/x"))
    #expect(!ItemCatalog.looksLikeURL("c:/dir"))
    #expect(!ItemCatalog.looksLikeURL("1http://x"))
    #expect(ItemCatalog.looksLikeURL("HTTPS://example.com"))
    #expect(ItemCatalog.looksLikeURL("svn+ssh.x-y://host"))
    #expect(!ItemCatalog.looksLikeURL("ht_tp://x"))
    #expect(!ItemCatalog.looksLikeURL("h\u{E9}://x"))
    #expect(!ItemCatalog.looksLikeURL("@x://y"))
    #expect(!ItemCatalog.looksLikeURL("://x"))
    #expect(!ItemCatalog.looksLikeURL("dir/a:b://c"))
    #expect(!ItemCatalog.looksLikeURL("a:\u{301}//x"))
    #expect(!ItemCatalog.looksLikeURL("http:/x"))
  }

  /// The sender applies the receiver's URL rule (outside review: it sent what the receiver then
  /// refused, and `javascript:` and `file:` URLs were sent and stored).
  @Test func aURLTheReceiverWouldRefuseIsNeverSentAndBlanksAroundOneAreDropped() throws {
    for bad in ["javascript:alert(1)", "file:///etc/passwd", "https://a\u{1B}[31mb", "https://a b", "ms-msdt:/id"] {
      var catalog = ItemCatalog()
      #expect(throws: ShareError.self, "\(bad.debugDescription)") { try catalog.add(url: bad) }
    }
    var catalog = ItemCatalog()
    try catalog.add(url: "  https://example.org/a  ")
    guard case .inline(let bytes) = catalog.items[0].source else { throw TestFailure("not sent inline") }
    #expect(bytes == Array("https://example.org/a\n".utf8))
  }
}
