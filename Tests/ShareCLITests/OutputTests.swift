import Foundation
import Testing

@testable import ShareCLI

/// What commands print: data on stdout, messages on stderr, `--json` one object per line.
@Suite struct OutputTests {
  struct Sample: Encodable {
    var deviceName: String
    var sizeInBytes: Int
  }

  @Test func aJSONLineHasSnakeCaseKeysAndNoRawControlOrBidiCharacters() throws {
    let hostile = "evil\u{1b}]52;c;AAAA\u{07}\u{202e}gnp.exe\u{85}"
    let line = JSONOutput.line(Sample(deviceName: hostile, sizeInBytes: 3))
    #expect(!line.contains("\n"))
    #expect(line.hasPrefix(#"{"device_name":"#))
    #expect(line.contains(#""size_in_bytes":3"#))
    #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) || $0 == "\u{202e}" })
    let decoded = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    #expect(decoded?["device_name"] as? String == hostile, "escaped, the value decodes the same")
  }

  @Test func idPrintsItsNameAndIDAndOneJSONObject() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let plain = share(["id"], environment: home.environment)
    #expect(plain.code == .success, "\(plain)")
    #expect(plain.outLines.count == 2 && plain.outLines[0].hasPrefix("Name: ") && plain.outLines[1].hasPrefix("ID:   "))
    let json = share(["id", "--json"], environment: home.environment)
    #expect(json.outLines.count == 1 && json.err.isEmpty, "\(json)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: String])
    #expect(Set(object.keys) == ["name", "id", "short_id", "certificate"])
    #expect(object["id"]?.count == 64)
  }

  @Test func anEmptyHomeSaysSoOnStderrAndPrintsNoData() {
    let home = ScratchHome()
    defer { home.remove() }
    let inbox = share(["inbox"], environment: home.environment)
    #expect(inbox.code == .success && inbox.out.isEmpty)
    #expect(inbox.err.hasPrefix("The Inbox is empty"), "\(inbox)")
    let trust = share(["trust", "--json"], environment: home.environment)
    #expect(trust.code == .success && trust.out.isEmpty && trust.err.isEmpty, "\(trust)")
  }

  /// A mistyped `--home` made a new, empty home, even for a command that only reads one
  /// (review 16): the Inbox shown empty, a fresh identity made for `share peers`.
  @Test func aNamedHomeThatDoesNotExistIsAnErrorForCommandsThatDoNotSetOneUp() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let typo = home.url.appendingPathComponent("typo")
    for words in [
      ["inbox"], ["inbox", "delete", "x"], ["trust"], ["trust", "remove", "x"], ["peers"], ["status"], ["types", "check", "/etc/hostname"],
    ] {
      for environment in [["SHARE_HOME": typo.path], ["SHARE_HOME": home.url.path, "X": ""]] {
        let arguments = environment["X"] == nil ? words : ["--home", typo.path] + words
        let run = share(arguments, environment: environment.filter { $0.key != "X" })
        #expect(run.code == .failure && run.out.isEmpty, "\(arguments): \(run)")
        #expect(
          run.errLines == ["Error: there is no share home at \(typo.path) (check --home or SHARE_HOME; 'share id' makes a new one)"],
          "\(run)")
        #expect(!FileManager.default.fileExists(atPath: typo.path), "\(arguments) made the home")
      }
    }
    #expect(share(["help", "inbox"], environment: ["SHARE_HOME": typo.path]).code == .success)
    // The commands that set a device up make it, as before.
    let made = share(["--home", typo.path, "id", "--json"], environment: home.environment)
    #expect(made.code == .success, "\(made)")
    #expect(share(["--home", typo.path, "inbox"], environment: home.environment).code == .success)
  }

  /// Review 45: a `--home` naming a file, or a folder of other things, was an empty home (exit 0,
  /// "The Inbox is empty"); `share peers` wrote an identity into any folder it was given.
  @Test func aNamedHomeThatIsAFileOrAnotherFolderIsAnErrorAndPeersWritesNothing() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let file = home.files.appendingPathComponent("notes.txt")
    try Data("notes\n".utf8).write(to: file)
    let documents = home.files.appendingPathComponent("Documents")
    try FileManager.default.createDirectory(at: documents.appendingPathComponent("taxes"), withIntermediateDirectories: true)
    for named in [file, documents] {
      for words in [["inbox", "list"], ["trust", "list"], ["types"], ["peers", "--timeout", "1"]] {
        let run = share(["--home", named.path] + words)
        #expect(run.code == .failure && run.err.contains("there is no share home at"), "\(named.lastPathComponent) \(words): \(run)")
      }
    }
    let empty = home.files.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let looked = share(["--home", empty.path, "peers", "--timeout", "1"])
    #expect(looked.code == .success, "\(looked)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).isEmpty, "share peers wrote into the home")
  }

  /// Review 16: "cannot read X: cannot read "X": open: …", the file named twice.
  @Test func aFileTypesCheckCannotReadIsNamedOnce() {
    let home = ScratchHome()
    defer { home.remove() }
    let run = share(["types", "check", "/nonexistent/x.txt"], environment: home.environment)
    #expect(run.code == .failure && run.out.isEmpty, "\(run)")
    #expect(run.errLines == [#"Error: cannot read "/nonexistent/x.txt": No such file or directory"#], "\(run)")
    // The call and errno with --verbose only (review 32).
    let verbose = share(["-v", "types", "check", "/nonexistent/x.txt"], environment: home.environment)
    #expect(verbose.err.contains(#"open("/nonexistent/x.txt"): No such file or directory (errno 2)"#), "\(verbose)")
  }

  /// Review 37: the text output escaped a reason twice (a name's `\\` shown as `\\\\`, an escape
  /// character as `\\u{1B}`); it is escaped once, as in `--json`, and nothing raw reaches the terminal.
  @Test func typesCheckShowsAReasonEscapedOnce() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let file = home.files.appendingPathComponent("Q3\\bad\u{1B}name.txt")
    try Data("#!/bin/sh\necho\n".utf8).write(to: file)
    let run = share(["types", "check", file.path], environment: home.environment)
    #expect(run.code == .partial, "\(run)")
    let verdict = run.outLines.first { $0.hasPrefix("  verdict: ") } ?? ""
    #expect(verdict.contains(#"Q3\\bad\u{1B}name.txt is a shell script"#), "\(run)")
    #expect(!run.out.contains("\u{1B}"), "\(run)")
  }

  /// Review 37: a folder named `Setup.pkg` (a macOS bundle installer) was accepted with all its
  /// files; it is refused by its name, its files with it, as the receiver refuses them.
  @Test func typesCheckRefusesABundleInstallerFolderWhole() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let folder = home.files.appendingPathComponent("dl")
    for path in ["Setup.pkg/Contents/PkgInfo", "Inner/Tools.mpkg/Contents/Info.plist", "Inner/a.txt"] {
      let file = folder.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data("hello\n".utf8).write(to: file)
    }
    let bundle = share(["types", "check", folder.appendingPathComponent("Setup.pkg").path], environment: home.environment)
    #expect(bundle.code == .partial, "\(bundle)")
    #expect(bundle.outLines.filter { $0.contains("folder Setup.pkg is named as a macOS installer package") }.count == 2, "\(bundle)")
    let inner = share(["types", "check", "--json", folder.appendingPathComponent("Inner").path], environment: home.environment)
    #expect(inner.outLines.count == 3, "\(inner)")
    #expect(inner.outLines.contains { $0.contains("Info.plist") && $0.contains("folder Tools.mpkg is named as") }, "\(inner)")
    #expect(inner.outLines.contains { $0.contains("a.txt") && $0.contains("\"accepted\":true") }, "\(inner)")
  }

  /// Review 20: `types check` called a folder's `.git/config` accepted; the receiver refuses it.
  @Test func typesCheckRefusesAVersionControlFoldersFilesAsTheReceiverDoes() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let folder = home.files.appendingPathComponent("vcs")
    for (path, text) in [(".git/config", "[core]\n"), (".git/HEAD", "ref: refs/heads/main\n"), ("src/a.txt", "hello\n")] {
      let file = folder.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: file)
    }
    let run = share(["types", "check", "--json", folder.path], environment: home.environment)
    #expect(run.code == .partial, "\(run)")
    #expect(run.outLines.filter { $0.contains("\"version-control\"") }.count == 2, "\(run)")
    #expect(run.outLines.contains { $0.contains("src/a.txt") && $0.contains("\"accepted\":true") }, "\(run)")
    // The folder .git itself: all of it.
    let git = share(["types", "check", folder.appendingPathComponent(".git").path], environment: home.environment)
    #expect(git.code == .partial && git.out.contains("[rule: version-control]"), "\(git)")
  }

  /// Review 20: `--to=` was looked up as a name (exit 1), and `share name` made a new home
  /// readable by everyone (0755) where other commands make it the owner's (0700).
  @Test func anEmptyTargetIsAUsageErrorAndANamedHomeIsTheOwnersOnly() throws {
    let home = ScratchHome()
    defer { home.remove() }
    for target in ["--to=", "--to= "] {
      let run = share(["send", "/etc/hostname", target], environment: home.environment)
      #expect(run.code == .usage && run.err.contains("--to is empty"), "\(run)")
    }
    let fresh = home.url.appendingPathComponent("fresh")
    #expect(share(["--home", fresh.path, "name", "lab-pc"], environment: home.environment).code == .success)
    let mode = try FileManager.default.attributesOfItem(atPath: fresh.path)[.posixPermissions] as? Int
    #expect(mode == 0o700, "\(String(describing: mode.map { String($0, radix: 8) }))")
    let dash = share(["types", "check", "-"], environment: home.environment)
    #expect(dash.code == .usage && dash.err.contains("save standard input to a named file"), "\(dash)")
  }

  /// An empty PATH (an unset "$file") sent the current folder whole; empty values elsewhere
  /// read "--name : …" and "no type  is known" (review 30 L8).
  @Test func emptyValuesAreNamedAsEmpty() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let cases: [([String], String)] = [
      (["send", "", "--dry-run"], "a PATH is empty"),
      (["send", "/etc/hostname", "", "--to", "127.0.0.1:9"], "a PATH is empty"),
      (["send", "--url", "", "--dry-run"], "--url is empty"),
      (["send", "--text", "", "--dry-run"], "--text is empty"),
      (["pair", "", "--yes"], "PEER is empty"),
      (["trust", "add", String(repeating: "ab", count: 32), "--name", ""], "--name is empty: a name must be 1 to 63 bytes long"),
    ]
    for (arguments, message) in cases {
      let run = share(arguments, environment: home.environment)
      #expect(run.code == .usage && run.err.hasPrefix("Error: \(message)"), "\(arguments): \(run)")
      #expect(run.out.isEmpty, "\(arguments): \(run)")
    }
    let type = share(["types", "show", ""], environment: home.environment)
    #expect(type.code == .failure && type.err.hasPrefix("Error: no type was given"), "\(type)")
  }

  /// Review 32: an address without its port was looked up as a device name (an Avahi error),
  /// and an option after '--' was "cannot send --to: No such file or directory".
  @Test func anAddressWithoutAPortAndAnOptionAfterTheEndOfOptionsAreNamed() throws {
    let home = ScratchHome()
    defer { home.remove() }
    for address in ["127.0.0.1", "::1", "fe80::1%lo"] {
      let run = share(["send", "/etc/hostname", "--to", address], environment: home.environment)
      #expect(run.code == .usage && run.err.contains("is an address without a port"), "\(address): \(run)")
    }
    // Review 36: an IPv6 address with a port but no brackets is told how to write one.
    let unbracketed = share(["send", "/etc/hostname", "--to", "fe80::1%lo:45847"], environment: home.environment)
    #expect(unbracketed.code == .usage && unbracketed.err.contains("in brackets: [ADDRESS]:PORT"), "\(unbracketed)")
    #expect(!share(["send", "/etc/hostname", "--to", "127.0.0.1"], environment: home.environment).err.contains("brackets"))
    // A device (a pipe, `<(command)`, alike) says how to send what a command writes.
    let device = share(["send", "/dev/null", "--dry-run"], environment: home.environment)
    #expect(device.code == .failure && device.err.contains("pipe it in: COMMAND | share send - --name NAME"), "\(device)")
    let late = share(["send", "--", "/etc/hostname", "--to", "127.0.0.1:9"], environment: home.environment)
    #expect(late.code == .usage && late.err.hasPrefix("Error: '--to' comes after '--'"), "\(late)")
  }

  @Test func aRuntimeFailureIsOneErrorLineAndExit1() {
    let home = ScratchHome()
    defer { home.remove() }
    let run = share(["trust", "remove", "laptop"], environment: home.environment)
    #expect(run.code == .failure)
    #expect(run.out.isEmpty)
    #expect(run.errLines == ["Error: no contact matches 'laptop' (see 'share trust list')"], "\(run)")
  }
}
