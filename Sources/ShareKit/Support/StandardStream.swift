import Glibc
import Synchronization
import System
import TextEscaping

/// The process's standard output or error, for the command line's console: text is written
/// whole (a short write is continued, an interrupted one retried). When standard output's reader
/// is gone (a closed pipe: `share peers --watch | head -1`), the process ends as SIGPIPE would
/// have ended it (exit 141; SIGPIPE itself is ignored, for sockets): it would otherwise write
/// into nothing for ever (review 16). Standard error's text is then dropped.
package enum StandardStream: Sendable {
  case output
  case error

  private var descriptor: FileDescriptor { self == .output ? .standardOutput : .standardError }

  /// Writes all of `text`.
  package func write(_ text: String) {
    do {
      // A file name's bytes that are not UTF-8 go out as they are (`FileNameText`) to a pipe or
      // a file, so a path printed for a script is the path on disk (review 45: `inbox move`
      // printed U+10FFE9); never to a terminal, where such a byte could be one of its controls.
      let raw = FileNameText.holdsRawBytes(text) && !isTerminal
      try descriptor.writeAll(raw ? FileNameText.bytes(of: text) : Array(text.utf8))
    } catch .brokenPipe where self == .output {
      // No atexit handlers, as for the signal: other threads may be mid-way through anything.
      _exit(141)
    } catch {
      if self == .output { Self.failure.withLock { $0 = $0 ?? error } }
    }
  }

  /// Why something written to standard output did not get there (a full disk, a closed
  /// descriptor), or nil: a command that lost output must not say it succeeded (review 30:
  /// `share inbox list --json >/dev/full` exited 0).
  package static var outputFailure: Errno? { failure.withLock { $0 } }
  private static let failure = Mutex<Errno?>(nil)

  /// Gives standard input, output and error `/dev/null` when the process was started with one
  /// of them closed (`share id >&-`): a file share opens would otherwise get its number, and
  /// output meant for the terminal would be written into it. Standard output closed so counts
  /// as output that failed. Call it first, before anything is opened.
  package static func occupyClosedDescriptors() {
    for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 {
      let null = open("/dev/null", O_RDWR)
      if null >= 0 && null != fd {
        dup2(null, fd)
        close(null)
      }
      if fd == 1 { failure.withLock { $0 = .badFileDescriptor } }
    }
  }

  /// Whether the stream is a terminal.
  package var isTerminal: Bool { isatty(descriptor.rawValue) == 1 }

  /// The width of the terminal the stream is, in columns (`TIOCGWINSZ`); nil when it is not a
  /// terminal or reports no width.
  package var columns: Int? {
    var size = winsize()
    guard ioctl(descriptor.rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }
}
