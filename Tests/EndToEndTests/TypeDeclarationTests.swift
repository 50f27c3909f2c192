import Foundation
import Glibc
import Testing

/// The receiver's type declarations, end to end: a daemon with the DEFAULT declarations judges
/// every item by name and by content, the sender hears why, and nothing refused is kept
/// anywhere; `share types` explains the rules; a home's own file replaces the default, and a
/// malformed one stops the daemon with an error that names the key.
@Suite struct TypeDeclarationTests {
  /// The program copied as `evil.png`: an ELF executable whatever its name says.
  static let program = URL(fileURLWithPath: "/bin/true")
  static let script = "#!/bin/sh\necho owned > /tmp/owned\n"

  /// The files the issue's type scenario sends, in alice's scratch folder.
  func scenarioFiles(_ a: ShareHome) throws -> (photo: URL, evil: URL, run: URL) {
    (try a.pngFile("photo.png"), try a.copy(Self.program, as: "evil.png"), try a.file("run.sh", Self.script))
  }

  @Test func aDefaultReceiverStoresTheRealPhotoAndRefusesAnExecutableNamedPNGAndAScriptLeavingNoTraceOfThem() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    #expect(daemon.waitForLog("type declarations: built-in default"), "\(daemon.log)")
    let (photo, evil, run) = try scenarioFiles(a)

    let sent = try a.share("send", photo.path, evil.path, run.path, "--to", daemon.address)
    #expect(sent.exited(with: 3), "some stored, some refused: \(sent)")
    // Both reasons reach the sender: the ELF by its content, the script by its name.
    #expect(sent.stdoutLines.count == 3, "\(sent)")
    #expect(sent.stdoutLines.first == "stored   photo.png", "\(sent)")
    let evilLine = try #require(sent.stdoutLines.first { $0.hasPrefix("refused  evil.png: ") }, "\(sent)")
    #expect(evilLine.contains("does not accept executables") && evilLine.contains("Unix executable"), "\(evilLine)")
    let runLine = try #require(sent.stdoutLines.first { $0.hasPrefix("refused  run.sh: ") }, "\(sent)")
    #expect(runLine.contains("does not accept scripts") && runLine.contains("shell script"), "\(runLine)")
    // The script is refused at Ask time, before any byte moves; the sender says so as it happens.
    // Named as the "Connected to" line names it (review 23: by HOST:PORT there, by name before).
    #expect(sent.stderrLines.contains { $0.hasPrefix("Warning: bob refuses run.sh: ") }, "\(sent)")
    #expect(sent.stderrLines.last?.hasPrefix("1 of 3 stored in bob's Inbox: ") == true, "\(sent)")

    // Only the photo arrived, intact and typed by its content.
    #expect(b.inboxNames() == ["photo.png"])
    #expect(filesAreIdentical(photo, b.inbox.appendingPathComponent("photo.png")))
    let listed = try b.listedItems()
    #expect(listed.count == 1 && listed.first?["type"] as? String == "public.png", "\(listed)")

    // Nothing of the others anywhere under Documents (staging and metadata included): no file
    // holds their bytes, and no name recalls them.
    #expect(b.stagingEntries().isEmpty, "staging: \(b.stagingEntries())")
    let elfHead = try #require(FileManager.default.contents(atPath: Self.program.path)).prefix(256)
    #expect(files(under: b.documents, containing: Data(elfHead)).isEmpty)
    #expect(files(under: b.documents, containing: Data(Self.script.utf8)).isEmpty)
    let names = everything(under: b.documents).map(\.lastPathComponent)
    #expect(!names.contains { $0.contains("evil") || $0.contains("run.sh") }, "\(names)")

