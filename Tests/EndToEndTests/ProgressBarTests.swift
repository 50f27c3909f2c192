import Foundation
import Testing

/// Progress bars: drawn on stderr only when it is a terminal, gone when the send is over, never
/// on a pipe or with `TERM=dumb`.
@Suite struct ProgressBarTests {
  /// A progress bar line as `ProgressDisplay` draws it: `LABEL [###---]  42% …`.
  static func isBar(_ line: String, label: String) -> Bool {
    line.hasPrefix(label) && line.contains(" [") && line.contains("]") && line.contains("%")
  }

  @Test func aLargeSendOnATerminalShowsABarWithAPercentageWhileItRunsAndLeavesNoBarBehind() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    try b.acceptEverything()  // a large sparse file is binary data; see ShareHome.acceptEverything
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    // Large enough that the transfer lasts seconds over loopback, so a person (and this test)
    // sees the bar move; sparse, so it costs no time or disk to make.
    let huge = try a.sparseFile("huge.bin", size: 512 << 20)

    let command = ["--home", a.home.path, "send", huge.path, "--to", daemon.address]
    let shell =
      ([try ShareBinary.require().path] + command).map(shellQuoted).joined(separator: " ")
      + "; echo share-exit=$?; exec sleep 600"
    var environment = a.environment()
    environment["TMUX"] = nil
    let session = try TmuxSession(command: shell, width: 120, height: 30, environment: environment)

    // While it runs: a bar for the receiver, with a percentage.
    let during = try session.waitForScreen { screen in
      screen.contains { Self.isBar($0, label: "bob huge.bin") } || screen.contains { $0.hasPrefix("share-exit=") }
    }
    let bar = during.screen.first { Self.isBar($0, label: "bob huge.bin") }
    #expect(bar != nil, "no progress bar was seen during the send; the screen was:\n\(during.screen.joined(separator: "\n"))")
    #expect(!during.screen.contains { $0.hasPrefix("share-exit=") }, "the send ended before a bar was seen")

