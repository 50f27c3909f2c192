import Foundation
import LocalsendCLIHarness
import Synchronization
import System
import TLS
import Testing

/// localsend-cli from PyPI, run through scripts/localsend/loopback_cli.py (which confines its
/// network to loopback and lets the tests choose its port) with a home of its own.
struct LocalsendCLI {
  let home: TemporaryDirectory

  /// Installs the virtual environment once per test run (scripts/localsend/setup-venv.sh).
  init() throws {
    try LocalsendCLIInstall.ensureInstalled()
    home = try TemporaryDirectory()
  }

  var python: String { LocalsendCLIInstall.python }
  var wrapper: String { LocalsendCLIInstall.wrapper }

  /// Its environment (see `LocalsendCLIInstall.environment`).
  func environment(port: UInt16) -> [String: String] {
    LocalsendCLIInstall.environment(home: home.path, port: port)
  }

  /// Runs it to completion; its `--json` events, one object per line.
  func run(_ arguments: [String], port: UInt16 = 53317) throws -> (status: Int32, events: [[String: Any]], stderr: String) {
    let result = try LocalSendTests.run(python, [wrapper] + arguments, environment: environment(port: port), inherit: false)
    return (result.status, Self.events(result.stdout), result.stderr)
  }

  /// The LocalSend fingerprint localsend-cli claims: SHA-256 of its certificate, lowercase hex.
  var fingerprint: String? {
    let pem = try? String(contentsOfFile: home.url.appendingPathComponent(".config/localsend-cli/cert.pem").path, encoding: .utf8)
    return pem.map { sha256Hex(der(ofPEM: $0)) }
  }

  static func events(_ text: String) -> [[String: Any]] { LocalsendCLIInstall.events(text) }
}

/// A localsend-cli process left running (its receiver), with its output read as it comes.
final class RunningCLI: @unchecked Sendable {
  let process = Process()
  private let lines = Mutex<[String]>([])
  private let arrived = DispatchSemaphore(value: 0)

  init(_ cli: LocalsendCLI, _ arguments: [String], port: UInt16) throws {
    process.executableURL = URL(fileURLWithPath: cli.python)
    process.arguments = [cli.wrapper] + arguments
    process.environment = cli.environment(port: port)
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let reader = out.fileHandleForReading
    reader.readabilityHandler = { [self] handle in
      let data = handle.availableData
      guard !data.isEmpty else { return }
      let text = String(decoding: data, as: UTF8.self)
      lines.withLock { $0.append(contentsOf: text.split(separator: "\n").map(String.init)) }
      arrived.signal()
    }
    try process.run()
  }

  var events: [[String: Any]] { LocalsendCLI.events(lines.withLock { $0.joined(separator: "\n") }) }

  /// Waits until an event satisfies `match`.
  func wait(seconds: Double = 30, for match: ([String: Any]) -> Bool) throws -> [String: Any] {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if let found = events.first(where: match) { return found }
      _ = arrived.wait(timeout: .now() + 0.5)
    }
    if let found = events.first(where: match) { return found }
    throw TestFailure("no matching event; saw \(events)")
  }

  /// Kills it (SIGKILL: the test runner's children do not die of SIGTERM here) and reaps it.
  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }
}

/// A TCP port that was free a moment ago (for programs that cannot be given port 0).
func freePort() throws -> UInt16 {
  let listener = try TCPListener(host: "127.0.0.1", port: 0)
  defer { listener.close() }
  return listener.port
}
