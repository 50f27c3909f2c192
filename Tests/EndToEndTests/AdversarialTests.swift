import Foundation
import Glibc
import TLS
import Testing
import Wire

/// share's own adversarial suite: a malicious sender, a malicious receiver, a fake advertiser and
/// a second local user against the built binary, covering the classes of the public incidents
/// in this field and each failure issue 11 numbers. After every attack on a daemon: it is alive,
/// a contact's send still works, nothing exists outside the Inbox and staging, and nothing
/// partial is in the Inbox (`Arena.expectIntact`).
///
/// Attacks that still succeed today are wrapped in `withKnownIssue("issue 11.N: …")`: they fail
/// for the reason the issue gives, and whoever fixes it removes the wrapper.
///
/// This file: the malicious sender. Also `AdversarialTests+Receiver.swift` (a malicious
/// receiver), `+Advertiser.swift` (fake DNS-SD records) and `+Local.swift` (the same machine).
@Suite(.serialized) struct AdversarialTests {
  // MARK: Path traversal and name tricks (croc CVE-2023-43619/43616, LocalSend's traversal fixes)

  @Test func offeredNamesThatAreNotPlainNamesNeverLandOutsideTheInbox() throws {
    let arena = try Arena()
    let canary = arena.canary
    let mallory = try arena.peer()
    try mallory.hello()
    let hostile = [
      "../\(canary)", "../../\(canary)", "/tmp/\(canary)", "sub/../../\(canary)", "..", ".", "", "  ", "\(canary)\u{0}.txt",
      "\u{2025}/\(canary)", "..\u{2215}\(canary)", "..\\..\\\(canary)", "%2e%2e%2f\(canary)",
      // Fuzz finding F4: "/" and a combining mark are one Character, which is not "/".
      "../\u{301}\(canary)",
    ]
    var offers = hostile.enumerated().map { ItemOffer(id: $0.offset, kind: .file, name: PeerText($0.element), size: 3) }
    offers.append(ItemOffer(id: 99, kind: .file, name: "ok.txt", size: 3))
    let answer = try mallory.ask(offers)
    for (index, name) in hostile.enumerated()
    where name.unicodeScalars.contains("/") || name.unicodeScalars.contains("\u{0}")
      || name.trimmingCharacters(in: .whitespaces).allSatisfy({ $0 == "." })
    {
      #expect(answer.items.first { $0.id == index }?.accepted == false, "\(name.debugDescription) was accepted")
    }
    for item in answer.items where item.accepted { try mallory.sendItem(item.id, bytes: Array("hi\n".utf8)) }
    let receipt = try mallory.receipt()
    for item in receipt.items where item.status == .stored {
      let stored = try #require(item.storedAs)
      #expect(!stored.unescaped.unicodeScalars.contains("/") && stored != "." && stored != "..", "stored as \(stored.debugDescription)")
      #expect(arena.receiver.inboxNames().contains(stored.unescaped), "\(stored.debugDescription) is not in the Inbox")
    }
    #expect(receipt.items.first { $0.id == 99 }?.status == .stored)
    arena.expectIntact()
  }

  @Test func folderEntriesThatEscapeTheirFolderAreRefused() throws {
    let arena = try Arena()
    let canary = arena.canary
    let mallory = try arena.peer()
    try mallory.hello()
    let paths = [
      "../\(canary).txt", "/tmp/\(canary).txt", "a/../../\(canary).txt", "./\(canary).txt", "a//\(canary).txt",
      "a/./\(canary).txt", "a/b/../../../\(canary).txt", "", "ok.txt",
    ]
    let entries = paths.map { EntryOffer(path: PeerText($0), kind: .file, size: 3) }
    let answer = try mallory.ask([ItemOffer(id: 0, kind: .folder, name: "trip", size: Int64(3 * paths.count), entries: entries)])
    let verdicts = try #require(answer.items.first?.entries)
    #expect(verdicts.last?.accepted == true, "the plain entry was refused: \(verdicts)")
    for (index, verdict) in verdicts.enumerated().dropLast() {
      #expect(!verdict.accepted, "entry \(paths[index].debugDescription) was accepted")
    }
    if answer.items.first?.accepted == true {
      for (index, verdict) in verdicts.enumerated() where verdict.accepted {
        try mallory.sendItem(0, entry: index, bytes: Array("hi\n".utf8))
      }
      _ = try mallory.receipt()
    }
    arena.expectIntact()
  }

  /// Found by fuzzing (Fuzz/README.md, F2): `InboxName.sanitize` shortened a component over 240
  /// bytes on a grapheme boundary and never checked the result, so `..` followed by one huge
  /// grapheme cluster became `..`; four of them led from the staging folder to the home.
  @Test func folderEntryComponentsThatShortenToDotDotStayInsideTheFolder() throws {
    let arena = try Arena()
    let dotdot = "..a" + String(repeating: "\u{301}", count: 130)
    let path = String(repeating: dotdot + "/", count: 4) + "\(arena.canary).txt"
    let escaped = arena.receiver.home.appendingPathComponent("\(arena.canary).txt")
    let mallory = try arena.peer()
    try mallory.hello()
    let answer = try mallory.ask([
      ItemOffer(id: 0, kind: .folder, name: "trip", size: 3, entries: [EntryOffer(path: PeerText(path), kind: .file, size: 3)])
    ])
    if answer.items.first?.accepted == true, answer.items.first?.entries?.first?.accepted == true {
      try mallory.sendItem(0, entry: 0, bytes: Array("hi\n".utf8))
      _ = try? mallory.receipt()
    }
    #expect(!FileManager.default.fileExists(atPath: escaped.path), "written outside the Inbox and staging: \(escaped.path)")
    arena.expectIntact()
  }