    // When it is over: the results, and no bar left on the screen.
    let after = try session.waitForScreen { $0.contains { $0.hasPrefix("share-exit=") } }
    #expect(after.matched, "the send did not finish:\n\(after.screen.joined(separator: "\n"))")
    let screen = after.screen
    #expect(screen.contains("share-exit=0"), "\(screen.joined(separator: "\n"))")
    #expect(screen.contains("stored   huge.bin"), "\(screen.joined(separator: "\n"))")
    #expect(screen.contains { $0.hasPrefix("1 of 1 stored in bob's Inbox: 512 MiB in ") }, "\(screen.joined(separator: "\n"))")
    #expect(screen.contains("Connected to bob at \(daemon.address)"), "\(screen.joined(separator: "\n"))")
    #expect(!screen.contains { $0.contains("%") }, "a bar was left behind:\n\(screen.joined(separator: "\n"))")
    #expect(fileSize(b.inbox.appendingPathComponent("huge.bin")) == Int64(512 << 20))
  }

  /// Runs a 1 GiB send in a tmux window `width` columns wide and captures the screen until it
  /// ends; returns every capture.
  func screensOfALargeSend(width: Int, environment extra: [String: String] = [:]) throws -> [[String]] {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    try b.acceptEverything()
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let huge = try a.sparseFile("huge.bin", size: 1 << 30)
    let command = ["--home", a.home.path, "send", huge.path, "--to", daemon.address]
    let shell =
      ([try ShareBinary.require().path] + command).map(shellQuoted).joined(separator: " ")
      + "; echo share-exit=$?; exec sleep 600"
    var environment = a.environment()
    environment["TMUX"] = nil
    environment["COLUMNS"] = nil
    for (key, value) in extra { environment[key] = value }
    let session = try TmuxSession(command: shell, width: width, height: 20, environment: environment)
    var screens: [[String]] = []
    let deadline = ContinuousClock.now + .seconds(120)
    while ContinuousClock.now < deadline {
      let screen = try session.screen()
      screens.append(screen)
      if screen.contains(where: { $0.hasPrefix("share-exit=") }) { break }
      usleep(100_000)
    }
    return screens
  }

  /// The bar stays one line in a narrow window: it is as wide as the terminal says it is
  /// (TIOCGWINSZ), even when $COLUMNS is unset (shells do not export it) or wrong.
  @Test(arguments: [[:], ["COLUMNS": "120"]])
  func inANarrowWindowTheBarIsOneLineRedrawnInPlace(environment: [String: String]) throws {
    let screens = try screensOfALargeSend(width: 50, environment: environment)
    let last = screens.last ?? []
    #expect(last.contains("share-exit=0"), "\(last.joined(separator: "\n"))")
    let withBars = screens.filter { $0.contains { Self.isBar($0, label: "bob huge.bin") } }
    #expect(withBars.count >= 2, "too few captures showed a bar: \(screens.map { $0.joined(separator: "\n") })")
    for screen in screens {
      let figures = screen.filter { $0.contains("%") || $0.contains("ETA") || $0.contains("[#") || $0.contains("[-") }
      #expect(figures.count <= 1, "the bar wrapped or piled up:\n\(screen.joined(separator: "\n"))")
      #expect(figures.allSatisfy { Self.isBar($0, label: "bob huge.bin") && $0.count < 50 }, "\(screen.joined(separator: "\n"))")
    }
  }

  @Test func noBarIsDrawnWhenStderrIsAPipe() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let text = try a.file("long.txt", String(repeating: "progress is for people\n", count: 200_000))
    let sent = try a.run(
      ["--home", a.home.path, "send", text.path, "--to", daemon.address], environment: ["TERM": "xterm-256color"])
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(!sent.stderrText.contains("%"), "\(sent)")
    #expect(!sent.stderr.contains(escapeByte) && !sent.stderrText.contains("\r"), "\(sent)")
    #expect(sent.stderrLines.count == 3, "only the connection, the receiver ID and the summary: \(sent)")
  }

  /// Sends a small file with stderr on a pseudo-terminal; returns what the terminal showed.
  func sendOnATerminal(term: String) throws -> (CommandResult, String, Daemon) {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    let terminal = try Pseudoterminal()
    let child = try a.start(
      ["--home", a.home.path, "send", try a.file("small.txt", "small\n").path, "--to", daemon.address],
      environment: ["TERM": term], stderr: terminal.terminal)
    let shown = String(decoding: terminal.closeAndCollect(), as: UTF8.self)
    return (child.wait(), shown, daemon)
  }

  @Test func onATerminalEvenASmallSendDrawsItsBarAndClearsIt() throws {
    let (result, shown, daemon) = try sendOnATerminal(term: "xterm-256color")
    defer { _ = daemon.stop() }
    #expect(result.exited(with: 0), "\(result)")
    #expect(shown.contains("100%"), "\(shown.debugDescription)")
    // Drawn lines are taken back: cursor up, erase line.
    #expect(shown.contains("\u{1b}[1A\u{1b}[2K"), "\(shown.debugDescription)")
    let summary = try #require(shown.range(of: "1 of 1 stored in bob's Inbox: 6 bytes in "), "\(shown.debugDescription)")
    let after = shown[summary.upperBound...]
    #expect(
      !after.contains("\u{1b}") && after.filter { $0 == "\r\n" }.count == 1 && shown.hasSuffix("\r\n"),
      "the summary comes after the bar is cleared: \(shown.debugDescription)")
  }

  @Test func termDumbDrawsNoBarEvenOnATerminal() throws {
    let (result, shown, daemon) = try sendOnATerminal(term: "dumb")
    defer { _ = daemon.stop() }
    #expect(result.exited(with: 0), "\(result)")
    #expect(shown.contains("1 of 1 stored in bob's Inbox"), "\(shown.debugDescription)")
    #expect(!shown.contains("%"), "\(shown.debugDescription)")
    #expect(!shown.contains("\u{1b}"), "\(shown.debugDescription)")
  }
}
