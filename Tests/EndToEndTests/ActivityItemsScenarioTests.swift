import Foundation
import Testing

/// The activity-items issue's done-when, end to end: one `share send` of a folder of 1,000 files
/// in nested subfolders (and a symlink), a URL, a text and a 256 MiB file, to two receivers at
/// once with `--json`; everything arrives whole and correctly typed in both Inboxes.
@Suite struct ActivityItemsScenarioTests {
  @Test func aFolderOfAThousandFilesAURLATextAndABigFileReachTwoReceiversWhole() throws {
    let a = try ShareHome(name: "alice")
    let (b, c) = (try ShareHome(name: "bob"), try ShareHome(name: "carol"))
    let (bob, carol) = (try b.startDaemon(trusting: [a]), try c.startDaemon(trusting: [a]))
    defer {
      _ = bob.stop()
      _ = carol.stop()
    }
    // 1,000 small text files in 10 folders of 10 sub-folders, and a symlink that must not be followed.
    let project = a.files.appendingPathComponent("project")
    for i in 0..<10 {
      for j in 0..<10 {
        let folder = project.appendingPathComponent("part-\(i)/section-\(j)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for k in 0..<10 {
          try "file \(i)-\(j)-\(k)\n".write(to: folder.appendingPathComponent("note-\(k).txt"), atomically: false, encoding: .utf8)
        }
      }
    }
    try FileManager.default.createSymbolicLink(atPath: project.appendingPathComponent("secrets").path, withDestinationPath: "/etc")
    // 256 MiB of text: typed as plain text by name and by content.
    let big = a.files.appendingPathComponent("big.txt")
    let line = Data(String(repeating: "the quick brown fox jumps over the lazy dog 0123456789\n", count: 1).utf8)
    var chunk = Data()
    while chunk.count < 1 << 20 { chunk.append(line) }
    chunk = chunk.prefix(1 << 20)
    FileManager.default.createFile(atPath: big.path, contents: nil)
    let handle = try FileHandle(forWritingTo: big)
    for _ in 0..<256 { try handle.write(contentsOf: chunk) }
    try handle.close()

    let sent = try a.share(
      "send", project.path, "https://example.com/agenda?day=1", "--text", "see you at 6", "--name", "plan", big.path,
      "--to", bob.address, "--to", carol.address, "--json", timeout: .seconds(240))
    // Every item stored, but the folder's link was left out: not everything named went.
    #expect(sent.exited(with: 3), "\(sent)")
    // Every line is one JSON object; each names its receiver.
    let events = try parseJSONLines(sent.stdoutText)
    #expect(!events.isEmpty && events.allSatisfy { $0["event"] is String })
    #expect(
      events.contains { $0["event"] as? String == "warning" && ($0["message"] as? String)?.contains("secrets") == true },
      "the symlink is reported: \(sent.stdoutText.prefix(2000))")
    for daemon in [bob, carol] {
      let done = events.first { $0["event"] as? String == "done" && $0["to"] as? String == daemon.address }
      #expect((done?["stored"] as? NSNumber)?.intValue == 4, "\(String(describing: done))")
      #expect(done?["entries_skipped"] as? Int == 1, "\(String(describing: done))")
    }

    for home in [b, c] {
      #expect(home.inboxNames() == ["project", "example.com-agenda.url", "plan.txt", "big.txt"], "\(home.name): \(home.inboxNames())")
      let stored = home.inbox.appendingPathComponent("project")
      let files = everything(under: stored).filter { !$0.hasDirectoryPath && $0.pathExtension == "txt" }
      #expect(files.count == 1000, "\(home.name): \(files.count) files")
      #expect((try? String(contentsOf: stored.appendingPathComponent("part-7/section-3/note-9.txt"), encoding: .utf8)) == "file 7-3-9\n")
      #expect(!FileManager.default.fileExists(atPath: stored.appendingPathComponent("secrets").path))
      #expect(filesAreIdentical(big, home.inbox.appendingPathComponent("big.txt")))
      #expect((try? String(contentsOf: home.inbox.appendingPathComponent("plan.txt"), encoding: .utf8)) == "see you at 6")
      #expect(
        (try? String(contentsOf: home.inbox.appendingPathComponent("example.com-agenda.url"), encoding: .utf8))
          == "https://example.com/agenda?day=1\n")
      let types = Dictionary(
        uniqueKeysWithValues: try home.listedItems().compactMap { item in
          (item["name"] as? String).map { ($0, item["type"] as? String ?? "") }
        })
      #expect(types["project"] == "public.folder")
      #expect(types["example.com-agenda.url"] == "public.url")
      #expect(types["plan.txt"] == "public.utf8-plain-text")
      #expect(types["big.txt"] == "public.plain-text")
    }
  }
}
