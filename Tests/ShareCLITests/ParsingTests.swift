import Foundation
import Testing

@testable import ShareCLI

/// Parsing against the declarations: typed lookups, values, and the mistakes that are usage
/// errors (exit 64, `Error:` then `Usage:` on stderr, nothing on stdout).
@Suite struct ParsingTests {
  @Test func optionsAreLookedUpByTheirDeclaration() throws {
    let parsed = try ParsedArguments.parse(
      ["a.txt", "--to", "lab-b", "--to=10.0.0.2:4000", "-q", "--name", "x", "--", "--json"], spec: SendCommand.spec)
    #expect(parsed.all(SendCommand.to) == ["lab-b", "10.0.0.2:4000"])
    #expect(parsed[SendCommand.quiet])
    #expect(!parsed[SendCommand.json], "after --, --json is a path")
    #expect(parsed[SendCommand.name] == "x")
    #expect(parsed[SendCommand.url] == nil)
    #expect(parsed.positionals == ["a.txt", "--json"])
  }

  @Test func globalOptionsWorkAfterTheCommandToo() throws {
    let parsed = try ParsedArguments.parse(["--home", "/h", "-v"], spec: IdCommand.spec)
    #expect(parsed[GlobalOptions.home] == "/h")
    #expect(parsed[GlobalOptions.verbose])
  }

