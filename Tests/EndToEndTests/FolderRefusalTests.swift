import Foundation
import Testing

/// A folder stored without some of its entries is partly stored, like loose files of which some
/// are refused (issue 12, bug 2): exit 3, and each entry not stored is named with the
/// receiver's reason in the sender's output and `--json`, in `share inbox show`, and in the
/// daemon's log.
@Suite struct FolderRefusalTests {
  /// `proj/` with a text file (stored), a shell script (refused by its name when offered) and
  /// a program named like a text file (refused on its content).
  func project(_ home: ShareHome) throws -> URL {
    let folder = home.files.appendingPathComponent("proj")
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("src"), withIntermediateDirectories: true)
    try Data("read me\n".utf8).write(to: folder.appendingPathComponent("README.txt"))
    try Data("#!/bin/sh\necho hi\n".utf8).write(to: folder.appendingPathComponent("src/run.sh"))
    try FileManager.default.copyItem(at: URL(fileURLWithPath: "/bin/true"), to: folder.appendingPathComponent("notes.txt"))
    return folder
  }

  @Test func aFolderWithRefusedEntriesExits3AndNamesEachWithItsReason() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let folder = try project(a)

    let sent = try a.share("send", folder.path, "--to", daemon.address)
    #expect(sent.exited(with: 3), "\(sent)")
    let lines = sent.stdoutLines
    #expect(lines.first?.hasPrefix("stored   proj") == true, "\(sent)")
    #expect(lines.contains { $0.contains("not stored: src/run.sh: ") && $0.contains("does not accept") }, "\(sent)")
    #expect(lines.contains { $0.contains("not stored: notes.txt: ") }, "\(sent)")
    #expect(!lines.contains { $0.contains("README.txt") }, "\(sent)")

    let json = try a.share("send", folder.path, "--to", daemon.address, "--json")
    #expect(json.exited(with: 3), "\(json)")
    let events = try parseJSONLines(json.stdoutText)
    let stored = try #require(events.first { $0["event"] as? String == "stored" })
    let refused = try #require(stored["refused_entries"] as? [[String: Any]], "\(stored)")
    #expect(Set(refused.compactMap { $0["path"] as? String }) == ["src/run.sh", "notes.txt"], "\(refused)")
    #expect(refused.allSatisfy { !(($0["reason"] as? String) ?? "").isEmpty }, "\(refused)")
    let done = try #require(events.first { $0["event"] as? String == "done" })
    #expect(done["entries_refused"] as? Int == 2, "\(done)")

    let show = try b.share("inbox", "show", "proj")
    #expect(show.exited(with: 0), "\(show)")
    #expect(show.stdoutLines.contains { $0.hasPrefix("Not stored: ") }, "\(show)")
    #expect(show.stdoutLines.filter { $0.contains("src/run.sh: ") || $0.contains("notes.txt: ") }.count == 2, "\(show)")
    let shown = try #require(try parseJSONLines(try b.share("inbox", "show", "proj", "--json").stdoutText).first)
    #expect((shown["refused_entries"] as? [[String: Any]])?.count == 2, "\(shown)")

    #expect(daemon.waitForLog("refused proj/src/run.sh from alice"), "\(daemon.log)")
    #expect(daemon.log.contains("refused proj/notes.txt from alice"), "\(daemon.log)")
    // Only the text file is in the stored folder.
    let storedFolder = b.inbox.appendingPathComponent("proj")
    #expect((try? FileManager.default.contentsOfDirectory(atPath: storedFolder.path))?.sorted() == ["README.txt", "src"])
  }

  /// Review 16: `share inbox show` named the first 100 entries not stored and stopped there,
  /// without saying there were more.
  @Test func moreEntriesNotStoredThanAreNamedAreCounted() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let folder = a.files.appendingPathComponent("scripts")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("read me\n".utf8).write(to: folder.appendingPathComponent("README.txt"))
    for index in 0..<103 {
      try Data("#!/bin/sh\necho \(index)\n".utf8).write(to: folder.appendingPathComponent("run-\(index).sh"))
    }
    #expect(try a.share("send", folder.path, "--to", daemon.address).exited(with: 3))
    let show = try b.share("inbox", "show", "scripts")
    #expect(show.stdoutLines.filter { $0.contains(".sh: ") }.count == 100, "\(show)")
    #expect(show.stdoutLines.last == "            … and 3 more", "\(show)")
    let shown = try #require(try parseJSONLines(try b.share("inbox", "show", "scripts", "--json").stdoutText).first)
    #expect(shown["entries_refused"] as? Int == 103 && (shown["refused_entries"] as? [Any])?.count == 100, "\(shown)")
    let listed = try #require(try parseJSONLines(try b.share("inbox", "list", "--json").stdoutText).first)
    #expect(listed["entries_refused"] as? Int == 103, "\(listed)")
  }
}
