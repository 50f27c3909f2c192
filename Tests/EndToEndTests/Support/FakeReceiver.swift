import Foundation
import Synchronization
import System
import TLS
import Wire

/// A malicious receiver on 127.0.0.1: real TLS with an identity of its own, then whatever its
/// script says, for one sender connection at a time. `share send --to 127.0.0.1:PORT` talks to
/// it. What the sender offered is recorded.
///
/// `@unchecked Sendable`: the listener is thread-safe (`close()` wakes its `accept`), and the
/// recorded state lives in a `Mutex`.
final class FakeReceiver: @unchecked Sendable {
  /// One accepted sender, as the script sees it.
  final class Session: FramedTLS {
    /// The sender's Hello.
    var hello: Hello?

    /// Reads the sender's Ask.
    func ask() throws -> Ask {
      guard case .ask(let ask) = try receive() else { throw HarnessError("expected an Ask") }
      return ask
    }

    /// Reads item frames until `count` items have ended; returns the bytes of each.
    func items(_ count: Int) throws -> [Int: [UInt8]] {
      var bytes: [Int: [UInt8]] = [:]
      var current: Int?
      var ended = 0
      while ended < count {
        let (header, payload) = try receiveFrame()
        switch header.kind {
        case .begin:
          let item = try BeginFrame(decoding: payload).item
          bytes[item] = bytes[item] ?? []
          current = item
        case .data: if let current { bytes[current, default: []] += payload }
        case .end: ended += 1
        case .control: throw HarnessError("expected item frames, got \(try MessageCodec.decode(payload))")
        }
      }
      return bytes
    }
  }

  let identity: ThrowawayIdentity
  private let listener: TCPListener
  private let asks = Mutex<[Ask]>([])
  private let failures = Mutex<[String]>([])

  /// Starts listening; `script` runs for each connection after Hello was read from the sender
  /// (it answers Hello itself, so it can lie in it). Errors end the connection and are recorded.
  init(name: String = "mallory-rx", script: @escaping @Sendable (Session, FakeReceiver) throws -> Void) throws {
    identity = try ThrowawayIdentity(name: name)
    listener = try TCPListener(host: "127.0.0.1", port: 0)
    let context = try TLSContext(identity: identity.identity, role: .server)
    let thread = Thread { [self] in
      while let socket = try? listener.accept() {
        do {
          let session = Session(try TLSConnection.accept(socket, context: context, timeout: .seconds(10)))
          try session.tls.setIdleTimeout(.seconds(60))
          guard case .hello(let hello) = try session.receive() else { throw HarnessError("no Hello") }
          session.hello = hello
          try script(session, self)
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
    }
    thread.name = "e2e-fake-receiver"
    thread.start()
  }

  deinit { listener.close() }

  var port: UInt16 { listener.port }
  var address: String { "127.0.0.1:\(port)" }
  var id: String { identity.id }
  /// Asks the script recorded with `record`.
  var recordedAsks: [Ask] { asks.withLock { $0 } }
  /// Errors that ended a connection (a sender that hung up, say).
  var errors: [String] { failures.withLock { $0 } }

  func record(_ ask: Ask) { asks.withLock { $0.append(ask) } }

  /// A truthful Hello from this receiver under `name`.
  func hello(name: String = "mallory-rx") -> Message { .hello(Hello(name: PeerText(name), id: identity.id)) }
}
