import Foundation
import Glibc
import Synchronization
import System
import TLS
import Wire

@testable import ShareKit

/// A hand-driven receiver that can break the protocol on purpose: a TLS server on loopback with
/// an identity of its own, running `script` on each connection it accepts (the mirror of
/// `RawClient`). Records what the sender did after the script, so a test can tell whether it
/// sent anything more.
final class RawServer: Sendable {
  let home: TestHome
  private let listener: TCPListener
  private let after = Locked<[String]>([])

  /// `door` sees each accepted connection first: when it says no, the connection is closed at
  /// once, before the TLS handshake (as a receiver over its caps does).
  init(
    home: TestHome, door: @escaping @Sendable () -> Bool = { true },
    script: @escaping @Sendable (RawSession) throws -> Void
  ) throws {
    self.home = home
    listener = try TCPListener(host: "127.0.0.1", port: 0)
    let context = try TLSContext(identity: home.device.identity, role: .server)
    let (listener, after) = (self.listener, self.after)
    Thread {
      while let socket = try? listener.accept() {
        guard door() else {
          socket.close()
          continue
        }
        Thread {
          guard let tls = try? TLSConnection.accept(socket, context: context, timeout: .seconds(5)) else { return }
          let session = RawSession(FramedConnection(tls), home: home)
          defer { session.connection.close() }
          try? tls.setIdleTimeout(.seconds(20))
          do {
            try script(session)
            after.withLock { $0.append(session.whatFollows()) }
          } catch {
            after.withLock { $0.append("script failed: \(error)") }
          }
        }.start()
      }
    }.start()
  }

  deinit { listener.close() }

  var port: UInt16 { listener.port }
  var fingerprint: Fingerprint { home.device.fingerprint }
  /// This receiver at its address, expecting its own certificate, as discovery would give it.
  var endpoint: Endpoint { Endpoint(host: "127.0.0.1", port: port, label: "raw-receiver", expectedFingerprint: fingerprint) }

  /// For each finished session: what the sender sent after the script ended ("closed" when
  /// nothing but the end of the connection), once that is known (bounded wait).
  func outcomes(count: Int = 1, timeout: Duration = .seconds(20)) -> [String] {
    let deadline = ContinuousClock.now + timeout
    while after.withLock({ $0.count }) < count && ContinuousClock.now < deadline { usleep(10_000) }
    return after.withLock { $0 }
  }
}

/// One connection of a `RawServer`, from the receiver's side.
final class RawSession {
  let connection: FramedConnection
  let home: TestHome

  init(_ connection: FramedConnection, home: TestHome) {
    self.connection = connection
    self.home = home
  }

  /// Reads the sender's Hello and answers with this receiver's own.
  func hello(name: String = "raw-receiver") throws {
    guard case .hello = try connection.receiveMessage(expecting: "Hello") else {
      throw WireError.unexpected(expected: "Hello", got: "other")
    }
    try send(.hello(Hello(name: PeerText(name), id: home.device.fingerprint.hex)))
  }

  func ask() throws -> Ask {
    guard case .ask(let ask) = try connection.receiveMessage(expecting: "Ask") else {
      throw WireError.unexpected(expected: "Ask", got: "other")
    }
    return ask
  }

  func send(_ message: Message) throws { try connection.sendNow(message) }

  /// Reads every payload frame the sender streams for `count` payloads; their byte counts.
  func payloads(_ count: Int) throws -> [Int] {
    var sizes: [Int] = []
    for _ in 0..<count {
      var size = 0
      while true {
        let header = try connection.receiveHeader()
        let payload = try connection.receivePayload(header.length)
        if header.kind == .data { size += payload.count }
        if header.kind == .end { break }
      }
      sizes.append(size)
    }
    return sizes
  }

  /// What the sender sends next: "closed" when the connection just ends, else the frame kind.
  func whatFollows() -> String {
    guard let header = try? connection.receiveHeader() else { return "closed" }
    return "a \(header.kind) frame"
  }
}

/// A TCP port that accepts connections and never says a word: what a bogus discovery record
/// may point at. Counts the connections it accepted and how many the other side has closed.
final class SilentListener: Sendable {
  private let listener: TCPListener
  private let counts = Locked((accepted: 0, closedByPeer: 0))

  init() throws {
    listener = try TCPListener(host: "127.0.0.1", port: 0)
    let (listener, counts) = (self.listener, self.counts)
    Thread {
      while let socket = try? listener.accept() {
        counts.withLock { $0.accepted += 1 }
        Thread {
          var byte: UInt8 = 0
          // Blocks until the sender closes its end (or sends something, which it must not).
          while read(socket.fileDescriptor, &byte, 1) > 0 {}
          counts.withLock { $0.closedByPeer += 1 }
          socket.close()
        }.start()
      }
    }.start()
  }

  deinit { listener.close() }

  var port: UInt16 { listener.port }
  var accepted: Int { counts.withLock { $0.accepted } }
  var closedByPeer: Int { counts.withLock { $0.closedByPeer } }
}

/// A value behind a lock, in a class so that threads can share it.
final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>
  init(_ value: Value) { mutex = Mutex(value) }
  func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
