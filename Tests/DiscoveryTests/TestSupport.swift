import Discovery
import Foundation
import Synchronization
import Testing

/// The repository root, found from this file's path (Tests/DiscoveryTests/…).
let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A service name no other test (or earlier run) uses.
func uniqueName(_ prefix: String) -> String {
  "\(prefix)-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
}

/// The output and exit status of a finished command.
struct CommandResult {
  let status: Int32
  let output: String
}

/// A child process started with `posix_spawn`, stdout and stderr going to a
/// temporary file.
///
/// Not Foundation's `Process`: its children inherit the spawning thread's
/// signal mask, in which SIGTERM is blocked (so `terminate()` does nothing),
/// and its `waitUntilExit()` was seen to hang after the child had exited.
/// Here the child gets an empty signal mask and default handlers, and
/// `wait()` is a plain `waitpid`.
final class ChildProcess: Sendable {
  let pid: pid_t
  private let log: String

  init(_ executable: String, _ arguments: [String]) throws {
    log =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("discovery-test-\(UUID().uuidString).log").path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    var all = sigset_t()
    sigemptyset(&empty)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for arg in argv { free(arg) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    guard rc == 0 else {
      throw CocoaError(
        .executableLoad,
        userInfo: [
          NSLocalizedDescriptionKey: "posix_spawn \(executable): \(String(cString: strerror(rc)))"
        ])
    }
    self.pid = pid
  }

  /// What the command printed so far.
  var output: String {
    (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
  }

  /// Waits for the process to exit (`waitpid`); its exit status, or 128 + signal.
  @discardableResult
  func wait() -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7F
    return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
  }

  /// SIGTERM, then waits for it and deletes its output. Call once.
  func stop() {
    kill(pid, SIGTERM)
    wait()
    discardOutput()
  }

  /// Deletes the output file.
  func discardOutput() {
    try? FileManager.default.removeItem(atPath: log)
  }
}

/// Runs a command to completion, stdout and stderr together.
func run(_ executable: String, _ arguments: [String]) throws -> CommandResult {
  let child = try ChildProcess(executable, arguments)
  let status = child.wait()
  let output = child.output
  child.discardOutput()
  return CommandResult(status: status, output: output)
}

/// Runs one of the repository's scripts/ and fails the test, with the
/// script's own words, when it exits non-zero.
@discardableResult
func runScript(_ name: String, _ arguments: [String] = []) throws -> CommandResult {
  let path = repositoryRoot.appendingPathComponent("scripts").appendingPathComponent(name).path
  let result = try run("/bin/bash", [path] + arguments)
  try #require(
    result.status == 0,
    "scripts/\(name) \(arguments.joined(separator: " ")) exited \(result.status):\n\(result.output)"
  )
  return result
}

/// Starting and stopping the Avahi the tests use (scripts/avahi-up.sh).
enum AvahiHarness {
  /// Makes avahi-daemon reachable (idempotent). Fails the test with the
  /// script's reason (e.g. root needed) rather than skipping.
  static func up() throws {
    try runScript("avahi-up.sh")
  }

  /// Stops the avahi-daemon that avahi-up.sh started (the bus stays up unless
  /// `includingBus`). Fails when Avahi was not started by the script, since
  /// then the test cannot restart it.
  static func down(includingBus: Bool = false) throws {
    try #require(
      FileManager.default.fileExists(atPath: "/run/share-avahi/avahi.pid"),
      "this test restarts avahi-daemon, so it needs the one scripts/avahi-up.sh starts (run as root on a machine without a running Avahi)"
    )
    try runScript("avahi-down.sh", includingBus ? [] : ["--avahi-only"])
  }
}

/// Records every element of an async sequence, on a task of its own, and lets
/// a test wait for the first element matching a predicate.
///
/// The waits are bounded only so a broken build fails instead of hanging; the
/// bounds are generous and nothing asserts on how long anything took.
final class EventRecorder<Event: Sendable>: Sendable {
  private struct Waiter {
    let id: Int
    /// Matching events still to come before the wait is over.
    var remaining: Int
    let predicate: @Sendable (Event) -> Bool
    let continuation: CheckedContinuation<Event?, Never>
  }
  private struct State {
    var events: [Event] = []
    var ended = false
    var endError: (any Error)?
    var waiters: [Waiter] = []
    var nextID = 0
  }
  private let state = Mutex(State())
  private let task = Mutex<Task<Void, Never>?>(nil)

