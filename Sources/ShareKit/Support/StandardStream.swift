import Glibc
import System

/// The process's standard output or error, for the command line's console: text is written
/// whole (a short write is continued, an interrupted one retried), or dropped when the stream is
/// gone (a closed pipe).
public enum StandardStream: Sendable {
  case output
  case error

  private var descriptor: FileDescriptor { self == .output ? .standardOutput : .standardError }

  /// Writes all of `text`.
  public func write(_ text: String) {
    try? descriptor.writeAll(Array(text.utf8))
  }

  /// Whether the stream is a terminal.
  public var isTerminal: Bool { isatty(descriptor.rawValue) == 1 }
}
