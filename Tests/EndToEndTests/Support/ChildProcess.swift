import Foundation
import Glibc

/// What a finished (or killed) child process did.
struct CommandResult: Sendable, CustomStringConvertible {
  var arguments: [String]
  /// The exit code, or the signal number when `signalled`.
  var status: Int32
  var signalled: Bool
  /// True when the harness had to kill the child because it outlived its deadline.
  var timedOut: Bool
  var stdout: Data
  var stderr: Data

  var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
  var stderrText: String { String(decoding: stderr, as: UTF8.self) }
  /// Non-empty lines of stdout.
  var stdoutLines: [String] { stdoutText.split(separator: "\n").map(String.init) }
  /// Non-empty lines of stderr.
  var stderrLines: [String] { stderrText.split(separator: "\n").map(String.init) }

  /// Exited normally (not by a signal, not killed for time) with `code`.
  func exited(with code: Int32) -> Bool { !signalled && !timedOut && status == code }

  /// The whole exchange, for failure messages.
  var description: String {
    let how = timedOut ? "timed out and was killed" : signalled ? "killed by signal \(status)" : "exit \(status)"
    return "share \(arguments.joined(separator: " ")) → \(how)\n--- stdout:\n\(stdoutText)--- stderr:\n\(stderrText)---"
  }
}

/// Output and exit status of a child, filled in by its reader threads and termination handler.
///
/// `@unchecked Sendable`: every stored property is read and written only while `condition` is
/// locked; waiters are woken with `broadcast()` whenever something changes.
private final class ChildState: @unchecked Sendable {
  let condition = NSCondition()
  var stdout = Data()
  var stderr = Data()
  var openStreams = 0
  var exit: (status: Int32, signalled: Bool)?

  func locked<T>(_ body: (ChildState) -> T) -> T {
    condition.lock()
    defer { condition.unlock() }
    return body(self)
  }

  /// Waits until `done` holds or the deadline passes; returns whether it holds.
  func wait(until deadline: Date, for done: (ChildState) -> Bool) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while !done(self) {
      if !condition.wait(until: deadline) { return done(self) }
    }
    return true
  }

  func append(_ bytes: UnsafeRawBufferPointer, toStderr: Bool) {
    condition.lock()
    if toStderr { stderr.append(contentsOf: bytes) } else { stdout.append(contentsOf: bytes) }
    condition.broadcast()
    condition.unlock()
  }

  func update(_ body: (ChildState) -> Void) {
    condition.lock()
    body(self)
    condition.broadcast()
    condition.unlock()
  }
}

/// A child process (Foundation `Process`) whose stdout and stderr are drained by threads of their
/// own, so a chatty child never blocks on a full pipe, and which can be awaited with a deadline.
/// A child still running when this object goes away is killed with SIGKILL.
///
/// `@unchecked Sendable`: `process` is configured in `init` before launch and afterwards only
/// read (its pid); all changing state lives in the locked `ChildState`.
final class ChildProcess: @unchecked Sendable {
  let arguments: [String]
  private let process = Process()
  private let state = ChildState()

  /// Launches `executable` with `arguments`. stdin is /dev/null, or a pipe fed `stdin` and then
  /// closed, as `printf … | share send -` would. stdout is captured; stderr goes to `stderr`
  /// when given (a terminal, say), else it is captured like stdout.
  init(
    executable: URL, arguments: [String], environment: [String: String], stdin: Data? = nil, stderr: FileHandle? = nil
  ) throws {
    self.arguments = arguments
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    let inPipe = stdin.map { _ in Pipe() }
    process.standardInput = inPipe ?? FileHandle.nullDevice
    let outPipe = Pipe()
    process.standardOutput = outPipe
    var pipes = [(outPipe, false)]
    if let stderr {
      process.standardError = stderr
    } else {
      let errPipe = Pipe()
      process.standardError = errPipe
      pipes.append((errPipe, true))
    }
    let state = self.state
    state.openStreams = pipes.count
    process.terminationHandler = { process in
      let signalled = process.terminationReason == .uncaughtSignal
      let status = process.terminationStatus
      state.update { $0.exit = (status, signalled) }
    }
    try ChildProcess.withCleanSignalMask { try process.run() }
    if let inPipe, let stdin {
      // The child's copy of the read end is all it needs; the writer feeds it from a thread so
      // a child that reads slowly (or not at all) cannot block the test.
      try? inPipe.fileHandleForReading.close()
      let writer = inPipe.fileHandleForWriting
      let thread = Thread {
        ChildProcess.feed(stdin, to: writer.fileDescriptor)
        try? writer.close()
      }
      thread.name = "e2e-stdin"
      thread.start()
    }
    for (pipe, isStderr) in pipes {
      // The parent's copy of the write end must go, or the reader would never see end of file.
      // Foundation closes it on launch; closing a closed FileHandle again is a no-op.
      try? pipe.fileHandleForWriting.close()
      let handle = pipe.fileHandleForReading
      let thread = Thread {
        ChildProcess.drain(handle.fileDescriptor, into: state, isStderr: isStderr)
        try? handle.close()
      }
      thread.name = "e2e-drain"
      thread.start()
    }
  }