    // The daemon logged both refusals and kept serving.
    #expect(daemon.waitForLog("1 stored, 2 refused, 0 failed"), "\(daemon.log)")
    #expect(daemon.log.contains("refused evil.png from alice"), "\(daemon.log)")
    #expect(daemon.log.contains("refused run.sh from alice"), "\(daemon.log)")
    #expect(daemon.isRunning)
  }

  @Test func aSendWhereEveryItemIsRefusedExits4AndStoresNothing() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let (_, evil, run) = try scenarioFiles(a)
    // A desktop entry under a harmless name: refused by its content.
    let launcher = try a.file("holiday.txt", "[Desktop Entry]\nType=Application\nName=Holiday\nExec=sh -c 'echo owned'\n")

    let sent = try a.share("send", evil.path, run.path, launcher.path, "--to", daemon.address)
    #expect(sent.exited(with: 4), "\(sent)")
    #expect(sent.stdoutLines.count == 3 && sent.stdoutLines.allSatisfy { $0.hasPrefix("refused  ") }, "\(sent)")
    let launcherLine = try #require(sent.stdoutLines.first { $0.hasPrefix("refused  holiday.txt: ") }, "\(sent)")
    #expect(launcherLine.contains("does not accept desktop entries"), "\(launcherLine)")
    #expect(sent.stderrLines.last?.hasPrefix("0 of 3 stored in bob's Inbox") == true, "\(sent)")
    #expect(b.inboxNames().isEmpty)
    #expect(b.stagingEntries().isEmpty)

    let json = try a.share("send", evil.path, run.path, "--to", daemon.address, "--json")
    #expect(json.exited(with: 4), "\(json)")
    let events = try parseJSONLines(json.stdoutText)
    let refused = events.filter { $0["event"] as? String == "refused" }
    #expect(Set(refused.compactMap { $0["item"] as? String }) == ["evil.png", "run.sh"], "\(json)")
    #expect(refused.allSatisfy { ($0["reason"] as? String)?.isEmpty == false }, "\(json)")
    let done = try #require(events.last)
    #expect(done["event"] as? String == "done" && (done["refused"] as? NSNumber)?.intValue == 2, "\(done)")
  }

  @Test func aHomesOwnDeclarationsReplaceTheDefault() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    try b.acceptEverything()
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    #expect(daemon.waitForLog("type declarations: \(b.declarations.path)"), "\(daemon.log)")
    // Unknown binary data, deterministic: random bytes now and then start like some format
    // libmagic knows (an MPEG audio frame, a DOS .COM), which would make this test flaky.
    let noise = a.files.appendingPathComponent("noise.bin")
    try Data((0..<4096).map { UInt8(($0 * 7 + 3) % 256) }).write(to: noise)
    let sent = try a.share("send", noise.path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(b.inboxNames() == ["noise.bin"])
    #expect(filesAreIdentical(noise, b.inbox.appendingPathComponent("noise.bin")))

    let types = try b.share("types")
    #expect(types.exited(with: 0), "\(types)")
    #expect(types.stdoutLines.first == "Declarations: \(b.declarations.path)", "\(types)")
    #expect(types.stdoutLines.contains("  Everything: items"), "\(types)")
    #expect(try b.share("types", "--verbose").stdoutLines.contains("  Everything: items (public.item)"))
  }

  @Test func typesPrintsTheDefaultDeclarationsAndTheirSource() throws {
    let b = try ShareHome(name: "bob")
    let types = try b.share("types")
    #expect(types.exited(with: 0), "\(types)")
    #expect(types.stderr.isEmpty, "\(types)")
    #expect(types.stdoutLines.first == "Declarations: built-in default", "\(types)")
    // Kinds by their descriptions; --verbose adds the identifiers (and --json has them alone).
    for line in [
      "  Images: images", "  Audio: audio", "  Video: movies", "  PDF documents: PDF documents",
      "  Text: plain text, text", "  Archives: archives", "  Links: URLs", "  Folders: folders",
      "Excluded: installer packages, executables, scripts, desktop entries, macro-enabled Office documents",
      "  Fonts: fonts", "  Disk images: disk images", "  Other files: data",
    ] {
      #expect(types.stdoutLines.contains(line), "no '\(line)' in:\n\(types)")
    }
    #expect(types.stdoutLines.contains { $0.hasPrefix("  Office documents: Office Open XML documents, ") }, "\(types)")
    let verbose = try b.share("types", "--verbose")
    for line in [
      "  Images: images (public.image)", "  Other files: data (public.data)",
      "Excluded: installer packages (public.installer-package), executables (public.executable), scripts (public.script), desktop entries (org.freedesktop.desktop-entry), macro-enabled Office documents (com.microsoft.office.macro-enabled)",
    ] {
      #expect(verbose.stdoutLines.contains(line), "no '\(line)' in:\n\(verbose)")
    }

    let json = try b.share("types", "--json")
    #expect(json.exited(with: 0), "\(json)")
    let objects = try parseJSONLines(json.stdoutText)
    let object = try #require(objects.first)
    #expect(objects.count == 1)
    #expect(object["source"] as? String == "built-in default")
    #expect(
      object["excluded_types"] as? [String] == [
        "public.installer-package", "public.executable", "public.script", "org.freedesktop.desktop-entry",
        "com.microsoft.office.macro-enabled",
      ])
    let groups = try #require(object["document_types"] as? [[String: Any]])
    #expect(groups.compactMap { $0["name"] as? String }.contains("Images"), "\(groups)")
  }

  @Test func typesShowPrintsAConformanceChainTagsAndTheVerdict() throws {
    let b = try ShareHome(name: "bob")
    let png = try b.share("types", "show", "public.png")
    #expect(png.exited(with: 0), "\(png)")
    #expect(png.stdoutLines.first == "public.png: PNG image", "\(png)")
    #expect(png.stdoutLines.contains("  conforms to: public.png → public.image → public.data → public.content → public.item"), "\(png)")
    #expect(png.stdoutLines.contains("  extensions:  .png"), "\(png)")
    #expect(png.stdoutLines.contains("  verdict:     accepted by \"Images\""), "\(png)")
    // By extension and by MIME type: the same type.
    for query in [".png", "image/png"] {
      let same = try b.share("types", "show", query)
      #expect(same.exited(with: 0) && same.stdoutText == png.stdoutText, "\(same)")
    }
    let script = try b.share("types", "show", ".sh")
    #expect(script.stdoutLines.first == "public.shell-script: shell script", "\(script)")
    #expect(script.stdoutLines.contains("  verdict:     excluded (conforms to public.script)"), "\(script)")

    let json = try b.share("types", "show", "public.png", "--json")
    #expect(json.exited(with: 0), "\(json)")
    let object = try #require(try parseJSONLines(json.stdoutText).first)
    #expect(object["identifier"] as? String == "public.png")
    #expect(object["accepted_by"] as? String == "Images")
    #expect((object["ancestors"] as? [String])?.contains("public.image") == true, "\(object)")

    let unknown = try b.share("types", "show", "com.example.nosuch")
    #expect(unknown.exited(with: 1), "\(unknown)")
    #expect(unknown.stderrLines.first?.hasPrefix("Error: no type com.example.nosuch is known") == true, "\(unknown)")
  }

  @Test func typesCheckExits0WhenEveryFileWouldBeAcceptedAnd3WhenSomeWouldNot() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let (photo, evil, run) = try scenarioFiles(a)

    let good = try b.share("types", "check", photo.path)
    #expect(good.exited(with: 0), "\(good)")
    #expect(
      good.stdoutLines == [
        photo.path, "  name:    PNG image", "  content: PNG image (image/png)",
        "  verdict: accepted: PNG image (\"Images\") [rule: accepted]",
      ], "\(good)")
    let verbose = try b.share("types", "check", photo.path, "--verbose")
    #expect(verbose.stdoutLines.contains("  content: PNG image (public.png, image/png)"), "\(verbose)")

    let mixed = try b.share("types", "check", photo.path, evil.path, run.path)
    #expect(mixed.exited(with: 3), "\(mixed)")
    #expect(
      mixed.stdoutLines.contains {
        $0.hasPrefix("  verdict: rejected: does not accept executables") && $0.hasSuffix("[rule: excluded-content]")
      }, "\(mixed)")
    #expect(mixed.stdoutLines.contains("  content: shell script (text/x-shellscript)"), "\(mixed)")
    // A script would get in only if scripts did: the command says so. (The ELF named .png gets
    // no command: no edit of the declarations would take a disguise.)
    #expect(
      mixed.stdoutLines.filter { $0.hasPrefix("  to accept it: ") } == ["  to accept it: share types forget public.script"], "\(mixed)")

    let json = try b.share("types", "check", "--json", photo.path, evil.path, run.path)
    #expect(json.exited(with: 3), "\(json)")
    let reports = try parseJSONLines(json.stdoutText)
    #expect(reports.count == 3, "\(json)")
    let verdicts = reports.map { ($0["path"] as? String, ($0["verdict"] as? [String: Any])?["accepted"] as? Bool) }
    #expect(verdicts.map(\.0) == [photo.path, evil.path, run.path], "\(json)")
    #expect(verdicts.map(\.1) == [true, false, false], "\(json)")
    let evilVerdict = try #require(reports[1]["verdict"] as? [String: Any])
    #expect(
      evilVerdict["rule"] as? String == "excluded-content" && evilVerdict["type"] as? String == "public.unix-executable", "\(evilVerdict)")
    #expect(evilVerdict["remedy"] == nil, "\(evilVerdict)")
    let runRemedy = try #require((reports[2]["verdict"] as? [String: Any])?["remedy"] as? [String: Any])
    #expect(runRemedy["action"] as? String == "forget" && runRemedy["types"] as? [String] == ["public.script"], "\(runRemedy)")

    let missing = try b.share("types", "check", a.files.appendingPathComponent("nosuch.png").path)
    #expect(missing.exited(with: 1), "\(missing)")

    // A folder: judged, then each file in it, as a receiver judges its entries (review 16: a
    // folder was "accepted", exit 0, whatever it held); a symbolic link is not sent, nor judged.
    let folder = a.files.appendingPathComponent("trip")
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("day 2"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("photo.png"))
    try FileManager.default.copyItem(at: evil, to: folder.appendingPathComponent("day 2/evil.png"))
    try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path, withDestinationPath: run.path)
    let checked = try b.share("types", "check", "--json", folder.path)
    #expect(checked.exited(with: 3), "\(checked)")
    let entries = try parseJSONLines(checked.stdoutText).map {
      ($0["path"] as? String ?? "", ($0["verdict"] as? [String: Any])?["accepted"] as? Bool)
    }
    #expect(entries.map(\.0) == [folder.path, folder.path + "/day 2/evil.png", folder.path + "/photo.png"], "\(checked)")
    #expect(entries.map(\.1) == [true, false, true], "\(checked)")
  }

  /// `ExcludedActivityType`, one letter short: it must not silently let executables in.
  static let misspelt = """
    <?xml version="1.0" encoding="UTF-8"?>
    <plist version="1.0"><dict>
      <key>CFBundleDocumentTypes</key>
      <array><dict>
        <key>CFBundleTypeName</key><string>Images</string>
        <key>LSItemContentTypes</key><array><string>public.image</string></array>
      </dict></array>
      <key>ExcludedActivityType</key>
      <array><string>public.executable</string></array>
    </dict></plist>
    """

  @Test func aMalformedHomeDeclarationsFileStopsTheDaemonAndTypesWithAnErrorNamingTheKey() throws {
    let b = try ShareHome(name: "bob")
    try b.writeDeclarations(Self.misspelt)
    let daemon = try b.share("daemon", "--port", "0", "--host", "127.0.0.1", timeout: .seconds(20))
    #expect(daemon.exited(with: 1), "\(daemon)")
    #expect(!daemon.stdoutText.contains("listening"), "\(daemon)")
    let error = try #require(daemon.stderrLines.first { $0.hasPrefix("Error: ") }, "\(daemon)")
    #expect(error.contains("the declarations are invalid"), "\(error)")
    #expect(error.contains(b.declarations.path), "names the file: \(error)")
    #expect(error.contains("ExcludedActivityType: unknown key (did you mean ExcludedActivityTypes?)"), "\(error)")

    for command in [["types"], ["types", "show", "public.png"], ["types", "check", try b.file("x.txt", "text\n").path]] {
      let result = try b.run(["--home", b.home.path] + command)
      #expect(result.exited(with: 1), "\(result)")
      #expect(result.stdout.isEmpty, "\(result)")
      #expect(result.stderrLines.first == error, "\(result)")
    }

    // An identifier that does not exist is named with its place in the file.
    try b.writeDeclarations(
      Self.misspelt.replacingOccurrences(of: "ExcludedActivityType<", with: "ExcludedActivityTypes<")
        .replacingOccurrences(of: "public.image", with: "public.imag"))
    let typo = try b.share("types")
    #expect(typo.exited(with: 1), "\(typo)")
    #expect(
      typo.stderrText.contains(
        #"CFBundleDocumentTypes[0].LSItemContentTypes[0]: unknown type identifier "public.imag" (did you mean public.image?)"#), "\(typo)")
  }

  @Test func aOneByteTextFileIsAcceptedAsText() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let y = try a.file("answer.txt", "y")
    let sent = try a.share("send", y.path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(b.inboxNames() == ["answer.txt"])
  }
}
