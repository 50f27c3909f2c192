import Foundation
import Glibc
import Testing

/// Every kind of activity item a send can carry besides files: folders (whole, read-only, links
/// not followed), URLs, text snippets and standard input. All to a daemon with the default
/// declarations.
@Suite struct SendItemKindsTests {
  /// alice's folder `trip`: text at two depths, an empty sub-folder, and a symbolic link to a
  /// file outside it that must not be followed.
  func tripFolder(_ a: ShareHome) throws -> URL {
    let trip = a.files.appendingPathComponent("trip")
    let fileManager = FileManager.default
    try fileManager.createDirectory(at: trip.appendingPathComponent("days/monday"), withIntermediateDirectories: true)
    try fileManager.createDirectory(at: trip.appendingPathComponent("empty"), withIntermediateDirectories: true)
    try Data("packing list\n".utf8).write(to: trip.appendingPathComponent("list.txt"))
    try Data("went to the lake\n".utf8).write(to: trip.appendingPathComponent("days/monday/notes.txt"))
    try tinyPNG.write(to: trip.appendingPathComponent("days/photo.png"))
    let secret = try a.file("secret.txt", "not to be shared\n")
    try fileManager.createSymbolicLink(atPath: trip.appendingPathComponent("days/secret-link").path, withDestinationPath: secret.path)
    return trip
  }

  @Test func aFolderArrivesWholeAndReadOnlyWithItsStructureAndItsSymlinkIsReportedNotFollowed() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let trip = try tripFolder(a)