  // MARK: Symlinks in the Inbox (Warpinator CVE-2022-42725)

  @Test func aSymlinkInTheInboxIsNeverWrittenThrough() throws {
    let arena = try Arena()
    let outside = arena.receiver.root.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside.appendingPathComponent("photos"), withIntermediateDirectories: true)
    let inbox = arena.receiver.inbox
    let mode = permissions(inbox) ?? 0o700
    chmod(inbox.path, 0o700)
    try FileManager.default.createSymbolicLink(
      at: inbox.appendingPathComponent("report.txt"), withDestinationURL: outside.appendingPathComponent("report.txt"))
    try FileManager.default.createSymbolicLink(
      at: inbox.appendingPathComponent("photos"), withDestinationURL: outside.appendingPathComponent("photos"))
    chmod(inbox.path, mode)
    arena.planted = ["report.txt", "photos"]
    arena.ignored = [outside]

    let sender = arena.contact
    let folder = sender.files.appendingPathComponent("photos")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("a\n".utf8).write(to: folder.appendingPathComponent("a.txt"))
    let sent = try sender.share("send", try sender.file("report.txt", "secret\n").path, folder.path, "--to", arena.daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("report.txt").path), "written through the file symlink")
    #expect(
      (try? FileManager.default.contentsOfDirectory(atPath: outside.appendingPathComponent("photos").path)) == [],
      "written through the folder symlink")
    #expect(arena.receiver.inboxNames().isSuperset(of: ["report-1.txt", "photos-1"]), "\(arena.receiver.inboxNames())")
    arena.expectIntact()
  }

  // MARK: Unbound fingerprints (LocalSend CVE-2025-54792)

  @Test func aHelloWhoseIDIsNotItsCertificatesIsRefused() throws {
    let arena = try Arena(malloryIsContact: false)
    for claimed in [try arena.contact.deviceID(), String(repeating: "0", count: 64), "../../etc/passwd"] {
      let mallory = try arena.peer()
      let reply = try mallory.hello(name: arena.contact.name, id: claimed)
      guard case .failure(let failure) = reply else {
        Issue.record("a Hello claiming \(claimed) was answered with \(reply)")
        continue
      }
      #expect(failure.code == "protocol", "\(failure)")
      // Nothing more is read from this connection: an Ask now gets no Answer.
      try? mallory.send(.ask(Ask(items: [ItemOffer(id: 0, kind: .file, name: "x.txt", size: 1)])))
      #expect(mallory.waitForClose(), "the connection stayed open after the refusal")
    }
    #expect(try arena.pendingAsks().isEmpty)
    arena.expectIntact()
  }

  // MARK: Write before accept (Quick Share)

  @Test func nothingReachesTheDiskBeforeTheOwnerAccepts() throws {
    let arena = try Arena(malloryIsContact: false, daemonArguments: ["--mode", "everyone"])
    let marker = Array("share-e2e-marker-\(arena.canary)".utf8)
    let payload = marker + [UInt8](repeating: 0x41, count: 300_000) + marker
    let mallory = try arena.peer()
    try mallory.hello()
    // The bytes follow the Ask at once, without waiting for an Answer.
    try mallory.send(.ask(Ask(items: [ItemOffer(id: 0, kind: .file, name: "early.txt", size: Int64(payload.count))])))
    // The receiver may close the connection while these bytes are still on their way (it reads
    // nothing more once the sender has spoken out of turn): a refusal too, not the test's failure.
    try? mallory.sendItem(0, bytes: payload)
    // A sender that says anything while its ask waits is taken to have gone (the receiver
    // watches the connection, and reads nothing from it, until the owner answers): the ask is
    // withdrawn at once, so the owner has nothing to accept and no byte is read.
    #expect(arena.daemon.waitForLog("withdrawn: the sender went away"), "\(arena.daemon.log)")
    usleep(300_000)
    #expect(files(under: arena.receiver.root, containing: Data(marker)).isEmpty, "bytes on disk before consent")
    #expect(try arena.pendingAsks().isEmpty)
    _ = mallory.waitForClose()
    #expect(files(under: arena.receiver.root, containing: Data(marker)).isEmpty, "bytes on disk after a decline")
    #expect(arena.receiver.stagingEntries().isEmpty, "\(arena.receiver.stagingEntries())")
    arena.expectIntact()
  }

  // MARK: Ask floods (AirDoS)

  /// Found by this suite: the control socket's answer listed every item of every waiting ask as
  /// one JSON line, which the command read with a 1 MiB limit (scanning the whole buffer for a
  /// newline after every 4 KiB, about 40 s in a debug build), so a stranger's ask of some 10,000
  /// items or more (Wire allows 100,000) made `share requests` and `share status` hang and then
  /// fail with "the daemon gave no answer": the owner could neither see nor decline it. A waiting
  /// ask now lists its first 100 items and counts them all.
  @Test func oneHugeAskIsOneAskTheOwnerCanStillSee() throws {
    let arena = try Arena(malloryIsContact: false, daemonArguments: ["--mode", "everyone"])
    let mallory = try arena.peer()
    try mallory.hello()
    let items = (0..<20_000).map { ItemOffer(id: $0, kind: .file, name: PeerText("spam-\($0).txt"), size: 1) }
    try mallory.send(.ask(Ask(items: items)))
    #expect(arena.daemon.waitForLog("asks to send 20000 item(s)"), "the ask never reached the owner:\n\(arena.daemon.log)")
    let requests = try arena.receiver.share("requests", "--json")
    #expect(requests.exited(with: 0), "\(requests)")
    let asks = try parseJSONLines(requests.stdoutText)
    #expect(asks.count == 1)
    #expect(asks.first?["item_count"] as? Int == 20_000, "\(asks.first?["item_count"] ?? "no item_count")")
    #expect((asks.first?["items"] as? [Any])?.count == 100)
    let status = try arena.receiver.share("status", "--json")
    #expect(status.exited(with: 0), "\(status)")
    let shown = try arena.receiver.share("requests")
    #expect(shown.stdoutText.contains("spam-99.txt") && !shown.stdoutText.contains("spam-100.txt"), "\(shown)")
    #expect(shown.stdoutText.contains("… and 19900 more item(s)"), "\(shown)")
    guard let id = asks.first?["id"] as? Int else { return }
    let declined = try arena.receiver.share("decline", String(id))
    #expect(declined.exited(with: 0), "\(declined)")
    #expect(mallory.waitForClose(), "the declined stranger's connection stayed open")
    arena.expectIntact()
  }

  // MARK: Pre-authentication parsing (garbage before and after TLS, huge lengths, truncated JSON)

  @Test func garbageBeforeAndAfterTheHandshakeIsDroppedAndTheDaemonKeepsServing() throws {
    let arena = try Arena()
    var random = SystemRandomNumberGenerator()
    let noise = (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &random) }
    // Before TLS: noise, a TLS record header promising more than it sends, a bare HTTP request.
    for opening in [noise, [0x16, 0x03, 0x01, 0xFF, 0xFF, 0x01, 0x00, 0xFF, 0xFC, 0x03, 0x03], Array("GET / HTTP/1.1\r\n\r\n".utf8)] {
      let plain = try PlainConnection(port: arena.daemon.port)
      try? plain.send(bytes: opening)
      #expect(plain.readToEnd() != nil, "the daemon kept a garbage connection open")
    }
    // After TLS, before and instead of a Hello.
    let frames: [[UInt8]] = [
      Array(noise.prefix(4096)),
      FrameHeader(kind: .control, length: 0xFFFF_FFFF).encoded,
      FrameHeader(kind: .data, length: 0xFFFF_FFFF).encoded,
      [0x09, 0, 0, 0, 4, 1, 2, 3, 4],
      FrameHeader(kind: .data, length: 4).encoded + [1, 2, 3, 4],
      FrameHeader(kind: .begin, length: 16).encoded + BeginFrame(item: 0).encoded,
      complete(Array(#"{"type":"hello","version":1,"na"#.utf8)),
      MessageCodec.frame(.ask(Ask(items: [ItemOffer(id: 0, kind: .file, name: "x.txt", size: 1)]))),
    ]
    for bytes in frames {
      let mallory = try arena.peer()
      try? mallory.sendRaw(bytes)
      #expect(mallory.waitForClose(), "the daemon kept the connection open after \(bytes.prefix(8))")
    }
    // After Hello: a second Hello, a truncated message, an item nobody offered, an absurd size.
    let sequences: [[UInt8]] = [
      MessageCodec.frame(.hello(Hello(name: "again", id: String(repeating: "a", count: 64)))),
      complete(Array(#"{"type":"ask","items":[{"id":0,"ki"#.utf8)),
      FrameHeader(kind: .begin, length: 16).encoded + BeginFrame(item: 7).encoded,
      MessageCodec.frame(.ask(Ask(items: [ItemOffer(id: 0, kind: .file, name: "big.bin", size: Int64.max)]))),
    ]
    for bytes in sequences {
      let mallory = try arena.peer()
      try mallory.hello()
      try? mallory.sendRaw(bytes)
      mallory.tls.shutdown()
      _ = mallory.waitForClose()
    }
    arena.expectIntact()
  }

  /// A control frame whose length is that of `payload`: a whole frame of truncated JSON (a frame
  /// that promises more bytes than it brings is a slow peer, not a parse error).
  private func complete(_ payload: [UInt8]) -> [UInt8] {
    FrameHeader(kind: .control, length: payload.count).encoded + payload
  }
}
