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
    let shell = ([try ShareBinary.require().path] + command).map(shellQuoted).joined(separator: " ")
      + "; echo share-exit=$?; exec sleep 600"
    var environment = a.environment()
    environment["TMUX"] = nil
    let session = try TmuxSession(command: shell, width: 120, height: 30, environment: environment)

    // While it runs: a bar for the receiver, with a percentage.
    let during = try session.waitForScreen { screen in
      screen.contains { Self.isBar($0, label: daemon.address) } || screen.contains { $0.hasPrefix("share-exit=") }
    }
    let bar = during.screen.first { Self.isBar($0, label: daemon.address) }
    #expect(bar != nil, "no progress bar was seen during the send; the screen was:\n\(during.screen.joined(separator: "\n"))")
    #expect(!during.screen.contains { $0.hasPrefix("share-exit=") }, "the send ended before a bar was seen")

    // When it is over: the results, and no bar left on the screen.
    let after = try session.waitForScreen { $0.contains { $0.hasPrefix("share-exit=") } }
    #expect(after.matched, "the send did not finish:\n\(after.screen.joined(separator: "\n"))")
    let screen = after.screen
    #expect(screen.contains("share-exit=0"), "\(screen.joined(separator: "\n"))")
    #expect(screen.contains("stored   huge.bin"), "\(screen.joined(separator: "\n"))")
    #expect(screen.contains("1 of 1 stored in bob's Inbox"), "\(screen.joined(separator: "\n"))")
    #expect(screen.contains("Connected to bob at \(daemon.address)"), "\(screen.joined(separator: "\n"))")
    #expect(!screen.contains { $0.contains("%") }, "a bar was left behind:\n\(screen.joined(separator: "\n"))")
    #expect(fileSize(b.inbox.appendingPathComponent("huge.bin")) == Int64(512 << 20))
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
    #expect(shown.hasSuffix("1 of 1 stored in bob's Inbox\r\n"), "the summary comes after the bar is cleared: \(shown.debugDescription)")
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
