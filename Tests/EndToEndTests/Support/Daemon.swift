import Foundation
import Glibc

/// `share daemon --port 0 --host 127.0.0.1` running in the background for one test, its port
/// read from its `listening on port N` line (with `--json`, its `{"event":"listening"}` line). Stopped with SIGTERM (SIGKILL if that does not work)
/// when the test calls `stop()` or, at the latest, when it goes away.
final class Daemon {
  let home: ShareHome
  let process: ChildProcess
  let port: UInt16

  init(home: ShareHome, json: Bool = false, extra: [String] = []) throws {
    self.home = home
    let arguments = ["--home", home.home.path, "daemon", "--port", "0", "--host", "127.0.0.1"] + (json ? ["--json"] : []) + extra
    process = try home.start(arguments)
    var found: UInt16? = nil
    process.waitFor(timeout: .seconds(30)) { stdout, _, exited in
      found = Daemon.listeningPort(in: stdout)
      return found != nil || exited
    }
    guard let found else {
      let result = process.isRunning ? process.wait(timeout: .seconds(0)) : process.wait()
      throw HarnessError("the daemon did not print 'listening on port N':\n\(result)")
    }
    port = found
  }

  deinit {
    if process.isRunning { _ = stop() }
  }

  /// The port from a complete `listening on port N` or `{"event":"listening","port":N}` line.
  static func listeningPort(in stdout: Data) -> UInt16? {
    let text = String(decoding: stdout, as: UTF8.self)
    let prefix = "listening on port "
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      if line.hasPrefix(prefix) { return UInt16(line.dropFirst(prefix.count)) }
      if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        object["event"] as? String == "listening"
      {
        return (object["port"] as? NSNumber).map { $0.uint16Value }
      }
    }
    return nil
  }

  /// `127.0.0.1:PORT`, for `--to`.
  var address: String { "127.0.0.1:\(port)" }
  var isRunning: Bool { process.isRunning }
  /// Everything it logged so far.
  var log: String { process.stderrTextSoFar }

  /// Waits (bounded) until its log contains `text` `count` times or more.
  func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(20)) -> Bool {
    process.waitFor(timeout: timeout) { _, stderr, _ in
      String(decoding: stderr, as: UTF8.self).components(separatedBy: text).count - 1 >= count
    }
  }

  /// SIGTERM, then waits; a daemon that does not stop within `timeout` is killed with SIGKILL
  /// (and the result says `timedOut`).
  ///
  /// The signal is sent once the daemon has its SIGTERM handler (bounded wait): it may announce
  /// its port before the handler is installed and, meanwhile, ignores SIGTERM — a known bug that
  /// `DaemonLifecycleTests` pins down; the other tests are not about it.
  func stop(timeout: Duration = .seconds(10)) -> CommandResult {
    let deadline = ContinuousClock.now + .seconds(10)
    while process.isRunning && !process.catches(SIGTERM) && ContinuousClock.now < deadline { usleep(1_000) }
    process.signal(SIGTERM)
    return process.wait(timeout: timeout)
  }

  /// SIGKILL: no chance to clean anything up.
  func kill9() -> CommandResult {
    process.signal(SIGKILL)
    return process.wait(timeout: .seconds(10))
  }
}