    let sent = try a.share("send", trip.path, "--to", daemon.address)
    // Not everything named went (review 16: it exited 0, "1 of 1 stored").
    #expect(sent.exited(with: 3), "\(sent)")
    #expect(sent.stdoutLines == ["stored   trip"], "\(sent)")
    // The link is a warning on stderr, before anything is sent, and counted at the end.
    #expect(
      sent.stderrLines.first == "Warning: skipped symbolic link days/secret-link -> \(a.files.path)/secret.txt (links are not followed)",
      "\(sent)")
    #expect(sent.stderrLines.dropLast().last?.hasPrefix("1 of 1 stored in bob's Inbox: ") == true, "\(sent)")
    #expect(sent.stderrLines.last == "1 entry of the folders named left out here, not sent (see the warnings)", "\(sent)")

    // The same tree: files identical, the empty folder there, the link nowhere.
    let stored = b.inbox.appendingPathComponent("trip")
    let tree = Set(everything(under: stored).map { String($0.path.dropFirst(stored.path.count + 1)) })
    #expect(tree == ["list.txt", "days", "days/monday", "days/monday/notes.txt", "days/photo.png", "empty"], "\(tree)")
    for path in ["list.txt", "days/monday/notes.txt", "days/photo.png"] {
      #expect(filesAreIdentical(trip.appendingPathComponent(path), stored.appendingPathComponent(path)), "\(path)")
    }
    #expect(files(under: b.documents, containing: Data("not to be shared".utf8)).isEmpty, "the link was followed")

    // Read-only all the way down: no write bit on the folder, its sub-folders or its files.
    for url in [stored] + everything(under: stored) {
      let mode = try #require(permissions(url))
      #expect(mode & 0o222 == 0, "\(url.path) has mode \(String(mode, radix: 8))")
    }
    #expect(permissions(stored.appendingPathComponent("days")) == 0o555)
    #expect(permissions(stored.appendingPathComponent("list.txt")) == 0o444)

    let listed = try b.listedItems()
    #expect(listed.count == 1, "\(listed)")
    #expect(listed.first?["name"] as? String == "trip")
    #expect(listed.first?["kind"] as? String == "folder", "\(listed)")
    #expect(b.stagingEntries().isEmpty)

    // A folder moves out whole and becomes writable again.
    let moved = try b.share("inbox", "move", "trip")
    #expect(moved.exited(with: 0), "\(moved)")
    let out = b.documents.appendingPathComponent("trip")
    #expect(filesAreIdentical(trip.appendingPathComponent("days/monday/notes.txt"), out.appendingPathComponent("days/monday/notes.txt")))
    #expect((permissions(out.appendingPathComponent("days")) ?? 0) & 0o200 != 0, "the moved folder is not writable")
    #expect(b.inboxNames().isEmpty)
  }

  /// Review 17: a received repository's `.git/config` named a command (`core.fsmonitor`) that
  /// `git status` in the Inbox then ran. Its control folder is not stored; the rest is.
  @Test func aRepositorysGitFolderIsNotStoredSoGitRunsNothingOfTheSenders() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let repo = a.files.appendingPathComponent("repo")
    try FileManager.default.createDirectory(at: repo, withIntermediateDirectories: true)
    try Data("hello\n".utf8).write(to: repo.appendingPathComponent("README.txt"))
    let marker = b.documents.appendingPathComponent("fsmonitor-ran")
    func git(_ arguments: String..., in folder: URL) throws -> CommandResult {
      try ChildProcess(
        executable: URL(fileURLWithPath: "/usr/bin/git"), arguments: ["-C", folder.path] + arguments,
        environment: ["PATH": "/usr/bin:/bin", "HOME": a.files.path, "GIT_CONFIG_NOSYSTEM": "1"]
      ).wait(timeout: .seconds(30))
    }
    #expect(try git("init", "-q", ".", in: repo).exited(with: 0))
    #expect(try git("config", "core.fsmonitor", "touch \(marker.path); false", in: repo).exited(with: 0))

    let sent = try a.share("send", repo.path, "--to", daemon.address)
    #expect(sent.exited(with: 3), "\(sent)")
    #expect(sent.stdoutText.contains("not stored: .git: a version-control folder"), "\(sent)")
    let stored = b.inbox.appendingPathComponent("repo")
    #expect(FileManager.default.fileExists(atPath: stored.appendingPathComponent("README.txt").path))
    #expect(!FileManager.default.fileExists(atPath: stored.appendingPathComponent(".git").path))
    _ = try git("status", in: stored)
    #expect(!FileManager.default.fileExists(atPath: marker.path), "git ran the sender's command")
    // Nor is a folder item called .git.
    let named = try a.share("send", repo.appendingPathComponent(".git").path, "--to", daemon.address)
    #expect(named.exited(with: 4) && b.inboxNames() == ["repo"], "\(named)")
  }

  /// Review 16: `done` had `entries_refused` only when it was not 0, and said nothing of the
  /// entries left out here; a receiver that could not be reached was a `failed` event without the
  /// `reason` every other `failed` event has.
  @Test func theJSONStreamCountsEntriesLeftOutAndEveryFailedEventHasAReason() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let trip = try tripFolder(a)
    #expect(mkfifo(trip.appendingPathComponent("pipe").path, 0o600) == 0)

    let sent = try a.share("send", trip.path, "--to", daemon.address, "--json")
    #expect(sent.exited(with: 3), "\(sent)")
    let events = try parseJSONLines(sent.stdoutText)
    #expect(events.filter { $0["event"] as? String == "warning" }.count == 2, "\(sent)")
    let done = try #require(events.first { $0["event"] as? String == "done" }, "\(sent)")
    #expect(done["entries_skipped"] as? Int == 2 && done["entries_refused"] as? Int == 0, "\(done)")

    let file = try a.file("notes.txt", "hello\n")
    let unreachable = try a.share("send", file.path, "--to", daemon.address, "--to", "127.0.0.1:1", "--json")
    #expect(unreachable.exited(with: 1), "\(unreachable)")
    let failed = try #require(try parseJSONLines(unreachable.stdoutText).first { $0["event"] as? String == "failed" })
    #expect(failed["item"] == nil && failed["to"] as? String == "127.0.0.1:1", "\(failed)")
    #expect((failed["reason"] as? String)?.isEmpty == false && failed["reason"] as? String == failed["message"] as? String, "\(failed)")
    let stored = try #require(try parseJSONLines(unreachable.stdoutText).first { $0["event"] as? String == "done" })
    #expect(stored["entries_skipped"] as? Int == 0 && stored["entries_refused"] as? Int == 0, "\(stored)")
  }

  @Test func aScriptInsideAFolderIsLeftOutAndTheRestOfTheFolderIsStored() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let project = a.files.appendingPathComponent("project")
    try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
    try Data("read me first\n".utf8).write(to: project.appendingPathComponent("README.txt"))
    try Data("#!/bin/sh\nrm -rf ~\n".utf8).write(to: project.appendingPathComponent("install.sh"))

    let sent = try a.share("send", project.path, "--to", daemon.address)
    #expect(sent.exited(with: 3), "\(sent)")
    #expect(sent.stdoutLines.count == 2 && sent.stdoutLines[0].hasPrefix("stored   project ("), "\(sent)")
    #expect(sent.stdoutLines.first?.contains("1 of its entries were not stored") == true, "\(sent)")
    #expect(sent.stdoutLines.last?.contains("not stored: install.sh: bob does not accept scripts") == true, "\(sent)")
    let stored = b.inbox.appendingPathComponent("project")
    #expect(Set(everything(under: stored).map(\.lastPathComponent)) == ["README.txt"])
    #expect(files(under: b.documents, containing: Data("rm -rf".utf8)).isEmpty)
  }

  @Test func aURLArgumentAndTextAreStoredAsURLAndTXTFiles() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }

    let sent = try a.share(
      "send", "https://example.com/guide/intro.html", "--url", "https://example.org", "--text", "see you at 6",
      "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(sent.stdoutLines == ["stored   example.com-intro.html.url", "stored   example.org.url", "stored   text.txt"], "\(sent)")
    let inbox = b.inbox
    #expect(b.inboxNames() == ["example.com-intro.html.url", "example.org.url", "text.txt"])
    #expect(
      FileManager.default.contents(atPath: inbox.appendingPathComponent("example.com-intro.html.url").path)
        == Data("https://example.com/guide/intro.html\n".utf8))
    #expect(
      FileManager.default.contents(atPath: inbox.appendingPathComponent("example.org.url").path) == Data("https://example.org\n".utf8))
    // Exactly the text, nothing added.
    #expect(FileManager.default.contents(atPath: inbox.appendingPathComponent("text.txt").path) == Data("see you at 6".utf8))

    let listed = try b.listedItems()
    let kinds = Dictionary(
      uniqueKeysWithValues: listed.compactMap { item in
        (item["name"] as? String).map { ($0, item["kind"] as? String ?? "?") }
      })
    #expect(kinds == ["example.com-intro.html.url": "url", "example.org.url": "url", "text.txt": "text"], "\(listed)")

    // --name names a text item.
    let named = try a.share("send", "--text", "milk, eggs", "--name", "shopping", "--to", daemon.address)
    #expect(named.exited(with: 0), "\(named)")
    #expect(named.stdoutLines == ["stored   shopping.txt"], "\(named)")
    #expect(FileManager.default.contents(atPath: inbox.appendingPathComponent("shopping.txt").path) == Data("milk, eggs".utf8))
  }

  @Test func standardInputIsSentWithDashAndNamedWithName() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    // Several MiB of text through a pipe: more than one data frame, of a size nobody declared.
    let line = "the quick brown fox jumps over the lazy dog 0123456789\n"
    let text = Data(String(repeating: line, count: (3 << 20) / line.utf8.count).utf8)

    let sent = try a.run(["--home", a.home.path, "send", "-", "--name", "fox.txt", "--to", daemon.address], stdin: text)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(sent.stdoutLines == ["stored   fox.txt"], "\(sent)")
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("fox.txt").path) == text)
    let listed = try b.listedItems()
    #expect((listed.first?["size"] as? NSNumber)?.intValue == text.count, "\(listed)")

    // Without --name it is called stdin, with the extension of what its content is: text.
    let unnamed = try a.run(["--home", a.home.path, "send", "-", "--to", daemon.address], stdin: Data("piped\n".utf8))
    #expect(unnamed.exited(with: 0), "\(unnamed)")
    #expect(unnamed.stdoutLines == ["stored   stdin.txt"], "\(unnamed)")
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("stdin.txt").path) == Data("piped\n".utf8))
    #expect(!unnamed.stderrText.contains("standard input is empty"), "\(unnamed)")
    // Empty, as when the command before '|' failed: sent, and said (review 32).
    let empty = try a.run(["--home", a.home.path, "send", "-", "--to", daemon.address, "--dry-run"], stdin: Data())
    #expect(empty.exited(with: 0) && empty.stderrText.contains("Warning: standard input is empty"), "\(empty)")

    // And an executable piped in under an innocent name is judged by its content all the same.
    let program = try #require(FileManager.default.contents(atPath: "/bin/true"))
    let disguised = try a.run(["--home", a.home.path, "send", "-", "--name", "cat.png", "--to", daemon.address], stdin: program)
    #expect(disguised.exited(with: 4), "\(disguised)")
    #expect(disguised.stdoutLines.first?.hasPrefix("refused  cat.png: bob does not accept executables") == true, "\(disguised)")
    #expect(b.inboxNames() == ["fox.txt", "stdin.txt"])
  }
}
