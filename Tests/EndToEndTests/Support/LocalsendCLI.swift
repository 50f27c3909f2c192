import Foundation
import Synchronization
import System

/// localsend-cli from PyPI (a LocalSend client and receiver nobody here wrote), run through
/// scripts/localsend/loopback_cli.py, which confines its network to loopback and sets its port
/// (`LOCALSEND_PORT`), with a home of its own inside a `ShareHome`'s scratch area.
/// Installed once per run by scripts/localsend/setup-venv.sh into the cache that
/// `Tests/LocalSendTests` use too.
struct LocalsendCLI {
  let home: URL

  /// `$SHARE_LOCALSEND_VENV`, else `${XDG_CACHE_HOME:-~/.cache}/share/localsend-venv`.
  static let venv: URL = {
    let environment = ProcessInfo.processInfo.environment
    if let dir = environment["SHARE_LOCALSEND_VENV"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
    let cache = environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
      ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache")
    return cache.appendingPathComponent("share/localsend-venv")
  }()
  /// <package>/scripts/localsend.
  static let scripts = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("scripts/localsend")
  private static let installed = Mutex(false)

  /// A localsend-cli with its home in `peer`'s scratch area.
  init(in peer: ShareHome) throws {
    try Self.installed.withLock { done in
      guard !done else { return }
      let setup = try ChildProcess(
        executable: URL(fileURLWithPath: "/bin/bash"),
        arguments: [Self.scripts.appendingPathComponent("setup-venv.sh").path, Self.venv.path],
        environment: ProcessInfo.processInfo.environment
      ).wait(timeout: .seconds(600))
      guard setup.exited(with: 0) else { throw HarnessError("setup-venv.sh failed:\n\(setup)") }
      done = true
    }
    home = peer.root.appendingPathComponent("localsend-cli")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
  }

  /// Its environment: its home and port, and no CA bundle variables (with them, requests
  /// overrides the `verify = False` localsend-cli relies on and refuses self-signed receivers).
  func environment(port: UInt16) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["REQUESTS_CA_BUNDLE"] = nil
    environment["CURL_CA_BUNDLE"] = nil
    environment["HOME"] = home.path
    environment["LOCALSEND_PORT"] = String(port)
    environment["PYTHONUNBUFFERED"] = "1"
    return environment
  }

  /// Starts `localsend-cli ARGUMENTS...` (its multicast and default port on `port`).
  func start(_ arguments: [String], port: UInt16) throws -> ChildProcess {
    try ChildProcess(
      executable: Self.venv.appendingPathComponent("bin/python"),
      arguments: [Self.scripts.appendingPathComponent("loopback_cli.py").path] + arguments,
      environment: environment(port: port))
  }

  /// Its `--json` events, one object per line of `text`.
  static func events(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
  }
}

/// A TCP port on 127.0.0.1 that was free a moment ago (for programs that cannot be given 0).
func freeLoopbackPort() throws -> UInt16 {
  let listener = try TCPListener(host: "127.0.0.1", port: 0)
  defer { listener.close() }
  return listener.port
}
