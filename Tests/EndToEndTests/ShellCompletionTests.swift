import Foundation
import Glibc
import Testing

/// The completion scripts the built binary prints, run by the real shells: bash (alone, and
/// with bash-completion as a desktop loads it), fish (its own `complete -C`), and zsh (syntax,
/// and its driver with the completion widgets' builtins standing in, since zle needs a terminal;
/// TabCompletionTests types into a real one). Values known at Tab time come from the binary's
/// `__complete`, asked of a scratch home with a contact and an Inbox item.
@Suite struct ShellCompletionTests {
  static let bashCompletion = "/usr/share/bash-completion/bash_completion"
  static let modes = ["off", "contacts", "everyone"]

  /// A home with a contact called `my laptop` and `hello.txt` in its Inbox, and a folder of
  /// files (`notes.txt`, `photo.png`, `sub/`) to complete names in.
  final class Fixture {
    let home: ShareHome
    let binary: URL
    init() throws {
      home = try ShareHome(name: "completer")
      binary = try ShareBinary.require()
      let added = try home.share("trust", "add", String(repeating: "ab", count: 32), "--name", "my laptop")
      guard added.exited(with: 0) else { throw HarnessError("trust add failed: \(added)") }
      try FileManager.default.createDirectory(at: home.inbox, withIntermediateDirectories: true)
      try Data("hi".utf8).write(to: home.inbox.appendingPathComponent("hello.txt"))
      for name in ["notes.txt", "photo.png"] { try Data("x".utf8).write(to: home.files.appendingPathComponent(name)) }
      try FileManager.default.createDirectory(at: home.files.appendingPathComponent("sub"), withIntermediateDirectories: true)
    }

    /// `PATH` with the built binary's folder first, as an installed `share` would be.
    var environment: [String: String] {
      let path = home.environment()["PATH"] ?? "/usr/bin:/bin"
      return home.environment(["PATH": binary.deletingLastPathComponent().path + ":" + path])
    }

    func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> CommandResult {
      try ChildProcess(
        executable: URL(fileURLWithPath: executable), arguments: arguments, environment: environment.merging(extra) { $1 }
      ).wait(timeout: .seconds(60))
    }

    /// What bash's `_share` puts in COMPREPLY for `words` (as bash splits them, the last one
    /// being completed; `line` is the line as typed), run in the folder of files.
    func bash(_ words: [String], line: String? = nil, withBashCompletion: Bool = false) throws -> [String] {
      let script = """
        cd "$FILES" || exit 2
        if [ -n "$WITH_BC" ]; then source "$WITH_BC" || exit 3; fi
        source <(share completions bash) || exit 4
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE=$LINE; COMP_POINT=${#COMP_LINE}
        _share 2>/dev/null
        printf '%s\\n' "${COMPREPLY[@]}"
        """
      let result = try run(
        "/bin/bash", ["--norc", "--noprofile", "-c", script, "bash"] + words,
        environment: [
          "FILES": home.files.path, "LINE": line ?? words.joined(separator: " "),
          "WITH_BC": withBashCompletion ? ShellCompletionTests.bashCompletion : "",
        ])
      guard result.exited(with: 0) else { throw HarnessError("bash failed: \(result)") }
      return result.stdoutLines
    }
  }

  static func installed(_ path: String) -> Bool { access(path, R_OK) == 0 }

  @Test func bashAloneCompletesCommandsOptionsModesAndFiles() throws {
    try bashCompletes(withBashCompletion: false)
  }

  @Test(.enabled(if: installed(bashCompletion), "bash-completion is not installed (apt-get install bash-completion)"))
  func bashWithBashCompletionCompletesCommandsOptionsModesAndFiles() throws {
    try bashCompletes(withBashCompletion: true)
  }

  func bashCompletes(withBashCompletion: Bool) throws {
    let fixture = try Fixture()
    func bash(_ words: String..., line: String? = nil) throws -> [String] {
      try fixture.bash(words, line: line, withBashCompletion: withBashCompletion)
    }
    #expect(try bash("share", "receive", "") == Self.modes)
    let top = try bash("share", "")
    #expect(["send", "inbox", "trust", "types", "completions", "man", "help"].allSatisfy(top.contains), "\(top)")
    #expect(!top.contains("__complete"))
    #expect(try bash("share", "inbox", "") == ["list", "show", "move", "delete"])
    #expect(try bash("share", "help", "inbox", "m") == ["move"])
    #expect(try bash("share", "daemon", "--mode", "") == Self.modes)
    #expect(try bash("share", "daemon", "--mode", "=", "ev", line: "share daemon --mode=ev") == ["everyone"])
    #expect(try bash("share", "send", "--q") == ["--quiet"])
    #expect(try bash("share", "--home", fixture.home.home.path, "-v", "send", "notes.txt", "--to", "my") == [#"my\ laptop"#])
    #expect(try bash("share", "--home", fixture.home.home.path, "inbox", "show", "") == ["hello.txt"])
    #expect(try bash("share", "send", "no") == ["notes.txt"])
    #expect(try Set(bash("share", "inbox", "move", "hello.txt", "")).isSuperset(of: ["notes.txt", "photo.png"]))
    #expect(try bash("share", "receive", "everyone", "--for", "1").sorted() == ["10m", "1h"])
    #expect(try bash("share", "receive", "off", "").isEmpty, "receive takes one argument")
    #expect(try bash("share", "send", "--", "--t").isEmpty, "after -- there are no options")
  }

