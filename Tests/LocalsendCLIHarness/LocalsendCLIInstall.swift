import Foundation
import Synchronization

/// Where localsend-cli (PyPI; a LocalSend client and receiver nobody here wrote) lives for the
/// tests, how it is installed, and the environment it runs in: shared by `LocalSendTests` and
/// `EndToEndTests`, which each drive it their own way.
package enum LocalsendCLIInstall {
  /// Where scripts/localsend/setup-venv.sh puts it: `$SHARE_LOCALSEND_VENV`, else a cache folder
  /// shared by every clone (scripts/test.sh installs it before the tests run).
  package static let venv: URL = {
    let environment = ProcessInfo.processInfo.environment
    if let dir = environment["SHARE_LOCALSEND_VENV"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
    let cache =
      environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
      ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache")
    return cache.appendingPathComponent("share/localsend-venv")
  }()

  /// <package>/scripts/localsend.
  package static let scripts = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("scripts/localsend")

  /// The venv's Python, and the wrapper that confines localsend-cli to loopback.
  package static var python: String { venv.appendingPathComponent("bin/python").path }
  package static var wrapper: String { scripts.appendingPathComponent("loopback_cli.py").path }

  private static let installed = Mutex(false)

  /// Runs scripts/localsend/setup-venv.sh once per test run; throws what it printed if it fails.
  package static func ensureInstalled() throws {
    try installed.withLock { done in
      guard !done else { return }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/bash")
      process.arguments = [scripts.appendingPathComponent("setup-venv.sh").path, venv.path]
      let errors = Pipe()
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      let message = errors.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      guard process.terminationStatus == 0 else {
        throw InstallFailure(description: "setup-venv.sh failed: " + String(decoding: message, as: UTF8.self))
      }
      done = true
    }
  }

  /// Its environment: its home and port (`LOCALSEND_PORT`, read by the wrapper), and no CA
  /// bundle variables (requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE override the
  /// `session.verify = False` localsend-cli relies on, so with them set it refuses every
  /// self-signed receiver).
  package static func environment(home: String, port: UInt16) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["REQUESTS_CA_BUNDLE"] = nil
    environment["CURL_CA_BUNDLE"] = nil
    environment["HOME"] = home
    environment["LOCALSEND_PORT"] = String(port)
    environment["PYTHONUNBUFFERED"] = "1"
    return environment
  }

  /// Its `--json` events, one object per line of `text`.
  package static func events(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
  }
}

/// setup-venv.sh failed.
package struct InstallFailure: Error, CustomStringConvertible {
  package var description: String
}
