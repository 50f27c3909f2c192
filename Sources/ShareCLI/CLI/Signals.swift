import Foundation
import Glibc
import Synchronization

/// Termination and reload signals, handled without a window in which one can be lost.
///
/// `start()` runs first thing in `main`, before any other thread exists: it blocks SIGINT,
/// SIGTERM and SIGHUP (every later thread inherits the block) and starts a thread that takes
/// them with `sigwait`. A signal sent at any moment stays pending until that thread picks it up
/// and runs the current handler. Until a command sets its own, SIGINT and SIGTERM end the
/// process with status 130 and SIGHUP is ignored. (Ignoring a signal while a Dispatch source
/// sets itself up would drop one that arrives in between.)
enum Signals {
  static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]
  private static let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)

  static func start() {
    var set = sigset_t()
    sigemptyset(&set)
    for number in handled { sigaddset(&set, number) }
    pthread_sigmask(SIG_BLOCK, &set, nil)
    let waited = set
    let thread = Thread {
      var mask = waited
      while true {
        var number: Int32 = 0
        guard sigwait(&mask, &number) == 0 else { continue }
        if let handler = handler.withLock({ $0 }) {
          handler(number)
        } else if number != SIGHUP {
          exit(ExitCode.interrupted.rawValue)
        }
      }
    }
    thread.name = "share-signals"
    thread.start()
  }

  /// Replaces the handler; it runs on the signal thread.
  static func onSignal(_ body: @escaping @Sendable (Int32) -> Void) {
    handler.withLock { $0 = body }
  }
}
