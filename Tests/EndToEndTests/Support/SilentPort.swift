import Foundation
import Synchronization
import System

/// A TCP port on 127.0.0.1 that accepts connections and never says a word: where a bogus record
/// points, so that whoever believes it waits for a handshake that never comes. Counts the
/// connections it accepted and how many the other side closed.
final class SilentPort: Sendable {
  /// What the accepting and reading threads share; they hold it, not the port, so the port goes
  /// away (and closes everything) when the test lets go of it.
  private final class Shared: Sendable {
    struct Counts {
      var accepted = 0
      var closedByPeer = 0
      var open: [Socket] = []
    }
    let listener: TCPListener
    let counts = Mutex(Counts())

    init(_ listener: TCPListener) { self.listener = listener }
  }

  private let shared: Shared

  init() throws {
    let shared = Shared(try TCPListener(host: "127.0.0.1", port: 0, backlog: 16))
    self.shared = shared
    let thread = Thread {
      while let socket = try? shared.listener.accept() {
        shared.counts.withLock {
          $0.accepted += 1
          $0.open.append(socket)
        }
        Thread {
          var byte: UInt8 = 0
          // Until the other side closes (or `deinit` shuts the connection down).
          while (try? socket.withDescriptor { fd throws(Errno) in read(fd, &byte, 1) }) ?? 0 > 0 {}
          shared.counts.withLock { $0.closedByPeer += 1 }
        }.start()
      }
    }
    thread.name = "e2e-silent-port"
    thread.start()
  }

  deinit {
    shared.listener.close()
    shared.counts.withLock { $0.open.forEach { $0.close() } }
  }

  var port: UInt16 { shared.listener.port }
  /// Connections accepted so far.
  var accepted: Int { shared.counts.withLock { $0.accepted } }
  /// Accepted connections the other side has closed since.
  var closedByPeer: Int { shared.counts.withLock { $0.closedByPeer } }
}
