import Foundation
import Testing

/// The command-line contract: help on stdout with exit 0, usage errors on stderr with
/// `Error:`/`Usage:` and exit 64, runtime failures exit 1 with one clear sentence.
@Suite struct CommandLineContractTests {
  @Test func helpAndDashDashHelpPrintTheOverviewOnStdoutAndExitZero() throws {
    let home = try ShareHome(name: "alice")
    let help = try home.run(["help"])
    let dashHelp = try home.run(["--help"])
    let bare = try home.run([])
    for result in [help, dashHelp, bare] {
      #expect(result.exited(with: 0), "\(result)")
      #expect(result.stderr.isEmpty, "\(result)")
    }
    #expect(help.stdoutText.contains("USAGE: share <command>"))
    for command in [
      "send", "daemon", "inbox list", "inbox show", "inbox move", "inbox delete", "types", "types show", "types check", "id",
      "help",
    ] {
      #expect(help.stdoutText.contains("  \(command) "), "the overview does not list '\(command)'")
    }
    #expect(help.stdoutText.contains("EXIT CODES:"))
    #expect(dashHelp.stdoutText == help.stdoutText)
    #expect(bare.stdoutText == help.stdoutText)
  }

  @Test(arguments: [
    ["send"], ["daemon"], ["id"], ["inbox", "list"], ["inbox", "show"], ["inbox", "move"], ["inbox", "delete"], ["types"],
    ["types", "show"], ["types", "check"],
  ])
  func helpCommandAndDashDashHelpPrintTheSameText(command: [String]) throws {
    let home = try ShareHome(name: "alice")
    let viaHelp = try home.run(["help"] + command)
    let viaOption = try home.run(command + ["--help"])
    #expect(viaHelp.exited(with: 0), "\(viaHelp)")
    #expect(viaOption.exited(with: 0), "\(viaOption)")
    #expect(viaHelp.stderr.isEmpty && viaOption.stderr.isEmpty)
    // `inbox list` shows its optional word: `share inbox [list]`.
    let usage = command == ["inbox", "list"] ? "share inbox [list]" : "share \(command.joined(separator: " "))"
    #expect(viaHelp.stdoutText.contains("USAGE: \(usage)"), "\(viaHelp)")
    #expect(viaHelp.stdoutText == viaOption.stdoutText)
  }

  @Test(arguments: [["--version"], ["-V"], ["version"]])
  func theVersionIsOneLineOnStdout(words: [String]) throws {
    let home = try ShareHome(name: "alice")
    let result = try home.run(words)
    #expect(result.exited(with: 0), "\(result)")
    #expect(result.stdoutLines.count == 1 && result.stdoutText.hasPrefix("share "), "\(result)")
    #expect(result.stderr.isEmpty)
  }

  @Test func anUnknownOptionSuggestsTheNearestAndExits64() throws {
    let home = try ShareHome(name: "alice")
    let result = try home.run(["send", "x.txt", "--tto", "127.0.0.1:9"])
    #expect(result.exited(with: 64), "\(result)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderrLines.first == "Error: unknown option '--tto'; did you mean '--to'?", "\(result)")
    #expect(result.stderrLines.contains { $0.hasPrefix("Usage: share send") }, "\(result)")
  }

  @Test func anUnknownCommandSuggestsTheNearestAndExits64() throws {
    let home = try ShareHome(name: "alice")
    let result = try home.run(["sned", "x.txt"])
    #expect(result.exited(with: 64), "\(result)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderrLines.first == "Error: unknown command 'sned'; did you mean 'send'?", "\(result)")
    #expect(result.stderrLines.contains { $0.hasPrefix("Usage:") }, "\(result)")
  }

  @Test(arguments: [["send"], ["inbox", "show"], ["inbox", "move"], ["inbox", "delete"], ["types", "show"], ["types", "check"]])
  func missingArgumentsAreAUsageError(command: [String]) throws {
    let home = try ShareHome(name: "alice")
    let result = try home.run(["--home", home.home.path] + command)
    #expect(result.exited(with: 64), "\(result)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderrLines.first?.hasPrefix("Error: ") == true, "\(result)")
    #expect(result.stderrLines.contains { $0.hasPrefix("Usage: share \(command.joined(separator: " "))") }, "\(result)")
  }

  @Test func aPortOutOfRangeIsAUsageErrorAndAnUnknownNameIsAClearError() throws {
    let home = try ShareHome(name: "alice")
    let file = try home.file("x.txt", "x")
    let badPort = try home.share("send", file.path, "--to", "127.0.0.1:99999")
    #expect(badPort.exited(with: 64), "\(badPort)")
    #expect(badPort.stderrLines.first?.contains("port") == true, "\(badPort)")
    #expect(badPort.stderrLines.contains { $0.hasPrefix("Usage: share send") })
    // Not an address, so a device name: nobody nearby is called that (or Avahi is not there).
    let unknown = try home.share("send", file.path, "--to", "nobody-is-called-this-\(UUID().uuidString.prefix(8))")
    #expect(unknown.exited(with: 1), "\(unknown)")
    #expect(unknown.stderrText.contains("no nearby peer is called") || unknown.stderrText.contains("Avahi"), "\(unknown)")
  }

