import Foundation
import Synchronization
import System
import TLS
import Testing

/// localsend-cli from PyPI, run through scripts/localsend/loopback_cli.py (which confines its
/// network to loopback and lets the tests choose its port) with a home of its own.
struct LocalsendCLI {
  let home: TemporaryDirectory

  /// Where scripts/localsend/setup-venv.sh puts it: `$SHARE_LOCALSEND_VENV`, else a cache
  /// folder shared by every clone (scripts/test.sh installs it before the tests run).
  static let venv: URL = {
    let environment = ProcessInfo.processInfo.environment
    if let dir = environment["SHARE_LOCALSEND_VENV"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
    let cache = environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
      ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache")
    return cache.appendingPathComponent("share/localsend-venv")
  }()
  static let setup = Mutex<Bool>(false)

  /// Installs the virtual environment once per test run (scripts/localsend/setup-venv.sh).
  init() throws {
    try Self.setup.withLock { done in
      guard !done else { return }
      let result = try LocalSendTests.run("/bin/bash", [repositoryRoot.appendingPathComponent("scripts/localsend/setup-venv.sh").path, Self.venv.path])
      guard result.status == 0 else { throw TestFailure("setup-venv.sh failed: \(result.stderr)") }
      done = true
    }
    home = try TemporaryDirectory()
  }

  var python: String { Self.venv.appendingPathComponent("bin/python").path }
  var wrapper: String { repositoryRoot.appendingPathComponent("scripts/localsend/loopback_cli.py").path }

  /// Its environment: the home, the port, and no CA bundle variables (requests lets
  /// REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE override the `session.verify = False` localsend-cli
  /// relies on, so with them set it refuses every self-signed receiver).
  func environment(port: UInt16) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["REQUESTS_CA_BUNDLE"] = nil
    environment["CURL_CA_BUNDLE"] = nil
    environment["HOME"] = home.path
    environment["LOCALSEND_PORT"] = String(port)
    environment["PYTHONUNBUFFERED"] = "1"
    return environment
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

  static func events(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
  }
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
