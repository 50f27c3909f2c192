import Glibc

/// The two output streams of a command.
public enum ConsoleStream: Sendable {
  case standardOutput
  case standardError
}

/// Where the CLI's text goes: the process's stdout and stderr, or a buffer when a test runs
/// commands in process.
public protocol Console: Sendable {
  /// Writes `text` as it is (no newline added).
  func write(_ text: String, to stream: ConsoleStream)
  /// Whether the stream is a terminal (colour, progress bars, prompts).
  func isTerminal(_ stream: ConsoleStream) -> Bool
}

/// The process's own stdout and stderr.
struct StandardConsole: Console {
  func write(_ text: String, to stream: ConsoleStream) {
    let fd = stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      offset += n
    }
  }

  func isTerminal(_ stream: ConsoleStream) -> Bool {
    isatty(stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO) == 1
  }
}