  @Test(.enabled(if: installed("/usr/bin/fish"), "fish is not installed (apt-get install fish)"))
  func fishCompletesThroughItsOwnCompleteCommand() throws {
    let fixture = try Fixture()
    let script = fixture.home.root.appendingPathComponent("share.fish")
    let printed = try fixture.run(fixture.binary.path, ["completions", "fish"])
    try printed.stdout.write(to: script)
    func fish(_ line: String) throws -> [String] {
      let result = try fixture.run(
        "/usr/bin/fish",
        ["--no-config", "-c", "cd $argv[1]; source $argv[2]; complete -C$argv[3]", fixture.home.files.path, script.path, line])
      guard result.exited(with: 0), result.stderr.isEmpty else { throw HarnessError("fish failed: \(result)") }
      return result.stdoutLines.map { String($0.prefix { $0 != "\t" }) }
    }
    #expect(try fish("share receive ").sorted() == Self.modes.sorted())
    #expect(try fish("share inbox ").sorted() == ["delete", "list", "move", "show"])
    #expect(try fish("share help trust r") == ["remove"])
    #expect(try fish("share daemon --mode=e") == ["--mode=everyone"])
    #expect(try fish("share send --dry").contains("--dry-run"))
    #expect(try fish("share --home \(fixture.home.home.path) send --to my") == ["my laptop"])
    #expect(try fish("share --home \(fixture.home.home.path) inbox delete ") == ["hello.txt"])
    #expect(try fish("share send no") == ["notes.txt"])
    #expect(try fish("share receive everyone --for 3").sorted() == ["30m", "30s"])
  }

  @Test(.enabled(if: installed("/usr/bin/zsh"), "zsh is not installed (apt-get install zsh)"))
  func zshReadsTheScriptAndItsDriverOffersWhatTheDeclarationsSay() throws {
    let fixture = try Fixture()
    let script = fixture.home.root.appendingPathComponent("_share")
    try fixture.run(fixture.binary.path, ["completions", "zsh"]).stdout.write(to: script)
    let syntax = try fixture.run("/usr/bin/zsh", ["-n", script.path])
    #expect(syntax.exited(with: 0) && syntax.stderr.isEmpty, "\(syntax)")
    // The widgets' builtins print what they were given; the rest is the script as zsh runs it.
    let stubs = #"""
      compadd() { [[ $1 == -a ]] && print -r -- "compadd ${(j:|:)${(P)2}}" }
      _describe() { print -r -- "_describe $3 ${(j:|:)${(@)${(P)4}%%:*}}" }
      _files() { print -r -- "_files $*" }
      compset() { PREFIX=${PREFIX#*=} }
      compdef() { }
      source $1; shift
      words=("$@"); CURRENT=$#words; PREFIX=$words[-1]
      _share
      """#
    func zsh(_ words: String...) throws -> [String] {
      let result = try fixture.run("/usr/bin/zsh", ["-f", "-c", stubs, "zsh", script.path] + words)
      guard result.stderr.isEmpty else { throw HarnessError("zsh failed: \(result)") }
      return result.stdoutLines
    }
    #expect(try zsh("share", "receive", "") == ["compadd off|contacts|everyone"])
    #expect(try zsh("share", "inbox", "") == ["_describe command list|show|move|delete"])
    #expect(try zsh("share", "daemon", "--mode=") == ["compadd off|contacts|everyone"])
    // Nearby peers (Avahi, shared with other tests) come first; the contact is among them.
    let peers = try zsh("share", "--home", fixture.home.home.path, "send", "--to", "")
    #expect(
      peers.count == 1 && peers[0].hasPrefix("compadd ") && peers[0].hasSuffix("|my laptop") || peers == ["compadd my laptop"], "\(peers)")
    #expect(try zsh("share", "--home", fixture.home.home.path, "inbox", "move", "") == ["compadd hello.txt"])
    #expect(try zsh("share", "inbox", "move", "hello.txt", "") == ["_files "])
    #expect(try zsh("share", "help", "trust", "") == ["_describe command list|add|remove|forget"])
    #expect(try zsh("share", "send", "-")[0].hasPrefix("_describe option --to|--url|--text|--name|--json|--quiet|-q"))
  }

  /// share(1) as `man` reads it: no warning from groff (all of them on, as lintian's check).
  @Test(.enabled(if: installed("/usr/bin/man"), "man-db is not installed"))
  func theManPageRendersWithoutWarnings() throws {
    let fixture = try Fixture()
    let page = fixture.home.root.appendingPathComponent("share.1")
    let printed = try fixture.run(fixture.binary.path, ["man"])
    #expect(printed.exited(with: 0) && printed.stderr.isEmpty, "\(printed)")
    try printed.stdout.write(to: page)
    for width in ["80", "60"] {
      let result = try ChildProcess(
        executable: URL(fileURLWithPath: "/usr/bin/man"), arguments: ["--warnings=w", "-E", "UTF-8", "-l", "-Tutf8", "-Z", page.path],
        environment: fixture.environment.merging(["MANWIDTH": width, "LC_ALL": "C.UTF-8"]) { $1 }
      ).wait(timeout: .seconds(60))
      #expect(result.exited(with: 0) && result.stderrText.isEmpty, "MANWIDTH=\(width): \(result.stderrText)")
      #expect(result.stdout.count > 10_000, "\(result)")
    }
  }
}
