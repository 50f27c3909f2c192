import Foundation
import Glibc
import Testing

/// Tab in an interactive bash in a real terminal (tmux), with the completion installed as a
/// desktop has it (bash-completion, then `share completions bash`): `share send --to <Tab>`
/// completes the name of a daemon advertised nearby through Avahi, and `share receive <Tab><Tab>`
/// lists the modes. Avahi comes from scripts/avahi-up.sh (it reuses one that runs).
@Suite(.serialized) struct TabCompletionTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func tabCompletesANearbyPeersNameAndTheModes() throws {
    try Self.avahiUp()
    let name = "tabpeer-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
    let receiver = try ShareHome(name: name)
    let daemon = try Daemon(home: receiver)
    defer { _ = daemon.stop() }
    let sender = try ShareHome(name: "tabber")
    // Avahi has the daemon once 'share peers' lists it; Tab then asks within ~300 ms.
    let seen = try Self.eventually { try sender.share("peers", "--timeout", "2").stdoutText.contains(name + "\t") }
    try #require(seen, "Avahi never listed \(name)")

    let binary = try ShareBinary.require()
    let rc = sender.root.appendingPathComponent("bashrc")
    let loadBashCompletion = "[ -r /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion"
    try Data("PS1='$ '\n\(loadBashCompletion)\nsource <(share completions bash)\n".utf8).write(to: rc)
    let path = binary.deletingLastPathComponent().path + ":" + (sender.environment()["PATH"] ?? "/usr/bin:/bin")
    let session = try TmuxSession(
      command: "bash --noprofile --rcfile \(shellQuoted(rc.path)) -i", width: 100, height: 20,
      environment: sender.environment(["PATH": path, "TERM": "xterm", "SHARE_HOME": sender.home.path]))
    try #require(try session.waitForScreen(timeout: .seconds(20)) { $0.last == "$" }.matched, "no prompt")

    // The unique start of its name: one Tab completes it (Avahi may be slow once: Tab again).
    // Tab's browse has ~300 ms; on CI's loaded machine five tries all missed it once (a
    // clean-clone run, 2026-12-05), so it gets ten.
    let completed = "$ share send --to \(name)"
    var screen: [String] = []
    for _ in 0..<10 where screen.last != completed {
      try session.type("C-u", "share send --to tabpeer-\(name.dropFirst("tabpeer-".count).prefix(3))", "Tab")
      screen = try session.waitForScreen(timeout: .seconds(5)) { $0.last == completed }.screen
    }
    #expect(screen.last == completed, "\(screen.joined(separator: "\n"))")

    try session.type("C-u", "share receive ", "Tab", "Tab")
    let modes = try session.waitForScreen(timeout: .seconds(10)) {
      $0.contains { $0.contains("contacts") && $0.contains("everyone") && $0.contains("off") }
    }
    #expect(modes.matched, "\(modes.screen.joined(separator: "\n"))")
  }

  /// Retries `check` for up to 20 s.
  static func eventually(_ check: () throws -> Bool) throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
      if try check() { return true }
      usleep(200_000)
    }
    return false
  }

  static func avahiUp() throws {
    let script = repository.appendingPathComponent("scripts/avahi-up.sh")
    let result = try ChildProcess(
      executable: URL(fileURLWithPath: "/bin/bash"), arguments: [script.path], environment: ProcessInfo.processInfo.environment
    ).wait(timeout: .seconds(60))
    try #require(result.exited(with: 0), "scripts/avahi-up.sh failed: \(result)")
  }
}