  @Test func aPortOutOfRangeForTheDaemonIsAUsageError() throws {
    let home = try ShareHome(name: "alice")
    let result = try home.share("daemon", "--port", "70000")
    #expect(result.exited(with: 64), "\(result)")
    #expect(result.stderrLines.first?.contains("--port") == true, "\(result)")
  }

  @Test func showingAnItemThatIsNotInTheInboxFailsWithExit1AndSaysSo() throws {
    let home = try ShareHome(name: "bob")
    let result = try home.share("inbox", "show", "nosuch")
    #expect(result.exited(with: 1), "\(result)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderrLines == ["Error: no item named \"nosuch\" in the Inbox (see 'share inbox list')"], "\(result)")
  }

  @Test func movingOrDeletingAnItemThatIsNotInTheInboxFailsWithExit1() throws {
    let home = try ShareHome(name: "bob")
    for command in [["inbox", "move", "nosuch"], ["inbox", "delete", "nosuch"]] {
      let result = try home.run(["--home", home.home.path] + command)
      #expect(result.exited(with: 1), "\(result)")
      #expect(result.stderrText.contains("no item named \"nosuch\""), "\(result)")
    }
    // Found by an outside review: the name was echoed with its escape sequence intact.
    for verb in ["show", "move", "delete"] {
      let result = try home.share("inbox", verb, "x\u{1B}[31mred\u{202E}")
      #expect(result.exited(with: 1) && !result.stderr.contains(0x1B), "\(result)")
      #expect(result.stderrText.contains(#"no item named "x\u{1B}[31mred\u{202E}""#), "\(result)")
    }
  }

  /// Found by an outside review: `--name a/b` went to the receiver, which refused it (exit 4), and
  /// `share accept -1` suggested `-v`.
  @Test func aNameNoReceiverTakesAndANegativeNumberAreUsageErrors() throws {
    let home = try ShareHome(name: "bob")
    let file = try home.file("x.txt", "x\n").path
    for name in ["a/b", "..", "", " "] {
      let result = try home.share("send", file, "--name", name, "--to", "127.0.0.1:9")
      #expect(result.exited(with: 64) && result.stderrText.contains("cannot name an item"), "\(result)")
    }
    let negative = try home.share("accept", "-1")
    #expect(negative.exited(with: 64) && negative.stderrText.contains("is not an option; no number"), "\(negative)")
    #expect(!negative.stderrText.contains("did you mean"), "\(negative)")
  }

  @Test func anEmptyInboxSaysSoOnStderrAndListsNothing() throws {
    let home = try ShareHome(name: "bob")
    let plain = try home.share("inbox", "list")
    #expect(plain.exited(with: 0), "\(plain)")
    #expect(plain.stdout.isEmpty)
    #expect(plain.stderrText.contains("The Inbox is empty"), "\(plain)")
    let json = try home.share("inbox", "list", "--json")
    #expect(json.exited(with: 0) && json.stdout.isEmpty, "\(json)")
  }

  @Test func sendingAFileThatDoesNotExistFailsWithExit1NamingIt() throws {
    let home = try ShareHome(name: "alice")
    let missing = home.files.appendingPathComponent("nosuch.txt").path
    let port = try unusedLoopbackPort()
    let result = try home.share("send", missing, "--to", "127.0.0.1:\(port)")
    #expect(result.exited(with: 1), "\(result)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderrLines.count == 1, "\(result)")
    #expect(result.stderrText.hasPrefix("Error: "))
    #expect(result.stderrText.contains(missing), "\(result)")
    #expect(result.stderrText.contains("No such file"), "\(result)")
    // It fails before connecting: the message is about the file, not the unused port.
    #expect(!result.stderrText.lowercased().contains("refused"))
  }

  @Test func versionPrintsTheVersionOnStdout() throws {
    let home = try ShareHome(name: "alice")
    let result = try home.run(["--version"])
    #expect(result.exited(with: 0), "\(result)")
    #expect(result.stdoutLines.count == 1 && result.stdoutLines[0].hasPrefix("share "), "\(result)")
  }

  @Test func helpForAnUnknownCommandSuggestsTheNearestAndExits64() throws {
    let home = try ShareHome(name: "alice")
    let result = try home.run(["help", "sen"])
    #expect(result.exited(with: 64), "\(result)")
    #expect(result.stderrLines.first == "Error: no command 'sen'; did you mean 'send'?", "\(result)")
  }

  @Test func aGlobalOptionWithoutACommandIsAUsageErrorThatNamesTheRealProblem() throws {
    let home = try ShareHome(name: "alice")
    let noCommand = try home.run(["--home", home.home.path])
    let noValue = try home.run(["--home"])
    for result in [noCommand, noValue] {
      #expect(result.exited(with: 64), "\(result)")
      #expect(result.stdout.isEmpty, "\(result)")
      #expect(result.stderrLines.contains { $0.hasPrefix("Usage: share <command>") }, "\(result)")
      #expect(!result.stderrText.contains("unknown command"), "\(result)")
    }
    #expect(noCommand.stderrLines.first == "Error: missing command", "\(noCommand)")
    #expect(noValue.stderrLines.first == "Error: --home needs a value (DIR)", "\(noValue)")
  }
}
