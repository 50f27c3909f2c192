import Foundation
import Glibc
import Synchronization
import TLS
import Testing

/// Signals the handler below has received.
private let handled = Atomic<Int>(0)

@Suite struct InterruptedReadTests {
  /// Installs a SIGUSR2 handler without SA_RESTART, so a blocked read fails with EINTR inside
  /// OpenSSL's socket BIO, which reports it as SSL_ERROR_WANT_READ on a blocking socket.
  static let installed: Bool = {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in handled.add(1, ordering: .relaxed) }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    sigaction(SIGUSR2, &action, nil)
    return true
  }()

  @Test func aBlockedReadInterruptedBySignalsStillReturnsTheData() throws {
    _ = Self.installed
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer {
      server.close()
      client.close()
    }
    let thread = Mutex<pthread_t?>(nil)
    let reader = Background { () throws -> [UInt8] in
      // Threads started from the test runner's workers inherit a mask blocking SIGUSR2.
      var set = sigset_t()
      sigemptyset(&set)
      sigaddset(&set, SIGUSR2)
      pthread_sigmask(SIG_UNBLOCK, &set, nil)
      thread.withLock { $0 = pthread_self() }
      var buffer = [UInt8](repeating: 0, count: 5)
      try buffer.withUnsafeMutableBytes { try server.readExactly(into: $0) }
      return buffer
    }
    let before = handled.load(ordering: .relaxed)
    let deadline = Date().addingTimeInterval(30)
    while handled.load(ordering: .relaxed) < before + 5 && Date() < deadline {
      if let target = thread.withLock({ $0 }) { pthread_kill(target, SIGUSR2) }
      usleep(5_000)
    }
    #expect(handled.load(ordering: .relaxed) >= before + 5)
    try client.write(Array("hello".utf8))
    #expect(try reader.wait() == Array("hello".utf8))
  }
}