  deinit {
    if isRunning { kill(process.processIdentifier, SIGKILL) }
  }

  /// Runs `body` (which spawns a child) with no signal blocked on this thread, then restores
  /// the thread's mask.
  ///
  /// A child inherits the signal mask of the thread that spawns it, and Foundation's `Process`
  /// does not reset it. Tests run on Swift concurrency's worker threads, which block nearly every
  /// signal; children spawned from them would start with SIGINT, SIGTERM, SIGCHLD and the rest
  /// blocked — unlike anything started from a shell, so their reaction to signals would not be
  /// what users get (a blocked signal that the program ignores stays pending instead of being
  /// discarded, which hid a real bug). Unblocking here cannot deliver anything new to this
  /// process: its main thread blocks nothing already.
  private static func withCleanSignalMask<T>(_ body: () throws -> T) rethrows -> T {
    var empty = sigset_t()
    var previous = sigset_t()
    sigemptyset(&empty)
    pthread_sigmask(SIG_SETMASK, &empty, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    return try body()
  }

  /// Writes all of `data` to `fd`, stopping early if the reader has gone away (SIGPIPE is
  /// ignored so that ends in EPIPE instead of killing the test process).
  private static func feed(_ data: Data, to fd: Int32) {
    _ = Glibc.signal(SIGPIPE, SIG_IGN)
    data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
      }
    }
  }

  private static func drain(_ fd: Int32, into state: ChildState, isStderr: Bool) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let n = read(fd, buffer.baseAddress, buffer.count)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      state.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), toStderr: isStderr)
    }
    state.update { $0.openStreams -= 1 }
  }

  var pid: Int32 { process.processIdentifier }
  var isRunning: Bool { state.locked { $0.exit == nil } }
  var stdoutSoFar: Data { state.locked { $0.stdout } }
  var stderrSoFar: Data { state.locked { $0.stderr } }
  var stderrTextSoFar: String { String(decoding: stderrSoFar, as: UTF8.self) }

  /// Sends a signal, unless the child has already been reaped.
  func signal(_ number: Int32) {
    state.locked { state in
      if state.exit == nil { _ = kill(process.processIdentifier, number) }
    }
  }

  /// Whether the child has a handler for signal `number` (Linux: the `SigCgt` mask in
  /// /proc/PID/status). False once it has gone.
  func catches(_ number: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
    // Caught by a handler (SigCgt), or blocked for a sigwait thread to take (SigBlk): either way
    // a signal sent now is not lost.
    func mask(_ field: String) -> UInt64 {
      guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
      return UInt64(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
    }
    return (mask("SigCgt:") | mask("SigBlk:")) & (1 << UInt64(number - 1)) != 0
  }

  /// Waits (bounded) until stdout, stderr or the exit status satisfy `condition`.
  @discardableResult
  func waitFor(timeout: Duration, _ condition: (_ stdout: Data, _ stderr: Data, _ exited: Bool) -> Bool) -> Bool {
    state.wait(until: Date().addingTimeInterval(timeout.seconds)) { condition($0.stdout, $0.stderr, $0.exit != nil) }
  }

  /// Waits (bounded) until stderr contains `text`.
  func waitForStderr(containing text: String, timeout: Duration = .seconds(20)) -> Bool {
    waitFor(timeout: timeout) { _, stderr, _ in String(decoding: stderr, as: UTF8.self).contains(text) }
  }

  /// Waits for the child to exit and its output to end. Past `timeout` it is killed with SIGKILL
  /// and the result says `timedOut`.
  func wait(timeout: Duration = .seconds(60)) -> CommandResult {
    var timedOut = false
    let finished = state.wait(until: Date().addingTimeInterval(timeout.seconds)) { $0.exit != nil && $0.openStreams == 0 }
    if !finished {
      timedOut = state.locked { $0.exit == nil }
      signal(SIGKILL)
      _ = state.wait(until: Date().addingTimeInterval(10)) { $0.exit != nil && $0.openStreams == 0 }
    }
    return state.locked { state in
      CommandResult(
        arguments: arguments, status: state.exit?.status ?? -1, signalled: state.exit?.signalled ?? false,
        timedOut: timedOut || state.exit == nil, stdout: state.stdout, stderr: state.stderr)
    }
  }
}

extension Duration {
  /// The duration in seconds, as a `TimeInterval`.
  var seconds: TimeInterval {
    let (whole, fraction) = components
    return TimeInterval(whole) + TimeInterval(fraction) / 1e18
  }
}
