import Foundation
import LocalsendCLIHarness
import System

/// localsend-cli from PyPI (a LocalSend client and receiver nobody here wrote), run through
/// scripts/localsend/loopback_cli.py, which confines its network to loopback and sets its port
/// (`LOCALSEND_PORT`), with a home of its own inside a `ShareHome`'s scratch area
/// (`LocalsendCLIInstall`, shared with `Tests/LocalSendTests`).
struct LocalsendCLI {
  let home: URL

  /// A localsend-cli with its home in `peer`'s scratch area (installed once per run).
  init(in peer: ShareHome) throws {
    try LocalsendCLIInstall.ensureInstalled()
    home = peer.root.appendingPathComponent("localsend-cli")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
  }

  /// Starts `localsend-cli ARGUMENTS...` (its multicast and default port on `port`).
  func start(_ arguments: [String], port: UInt16) throws -> ChildProcess {
    try ChildProcess(
      executable: URL(fileURLWithPath: LocalsendCLIInstall.python), arguments: [LocalsendCLIInstall.wrapper] + arguments,
      environment: LocalsendCLIInstall.environment(home: home.path, port: port))
  }

  /// Its `--json` events, one object per line of `text`.
  static func events(_ text: String) -> [[String: Any]] { LocalsendCLIInstall.events(text) }
}

/// A TCP port on 127.0.0.1 that was free a moment ago (for programs that cannot be given 0).
func freeLoopbackPort() throws -> UInt16 {
  let listener = try TCPListener(host: "127.0.0.1", port: 0)
  defer { listener.close() }
  return listener.port
}
