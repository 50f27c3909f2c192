import ShareKit

/// The two output streams of a command.
package enum ConsoleStream: Sendable {
  case standardOutput
  case standardError
}

/// Where the CLI's text goes: the process's stdout and stderr, or a buffer when a test runs
/// commands in process.
package protocol Console: Sendable {
  /// Writes `text` as it is (no newline added).
  func write(_ text: String, to stream: ConsoleStream)
  /// Whether the stream is a terminal (colour, progress bars, prompts).
  func isTerminal(_ stream: ConsoleStream) -> Bool
  /// The width of the terminal the stream is, in columns; nil when it is none or cannot say.
  func columns(_ stream: ConsoleStream) -> Int?
}

extension Console {
  package func columns(_ stream: ConsoleStream) -> Int? { nil }
}

/// The process's own stdout and stderr.
struct StandardConsole: Console {
  func write(_ text: String, to stream: ConsoleStream) {
    (stream == .standardOutput ? StandardStream.output : .error).write(text)
  }

  func isTerminal(_ stream: ConsoleStream) -> Bool {
    (stream == .standardOutput ? StandardStream.output : .error).isTerminal
  }

  func columns(_ stream: ConsoleStream) -> Int? {
    (stream == .standardOutput ? StandardStream.output : .error).columns
  }
}