  @Test func aNumberOutOfRangeNamesTheOption() {
    #expect(throws: UsageError.self) {
      try ParsedArguments.parse(["--port", "70000"], spec: DaemonCommand.spec).integer(DaemonCommand.port, in: 0...65535)
    }
    let run = share(["daemon", "--port", "70000"])
    #expect(run.code == .usage, "\(run)")
    #expect(run.errLines.first == "Error: --port takes a whole number from 0 to 65535, not '70000'", "\(run)")
  }

  @Test func durationsTakeUnitsEverywhereAndABareNumberInTheUnitHelpNames() throws {
    func seconds(_ words: [String], _ option: Option, bare: DurationUnit, spec: CommandSpec) throws -> Double? {
      try ParsedArguments.parse(words, spec: spec).duration(option, bare: bare, in: 0...86400)
    }
    #expect(try seconds(["--grace", "90s"], DaemonCommand.grace, bare: .seconds, spec: DaemonCommand.spec) == 90)
    #expect(try seconds(["--grace", "2m"], DaemonCommand.grace, bare: .seconds, spec: DaemonCommand.spec) == 120)
    #expect(try seconds(["--grace", "7"], DaemonCommand.grace, bare: .seconds, spec: DaemonCommand.spec) == 7)
    #expect(try seconds(["--ask-timeout", "1h"], DaemonCommand.askTimeout, bare: .seconds, spec: DaemonCommand.spec) == 3600)
    #expect(try seconds(["--for", "10"], DaemonCommand.duration, bare: .minutes, spec: DaemonCommand.spec) == 600)
    #expect(try seconds(["everyone", "--for", "1h30m"], ReceiveCommand.duration, bare: .minutes, spec: ReceiveCommand.spec) == 5400)
    #expect(try seconds(["--timeout", "500"], PeersCommand.timeout, bare: .seconds, spec: PeersCommand.spec) == 500)
    for option in [DaemonCommand.grace, DaemonCommand.askTimeout, DaemonCommand.duration, ReceiveCommand.duration, PeersCommand.timeout] {
      #expect(option.spec.kind == .duration && option.spec.placeholder == "DURATION", "\(option.spec.long)")
      #expect(option.spec.help.contains("a bare number is"), "\(option.spec.long): help does not say what a bare number means")
    }
    let run = share(["daemon", "--grace", "5 seconds"])
    #expect(run.code == .usage, "\(run)")
    #expect(
      run.errLines.first
        == "Error: --grace takes a duration such as 90s, 10m or 1h (a bare number is seconds) from 0s to 1h, not '5 seconds'",
      "\(run)")
    let tooLong = share(["receive", "everyone", "--for", "400d"])
    #expect(tooLong.code == .usage && tooLong.errLines.first?.contains("(a bare number is minutes) from 1s to 366d") == true, "\(tooLong)")
  }

  /// Review 30: completion offered `2h` for options that take at most 1h, and a dry run took a
  /// `--busy-wait` the send refuses.
  @Test func everyDurationCompletionOffersIsTakenAndADryRunChecksBusyWait() throws {
    for example in CompletionAction.durations {
      let run = share(["send", "--dry-run", "--text", "x", "--busy-wait", example])
      #expect(run.code == .success, "\(example): \(run)")
    }
    let tooLong = share(["send", "--dry-run", "--text", "x", "--busy-wait", "2h"])
    #expect(tooLong.code == .usage && tooLong.errLines.first?.contains("--busy-wait") == true, "\(tooLong)")
  }

  /// Review 30: a global option between a group and its subcommand (`share inbox --home DIR
  /// show x`, which bash completion offers) was "unexpected argument 'show'".
  @Test func globalOptionsMayComeBetweenAGroupAndItsSubcommand() {
    func words(_ arguments: [String]) -> [String] { Entrypoint.hoistingGlobalOptions(Invocation(arguments)).words }
    #expect(words(["inbox", "--home", "/h", "show", "x"]) == ["inbox", "show", "x"])
    #expect(Entrypoint.hoistingGlobalOptions(Invocation(["inbox", "--home", "/h", "show", "x"])).leading == ["--home", "/h"])
    #expect(words(["trust", "-v", "list"]) == ["trust", "list"])
    #expect(words(["types", "--home=/h", "show", "public.font"]) == ["types", "show", "public.font"])
    #expect(words(["send", "-v", "x.txt"]) == ["send", "-v", "x.txt"], "not a group: left to the command")
    #expect(words(["inbox", "--home"]) == ["inbox", "--home"], "no value: left for the parser to say so")
    // A flag of the subcommand before it goes after it (review 32: "unexpected argument 'show'").
    #expect(words(["inbox", "--json", "show", "x"]) == ["inbox", "show", "--json", "x"])
    #expect(words(["trust", "-v", "--json", "list"]) == ["trust", "list", "--json"])
    #expect(words(["inbox", "--json"]) == ["inbox", "--json"], "no subcommand: the group's own")
    #expect(words(["inbox", "--nosuch", "show", "x"]) == ["inbox", "--nosuch", "show", "x"], "not its option: left to say so")
    let home = ScratchHome()
    defer { home.remove() }
    let run = share(["types", "--home", home.url.path, "show", "public.font"])
    #expect(run.code == .success && run.out.contains("public.font"), "\(run)")
  }

  @Test func aCommandsOptionBeforeTheCommandIsNamedAsSuch() {
    let run = share(["--to", "lab-b", "send", "x.txt"])
    #expect(run.code == .usage && run.errLines.first?.contains("'--to' before the command is no global option") == true, "\(run)")
    #expect(share(["frobnicate"]).errLines.first?.contains("unknown command 'frobnicate'") == true)
  }

  @Test func theVersionOptionBeforeACommandSaysItTakesNone() {
    let run = share(["-V", "inbox"])
    #expect(run.code == .usage && run.errLines.first?.contains("-V prints the version and takes no command") == true, "\(run)")
    #expect(share(["-V"]).code == .success)
  }

  @Test func anUnknownOptionSuggestsTheNearestDeclaredOne() {
    let run = share(["send", "x.txt", "--jsn"])
    #expect(run.code == .usage)
    #expect(run.out.isEmpty)
    #expect(run.errLines.first == "Error: unknown option '--jsn'; did you mean '--json'?", "\(run)")
    #expect(run.errLines.dropFirst().first?.hasPrefix("Usage: share send") == true, "\(run)")
    #expect(share(["peers", "--wacth"]).errLines.first == "Error: unknown option '--wacth'; did you mean '--watch'?")
  }

  @Test func anUnknownCommandOrSubcommandSuggestsTheNearest() {
    let command = share(["sned"])
    #expect(command.code == .usage)
    #expect(command.errLines.first == "Error: unknown command 'sned'; did you mean 'send'?", "\(command)")
    let subcommand = share(["trust", "ad", "x"])
    #expect(subcommand.code == .usage)
    #expect(subcommand.errLines.first == "Error: unknown subcommand 'ad' of 'share trust'; did you mean 'add'?", "\(subcommand)")
  }

  @Test(arguments: [
    (["inbox", "show"], "Error: missing arguments"),
    (["receive", "everyone", "contacts"], "Error: unexpected argument 'contacts'"),
    (["send", "x", "--name"], "Error: --name needs a value (NAME)"),
    (["send", "x", "--json=yes"], "Error: --json takes no value"),
    (["send", "x", "--name", "a", "--name", "b"], "Error: --name was given more than once"),
    (["--home"], "Error: --home needs a value (DIR)"),
    (["--home", "", "id"], "Error: --home needs a DIR, not an empty value"),
    (["--home=", "id"], "Error: --home needs a DIR, not an empty value"),
    (["--verbose"], "Error: missing command"),
    // Review 26: an unknown option before the command, and an option taken as another's value.
    (["--bogus"], "Error: unknown option '--bogus'"),
    (["--home", "-x", "--bogus=1"], "Error: unknown option '--bogus=1'"),
    (
      ["send", "x", "--to", "--home", "d"],
      "Error: --to needs a value (PEER), not the option '--home'; for a value that starts with '-', write --to=VALUE"
    ),
    (["receive", "sometimes"], "Error: the mode is off, contacts or everyone, not 'sometimes'"),
    (["daemon", "--for", "10m"], "Error: --for goes with --mode everyone"),
    (
      ["daemon", "--localsend-pin", "2718"], "Error: --localsend-port, --localsend-multicast(-port) and --localsend-pin go with --localsend"
    ),
    (["daemon", "--localsend", "--localsend-pin", ""], "Error: --localsend-pin is empty"),
    (
      ["daemon", "--localsend", "--localsend-pin", "27 18"],
      "Error: --localsend-pin may hold only letters, digits, punctuation and symbols (no spaces or control characters)"
    ),
    (
      ["daemon", "--localsend", "--localsend-pin", String(repeating: "7", count: 65)],
      "Error: --localsend-pin is 65 bytes long; at most 64 are allowed"
    ),
  ])
  func usageErrorsExit64WithTheErrorThenTheUsage(words: [String], error: String) {
    let run = share(words)
    #expect(run.code == .usage, "\(run)")
    #expect(run.out.isEmpty, "\(run)")
    #expect(run.errLines.first == error, "\(run)")
    #expect(run.errLines.dropFirst().first?.hasPrefix("Usage: share") == true, "\(run)")
  }

  /// The usage says `[--json | --quiet]`; both were taken (review 16).
  @Test func jsonAndQuietTogetherAreAUsageErrorReportedAsTheStreamsErrorEvent() {
    let run = share(["send", "x", "--json", "-q"])
    #expect(run.code == .usage, "\(run)")
    #expect(run.outLines == [#"{"event":"error","exit_code":64,"message":"--json and --quiet cannot be used together"}"#], "\(run)")
    #expect(run.errLines.first == "Error: --json and --quiet cannot be used together", "\(run)")
  }

  /// Review 45: an unknown option or a missing value after --json printed nothing on stdout,
  /// while other usage errors were an event; a line that asks for events always gets one.
  @Test func aParseErrorAfterJSONIsTheStreamsErrorEventToo() {
    for (words, message) in [
      (["send", "--json", "--bogus", "x"], "unknown option '--bogus'"), (["send", "x", "--json", "--to"], "--to needs a value (PEER)"),
      (["peers", "--json", "--timeout", "soon"], nil),
    ] as [([String], String?)] {
      let run = share(words)
      #expect(run.code == .usage, "\(run)")
      #expect(run.outLines.count == 1 && run.outLines[0].hasPrefix(#"{"event":"error","exit_code":64,"#), "\(words): \(run)")
      if let message { #expect(run.outLines.first?.contains(message) == true, "\(run)") }
    }
    // Without --json, or with it only as an operand after --, nothing on stdout.
    for words in [["send", "--bogus", "x"], ["send", "--bogus", "--", "--json"]] {
      #expect(share(words).out.isEmpty, "\(words)")
    }
  }

  @Test func theVersionIsPrintedOnStdoutByDashDashVersionDashVAndTheVersionCommand() {
    for words in [["--version"], ["-V"], ["version"], ["--home", "/h", "-V"]] {
      let run = share(words)
      #expect(run.code == .success, "\(words): \(run)")
      #expect(run.out == "share \(shareVersion)\n", "\(words): \(run)")
    }
    let help = share(["help"]).out
    #expect(help.contains("  -V, --version "), "\(help)")
    #expect(help.contains("\n  version "), "\(help)")
  }

  @Test func aMisspeltModeSuggestsTheNearest() {
    let receive = share(["receive", "evryone"])
    #expect(receive.code == .usage)
    #expect(receive.errLines.first == "Error: the mode is off, contacts or everyone, not 'evryone'; did you mean 'everyone'?", "\(receive)")
    let daemon = share(["daemon", "--mode", "contact"])
    #expect(daemon.code == .usage)
    #expect(daemon.errLines.first == "Error: --mode takes off, contacts or everyone, not 'contact'; did you mean 'contacts'?", "\(daemon)")
  }
}
