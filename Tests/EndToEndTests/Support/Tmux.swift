import Foundation
import Glibc

/// A real terminal for one test: a detached tmux session on a server of its own (its socket in
/// a temporary folder, so tests in parallel never share a server), running one shell command.
/// `screen()` is what a person would see in that window at that moment. The server is killed
/// when the session goes away.
final class TmuxSession {
  private let socket: URL
  private let folder: URL
  /// The client that started the server. Foundation notices a child's exit when a socket it
  /// hands the child is closed; this client passes it on to the server it forks, so its exit is
  /// only seen once the server stops. It is never waited for until then.
  private var starter: ChildProcess?
  static let executable: URL? = ["/usr/bin/tmux", "/bin/tmux"].map { URL(fileURLWithPath: $0) }
    .first { access($0.path, X_OK) == 0 }

  /// Starts `command` (a shell command line) in a `width`×`height` window with `environment`,
  /// and waits (bounded) until the session exists.
  init(command: String, width: Int = 120, height: Int = 30, environment: [String: String]) throws {
    guard let executable = TmuxSession.executable else {
      throw HarnessError("this test needs tmux (Debian package 'tmux')")
    }
    folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-tmux-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    socket = folder.appendingPathComponent("sock")
    // -f /dev/null: no user configuration. The server starts with `environment`.
    starter = try ChildProcess(
      executable: executable,
      arguments: ["-S", socket.path, "-f", "/dev/null", "new-session", "-d", "-x", String(width), "-y", String(height), command],
      environment: environment)
    let deadline = ContinuousClock.now + .seconds(20)
    while try !tmux(["has-session"]).exited(with: 0) {
      guard ContinuousClock.now < deadline else {
        throw HarnessError("the tmux session did not start: \(String(decoding: starter?.stderrSoFar ?? Data(), as: UTF8.self))")
      }
      usleep(10_000)
    }
  }

  deinit {
    _ = try? tmux(["kill-server"])
    // The server is gone, so the starter's exit can now be seen; reap it before letting go.
    _ = starter?.wait(timeout: .seconds(10))
    try? FileManager.default.removeItem(at: folder)
  }

  /// The visible lines of the window, trailing blanks trimmed, empty lines dropped.
  func screen() throws -> [String] {
    let captured = try tmux(["capture-pane", "-p"])
    guard captured.exited(with: 0) else { throw HarnessError("tmux capture-pane failed:\n\(captured)") }
    return captured.stdoutLines.map { line in
      var line = line
      while line.last == " " { line.removeLast() }
      return line
    }.filter { !$0.isEmpty }
  }

  /// Captures the window (bounded, every 20 ms) until `done` holds for it; returns the last
  /// capture and whether `done` held.
  func waitForScreen(timeout: Duration = .seconds(60), _ done: ([String]) -> Bool) throws -> (screen: [String], matched: Bool) {
    let deadline = ContinuousClock.now + timeout
    var last: [String] = []
    while ContinuousClock.now < deadline {
      last = try screen()
      if done(last) { return (last, true) }
      usleep(20_000)
    }
    return (last, false)
  }

  /// Types into the window as a person would: each argument is text typed as it is, or a key
  /// tmux names (`Tab`, `Enter`, `C-u`, `C-d`) when it is one.
  func type(_ keys: String...) throws {
    for key in keys {
      let named = ["Tab", "Enter", "C-u", "C-c", "C-d", "Escape"].contains(key)
      let sent = try tmux(["send-keys"] + (named ? [] : ["-l"]) + [key])
      guard sent.exited(with: 0) else { throw HarnessError("tmux send-keys failed:\n\(sent)") }
    }
  }

  private func tmux(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CommandResult {
    guard let executable = TmuxSession.executable else { throw HarnessError("tmux is not installed") }
    let child = try ChildProcess(
      executable: executable, arguments: ["-S", socket.path, "-f", "/dev/null"] + arguments, environment: environment)
    return child.wait(timeout: .seconds(20))
  }
}

/// Quotes `word` for a POSIX shell command line.
func shellQuoted(_ word: String) -> String {
  "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
