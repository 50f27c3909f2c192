import Foundation
import Glibc
import Testing

/// `share types accept|exclude|forget|reset` on the built binary, against a running daemon: the
/// issue's scenario (`share send big.iso` stored by default, refused after `share types exclude
/// .iso`, stored again after `forget` or `reset`, never a restart, never the XML by hand), the
/// owner told how to accept a refused item, and clear errors that leave the file alone.
@Suite struct TypesEditTests {
  /// A real ISO 9660 image: made with genisoimage (scripts/corpus.sh installs it), else the
  /// corpus's own `big.iso`.
  func isoImage(_ home: ShareHome) throws -> URL {
    let image = home.files.appendingPathComponent("big.iso")
    let folder = home.files.appendingPathComponent("iso-content")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("files for the disk image\n".utf8).write(to: folder.appendingPathComponent("readme.txt"))
    if let tool = ["/usr/bin/genisoimage", "/usr/bin/mkisofs"].first(where: FileManager.default.isExecutableFile) {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: tool)
      process.arguments = ["-quiet", "-V", "SHARE_DATA", "-J", "-r", "-o", image.path, folder.path]
      try process.run()
      process.waitUntilExit()
      if process.terminationStatus == 0 { return image }
    }
    let environment = ProcessInfo.processInfo.environment
    let corpus =
      environment["SHARE_CORPUS"].map { URL(fileURLWithPath: $0) }
      ?? URL(fileURLWithPath: environment["HOME"] ?? "/root").appendingPathComponent(".cache/share-corpus/files")
    let cached = corpus.appendingPathComponent("big.iso")
    guard FileManager.default.fileExists(atPath: cached.path) else {
      throw HarnessError("an ISO image is needed: install genisoimage (apt-get install genisoimage), or run scripts/corpus.sh")
    }
    try FileManager.default.copyItem(at: cached, to: image)
    return image
  }

  @Test func aDefaultReceiverStoresBigISOExcludeRefusesTheNextAndForgetAndResetBringItBackWithoutARestart() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let iso = try isoImage(a)

    let first = try a.share("send", iso.path, "--to", daemon.address)
    #expect(first.exited(with: 0) && first.stdoutLines == ["stored   big.iso"], "\(first)")
    #expect(filesAreIdentical(iso, b.inbox.appendingPathComponent("big.iso")))

    // The owner excludes disk images of this kind, from the command line.
    let exclude = try b.share("types", "exclude", ".iso")
    #expect(exclude.exited(with: 0), "\(exclude)")
    #expect(exclude.stdoutLines == ["ISO disk images (.iso): excluded"], "\(exclude)")
    #expect(exclude.stderrLines == ["Wrote \(b.declarations.path); the running daemon has reloaded them."], "\(exclude)")
    #expect(daemon.waitForLog("reloaded type declarations (\(b.declarations.path))"), "\(daemon.log)")
    // A valid, readable XML plist that keeps the rest of the default.
    let data = try Data(contentsOf: b.declarations)
    var format = PropertyListSerialization.PropertyListFormat.binary
    let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: &format) as? [String: Any])
    #expect(format == .xml)
    let excluded = try #require(plist["ExcludedActivityTypes"] as? [String])
    #expect(excluded.last == "public.iso-image" && excluded.contains("public.executable"), "\(excluded)")
    #expect((plist["CFBundleDocumentTypes"] as? [[String: Any]])?.count == 17, "\(plist)")
    let types = try b.share("types")
    #expect(types.stdoutLines.first == "Declarations: \(b.declarations.path)", "\(types)")
    #expect(types.stdoutLines.contains { $0.hasPrefix("Excluded: ") && $0.hasSuffix(", ISO disk images") }, "\(types)")

    // The next send is refused, in one line that says who refuses what; the owner's log says how to undo it.
    let refused = try a.share("send", iso.path, "--to", daemon.address)
    #expect(refused.exited(with: 4), "\(refused)")
    #expect(refused.stdoutLines == ["refused  big.iso: bob does not accept ISO disk images (big.iso)"], "\(refused)")
    #expect(daemon.waitForLog("refused big.iso from alice"), "\(daemon.log)")
    let logLine = try #require(daemon.log.split(separator: "\n").first { $0.contains("refused big.iso from alice") })
    #expect(logLine.hasSuffix(": bob does not accept ISO disk images (big.iso); to accept it: share types accept .iso"), "\(logLine)")
    #expect(b.inboxNames() == ["big.iso"] && b.stagingEntries().isEmpty)

    // forget: the default's "Disk images" decides again.
    let forget = try b.share("types", "forget", ".iso")
    #expect(
      forget.exited(with: 0) && forget.stdoutLines == ["ISO disk images (.iso): forgotten; now accepted by \"Disk images\""], "\(forget)")
    #expect(try a.share("send", iso.path, "--to", daemon.address).exited(with: 0))
    #expect(b.inboxNames() == ["big.iso", "big-1.iso"], "\(b.inboxNames())")

    // reset: back to the built-in default, the file gone.
    #expect(try b.share("types", "exclude", "application/x-cd-image").exited(with: 0))
    #expect(try a.share("send", iso.path, "--to", daemon.address).exited(with: 4))
    let reset = try b.share("types", "reset")
    #expect(reset.exited(with: 0), "\(reset)")
    #expect(
      reset.stderrLines.last?.hasPrefix("Removed \(b.declarations.path): the built-in default declarations are in force") == true,
      "\(reset)")
    #expect(!FileManager.default.fileExists(atPath: b.declarations.path))
    #expect(daemon.waitForLog("reloaded type declarations (built-in default)"), "\(daemon.log)")
    #expect(try a.share("send", iso.path, "--to", daemon.address).exited(with: 0))
    #expect(b.inboxNames().count == 3, "\(b.inboxNames())")
    // One daemon all along: no restart.
    #expect(daemon.isRunning)
  }

  @Test func aStrangersAskShowsTheOwnerTheRefusalAndTheCommandThatWouldAcceptIt() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    // Edited before any daemon runs: the next start reads it.
    let exclude = try b.share("types", "exclude", ".iso")
    #expect(exclude.exited(with: 0), "\(exclude)")
    #expect(exclude.stderrLines.last == "Wrote \(b.declarations.path); no daemon is running (the next one starts with them).", "\(exclude)")
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    #expect(daemon.waitForLog("type declarations: \(b.declarations.path)"), "\(daemon.log)")
    let iso = try isoImage(a)
    let notes = try a.file("notes.txt", "see you at 6\n")

    let sender = try a.startShare("send", iso.path, notes.path, "--to", daemon.address)
    #expect(daemon.waitForLog("asks to send 2 item(s)"), "\(daemon.log)")
    let requests = try b.share("requests")
    #expect(requests.exited(with: 0), "\(requests)")
    let isoLine = try #require(requests.stdoutLines.first { $0.hasPrefix("    file big.iso, ") }, "\(requests)")
    #expect(isoLine.hasSuffix(", ISO disk image — will be refused: bob does not accept ISO disk images (big.iso)"), "\(isoLine)")
    #expect(requests.stdoutLines.contains("      to accept it: share types accept .iso"), "\(requests)")
    #expect(requests.stdoutLines.contains { $0.hasPrefix("    file notes.txt, ") && $0.hasSuffix(", plain text") }, "\(requests)")
    let verbose = try b.share("requests", "--verbose")
    #expect(verbose.stdoutLines.contains { $0.contains(", ISO disk image (public.iso-image) — will be refused") }, "\(verbose)")
    let json = try b.share("requests", "--json")
    let ask = try #require(try parseJSONLines(json.stdoutText).first)
    let items = try #require(ask["items"] as? [[String: Any]])
    #expect(items.first?["accept_with"] as? String == "share types accept .iso", "\(items)")
    #expect(items.first?["type"] as? String == "public.iso-image" && items.first?["type_description"] as? String == "ISO disk image")
    #expect(items.last?["accept_with"] == nil, "\(items)")

    let id = try #require((ask["id"] as? NSNumber)?.stringValue)
    #expect(try b.share("accept", id).exited(with: 0))
    let sent = sender.wait()
    #expect(sent.exited(with: 3), "\(sent)")
    #expect(sent.stdoutLines.contains("refused  big.iso: bob does not accept ISO disk images (big.iso)"), "\(sent)")
    #expect(b.inboxNames() == ["notes.txt"])
  }

  @Test func refusedEditsSayWhyAndLeaveTheFileAsItWas() throws {
    let b = try ShareHome(name: "bob")
    let exe = try b.share("types", "accept", ".iso", ".exe")
    #expect(exe.exited(with: 1) && exe.stdout.isEmpty, "\(exe)")
    #expect(
      exe.stderrLines.first?.hasPrefix(
        "Error: cannot accept Windows executables (.exe): they are executables (public.executable), which are excluded") == true, "\(exe)")
    #expect(exe.stderrText.contains("'share types forget public.executable'"), "\(exe)")
    let unknown = try b.share("types", "exclude", ".nobody-knows-this")
    #expect(
      unknown.exited(with: 1) && unknown.stderrLines == ["Error: no type is known for the extension .nobody-knows-this"], "\(unknown)")
    #expect(!FileManager.default.fileExists(atPath: b.declarations.path))
    let usage = try b.share("types", "forget")
    #expect(usage.exited(with: 64) && usage.stderrLines.contains { $0.hasPrefix("Usage: share types forget TYPE...") }, "\(usage)")

    // A damaged file is reported, never edited; reset recovers.
    let damaged = "<plist version=\"1.0\"><dict><key>ExcludedActivityTypes</key><strin>public.executable</string></dict></plist>\n"
    try b.writeDeclarations(damaged)
    let edit = try b.share("types", "exclude", ".iso")
    #expect(edit.exited(with: 1), "\(edit)")
    #expect(edit.stderrText.contains(b.declarations.path) && edit.stderrText.contains("'share types reset'"), "\(edit)")
    #expect(try String(contentsOf: b.declarations, encoding: .utf8) == damaged)
    #expect(try b.share("types", "reset").exited(with: 0))

    // --json: one object with each type's outcome, the file and the daemon's.
    let json = try b.share("types", "exclude", ".iso", "public.font", "--json")
    #expect(json.exited(with: 0) && json.stderr.isEmpty, "\(json)")
    let object = try #require(try parseJSONLines(json.stdoutText).first)
    #expect(object["action"] as? String == "exclude" && object["written"] as? Bool == true)
    #expect(object["daemon"] as? String == "not-running" && object["path"] as? String == b.declarations.path)
    let outcomes = try #require(object["types"] as? [[String: Any]])
    #expect(outcomes.compactMap { $0["type"] as? String } == ["public.iso-image", "public.font"], "\(outcomes)")
    #expect(outcomes.last?["changes"] as? [String] == ["excluded", "unaccepted"], "\(outcomes)")
    // Review 20: two arguments naming one type each have their outcome (the second was left out).
    let twice = try b.share("types", "forget", "image/png", ".png", ".iso", "--json")
    let named = try #require(try parseJSONLines(twice.stdoutText).first?["types"] as? [[String: Any]])
    #expect(named.compactMap { $0["argument"] as? String } == ["image/png", ".png", ".iso"], "\(twice)")
    #expect(named.compactMap { $0["type"] as? String } == ["public.png", "public.png", "public.iso-image"], "\(twice)")
    #expect(try b.share("help", "types", "accept").stdoutText == (try b.share("types", "accept", "--help")).stdoutText)
  }
}