  init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Event {
    let task = Task { [weak self] in
      do {
        for try await event in sequence {
          self?.record(event)
        }
        self?.end(nil)
      } catch {
        self?.end(error)
      }
    }
    self.task.withLock { $0 = task }
  }

  deinit {
    task.withLock { $0?.cancel() }
  }

  /// Everything recorded so far, in order.
  var events: [Event] { state.withLock { $0.events } }
  /// Whether the sequence has ended, and the error it ended with.
  var ending: (ended: Bool, error: (any Error)?) { state.withLock { ($0.ended, $0.endError) } }

  /// Stops iterating (which terminates the stream, so its producer shuts down).
  func cancel() {
    task.withLock { $0?.cancel() }
  }

  /// The first event, recorded already or arriving later, that matches;
  /// nil if the sequence ends or `seconds` pass first.
  func first(within seconds: Double = 30, where predicate: @escaping @Sendable (Event) -> Bool)
    async -> Event?
  {
    await nth(1, within: seconds, where: predicate)
  }

  /// The `n`th matching event (counting those recorded already); nil if the
  /// sequence ends or `seconds` pass first. `predicate` runs under a lock:
  /// it must not call back into the recorder.
  func nth(
    _ n: Int, within seconds: Double = 30, where predicate: @escaping @Sendable (Event) -> Bool
  )
    async -> Event?
  {
    await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
      let id = state.withLock { state -> Int? in
        let matches = state.events.filter(predicate)
        if matches.count >= n {
          continuation.resume(returning: matches[n - 1])
          return nil
        }
        if state.ended {
          continuation.resume(returning: nil)
          return nil
        }
        let id = state.nextID
        state.nextID += 1
        state.waiters.append(
          Waiter(
            id: id, remaining: n - matches.count, predicate: predicate, continuation: continuation))
        return id
      }
      guard let id else { return }
      Task {
        try? await Task.sleep(for: .seconds(seconds))
        self.expire(id)
      }
    }
  }

  /// Waits until the sequence ends; returns whether it did within `seconds`.
  func waitForEnd(within seconds: Double = 30) async -> Bool {
    _ = await first(within: seconds) { _ in false }
    return ending.ended
  }

  private func record(_ event: Event) {
    let matched = state.withLock { state -> [Waiter] in
      state.events.append(event)
      var matched: [Waiter] = []
      var waiting: [Waiter] = []
      for var waiter in state.waiters {
        if waiter.predicate(event) { waiter.remaining -= 1 }
        if waiter.remaining == 0 { matched.append(waiter) } else { waiting.append(waiter) }
      }
      state.waiters = waiting
      return matched
    }
    for waiter in matched { waiter.continuation.resume(returning: event) }
  }

  private func end(_ error: (any Error)?) {
    let waiters = state.withLock { state -> [Waiter] in
      state.ended = true
      state.endError = error
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.continuation.resume(returning: nil) }
  }

  private func expire(_ id: Int) {
    let waiter = state.withLock { state -> Waiter? in
      guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
      return state.waiters.remove(at: index)
    }
    waiter?.continuation.resume(returning: nil)
  }
}

extension BrowseEvent {
  var added: ResolvedService? {
    if case .added(let service) = self { service } else { nil }
  }
  var removed: ServiceInstance? {
    if case .removed(let instance) = self { instance } else { nil }
  }
  var isAllForNow: Bool {
    if case .allForNow = self { true } else { false }
  }
}

extension AdvertiserEvent {
  var registeredName: String? {
    if case .registered(let name) = self { name } else { nil }
  }
  var isDaemonUnavailable: Bool {
    if case .daemonUnavailable = self { true } else { false }
  }
}
