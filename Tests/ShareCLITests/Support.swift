import Foundation
import Synchronization

@testable import ShareCLI

/// A console that keeps what a command wrote, and is not a terminal.
final class CapturedConsole: Console {
  private let text = Mutex<(out: String, err: String)>(("", ""))

  func write(_ text: String, to stream: ConsoleStream) {
    self.text.withLock { captured in
      if stream == .standardOutput { captured.out += text } else { captured.err += text }
    }
  }

  func isTerminal(_ stream: ConsoleStream) -> Bool { false }

  var out: String { text.withLock { $0.out } }
  var err: String { text.withLock { $0.err } }
}

/// What one in-process run of `share` did.
struct Run: CustomStringConvertible {
  var code: ExitCode
  var out: String
  var err: String

  var outLines: [String] {
    out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast(out.hasSuffix("\n") ? 1 : 0)
  }
  var errLines: [String] {
    err.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast(err.hasSuffix("\n") ? 1 : 0)
  }
  var description: String { "exit \(code.rawValue)\n--- stdout\n\(out)--- stderr\n\(err)" }
}

/// Runs a command line in this process, in a scratch home unless the environment names one.
func share(_ words: [String], environment: [String: String] = [:]) -> Run {
  let console = CapturedConsole()
  var environment = environment
  if environment["SHARE_HOME"] == nil { environment["SHARE_HOME"] = "/nonexistent/share-cli-tests" }
  let code = Entrypoint.main(words, environment: environment, console: console)
  return Run(code: code, out: console.out, err: console.err)
}

/// A scratch home, an empty folder until a command fills it; removed by `remove()`.
struct ScratchHome {
  let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-cli-\(UUID().uuidString)")

  init() {
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    try? FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
  }
  var environment: [String: String] { ["SHARE_HOME": url.path] }
  /// A folder beside the home for a test's own files (a home holds only share's).
  var files: URL { URL(fileURLWithPath: url.path + "-files") }
  func remove() {
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.removeItem(at: files)
  }
}
