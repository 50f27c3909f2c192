import Foundation
import Glibc
import Synchronization
import System

/// A fresh folder under the system temp dir; `remove()` deletes it.
struct TemporaryDirectory {
  let path: String

  init() throws {
    let base = FileManager.default.temporaryDirectory.path
    path = base + "/system-tests-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  func remove() { try? FileManager.default.removeItem(atPath: path) }

  /// The names in the folder, sorted.
  func names() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
  }
}

struct TestFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Runs `body` on a thread of its own and hands back its result.
final class Background<T: Sendable>: Sendable {
  private let result = Mutex<Result<T, any Error>?>(nil)
  private let done = DispatchSemaphore(value: 0)

  init(_ body: @escaping @Sendable () throws -> T) {
    Thread.detachNewThread { [self] in
      let outcome = Result { try body() }
      result.withLock { $0 = outcome }
      done.signal()
    }
  }

  /// Whether the thread has finished, without waiting.
  var isFinished: Bool { result.withLock { $0 != nil } }

  /// Waits for the thread; a generous guard turns a hang into a failure instead of a stuck run.
  func wait() throws -> T {
    if done.wait(timeout: .now() + 60) == .timedOut {
      throw TestFailure("background thread did not finish")
    }
    guard let outcome = result.withLock({ $0 }) else { throw TestFailure("no result") }
    return try outcome.get()
  }
}

/// Signals delivered to the handler `Interruptions` installs.
private let delivered = Atomic<Int>(0)

/// Delivers real signals to a chosen thread, with a handler installed without `SA_RESTART`, so a
/// blocked system call on that thread fails with `EINTR` as it would in the daemon.
enum Interruptions {
  static let signal = SIGUSR1

  /// Installs the counting handler for `signal` (once per process; idempotent).
  static func install() {
    _ = installed
  }

  private static let installed: Bool = {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in delivered.add(1, ordering: .relaxed) }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0  // no SA_RESTART: interrupted calls fail with EINTR
    sigaction(Interruptions.signal, &action, nil)
    return true
  }()

  /// Signals handled so far in this process.
  static var count: Int { delivered.load(ordering: .relaxed) }

  /// Sends the signal to `thread`.
  static func interrupt(_ thread: pthread_t) {
    pthread_kill(thread, signal)
  }
}

/// The calling thread's `pthread_t`, published for another thread to signal.
final class ThreadHandle: Sendable {
  private let value = Mutex<pthread_t?>(nil)

  /// Unblocks `Interruptions.signal` on the calling thread (threads started from the test
  /// runner's workers inherit a mask that blocks it) and publishes the thread.
  func publish() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, Interruptions.signal)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    value.withLock { $0 = pthread_self() }
  }

  /// Waits until the thread has published itself.
  func wait() throws -> pthread_t {
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
      if let thread = value.withLock({ $0 }) { return thread }
      usleep(1_000)
    }
    throw TestFailure("the thread never started")
  }
}

/// A thread-safe counter.
final class Counter: Sendable {
  private let value = Atomic<Int>(0)
  func increment() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

/// The typed error `body` throws, or nil if it returns.
func thrownError<T, E: Error>(_ body: () throws(E) -> T) -> E? {
  do {
    _ = try body()
    return nil
  } catch {
    return error
  }
}
