import Dispatch
import Foundation
import Glibc
import Synchronization
import System

extension HookRunner {
  /// The daemon's end of the channel to its hook runner: sends what arrived, logs what the
  /// runner reports. Any thread may send; a thread of its own reads.
  package final class Channel: Sendable {
    private let descriptor: Mutex<FileDescriptor>
    private let finished = DispatchSemaphore(value: 0)
    /// Set by `drain`: the runner's end closing is then expected.
    private let draining = Atomic<Bool>(false)
    /// Set once the runner's end is gone, to say so once.
    private let gone = Atomic<Bool>(false)
    /// Where the runner's reports, and its end, are told.
    private let reported = Mutex<(@Sendable (String) -> Void)?>(nil)

    private init(_ descriptor: FileDescriptor) {
      self.descriptor = Mutex(descriptor)
    }

    /// The channel the previous process image handed on (see `HookRunner.start`), if any; taken
    /// out of the environment, and closed on the next `exec` again.
    static func inherited() -> Channel? {
      guard let text = ProcessInfo.processInfo.environment[daemonKey], let number = Int32(text) else { return nil }
      unsetenv(daemonKey)
      let descriptor = FileDescriptor(rawValue: number)
      try? descriptor.setCloseOnExec(true)
      return Channel(descriptor)
    }

    /// Starts reading the runner's reports, each passed to `report`.
    func start(report: @escaping @Sendable (String) -> Void) {
      let fd = descriptor.withLock { $0 }
      reported.withLock { $0 = report }
      let thread = Thread { [self] in
        var reader = LineReader(fd)
        while let line = reader.next() {
          if case .report(let text) = try? JSONDecoder().decode(Message.self, from: line) { report(text) }
        }
        if !draining.load(ordering: .relaxed) { runnerGone() }
        finished.signal()
      }
      thread.name = "share-hook-channel"
      thread.start()
    }

    func send(_ message: Message) {
      let sent = descriptor.withLock { (try? $0.writeAll(HookRunner.encode(message))) != nil }
      if !sent { runnerGone() }
    }

    /// Says once that the runner ended while the daemon runs (review 49: killed, it left the
    /// daemon storing items with no hook run, and nothing said so).
    private func runnerGone() {
      guard !gone.exchange(true, ordering: .relaxed) else { return }
      reported.withLock { $0 }?(
        "the hook runner (--hooks-unconfined) ended: items stored from now on get no hook run or notification until the daemon is restarted"
      )
    }

    /// Tells the runner nothing more comes, and waits (up to `timeout`) until it has run what
    /// it was sent and closed its end. Returns whether it did.
    func drain(timeout: Duration) -> Bool {
      draining.store(true, ordering: .relaxed)
      descriptor.withLock { _ = Glibc.shutdown($0.rawValue, Int32(SHUT_WR)) }
      return finished.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) == .success
    }
  }
}

/// Reads newline-terminated lines from a descriptor, keeping what follows a line for the next.
struct LineReader {
  private let descriptor: FileDescriptor
  private var buffer: [UInt8] = []
  private var ended = false
  /// A longer line ends the reading: nothing on the channel is that long.
  static let maxLine = 1 << 20

  init(_ descriptor: FileDescriptor) {
    self.descriptor = descriptor
  }

  /// The next line without its newline; nil at the end (or after a read error or an overlong
  /// line).
  mutating func next() -> Data? {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = Data(buffer[..<newline])
        buffer.removeSubrange(...newline)
        return line
      }
      guard !ended, buffer.count <= Self.maxLine else { return nil }
      var chunk = [UInt8](repeating: 0, count: 64 << 10)
      let count = chunk.withUnsafeMutableBytes { (try? descriptor.read(into: $0)) ?? 0 }
      if count == 0 { ended = true } else { buffer += chunk[0..<count] }
    }
  }
}
