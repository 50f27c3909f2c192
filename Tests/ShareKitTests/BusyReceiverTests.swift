import Foundation
import Synchronization
import Testing
import Wire

@testable import ShareKit

/// A receiver that turns a send away at its door with a `busy` Failure (its pre-authentication
/// slots are full) is tried once more after a short backoff; if it is still busy, the send
/// says so, naming the receiver and its address, in a sentence of its own rather than as a
/// refusal.
@Suite struct BusyReceiverTests {
  static let said: PeerText = "busy: too many connections from your address are still starting; try again in a moment"

  /// A receiver at `server`'s address, advertised as lab-b, expecting its certificate.
  static func endpoint(_ server: RawServer) -> Endpoint {
    Endpoint(
      candidates: [Endpoint.Candidate(host: "127.0.0.1", port: server.port, advertisedAs: "lab-b")], label: "lab-b",
      expectedFingerprint: server.fingerprint)
  }

  static func send(to server: RawServer, configure: (Sender) -> Void = { _ in }) throws -> Result<SendReport, ShareError> {
    let home = try TestHome()
    let sender = try Sender(device: home.device)
    sender.busyBackoff = .milliseconds(200)
    configure(sender)
    let items = try OutgoingItem.files([home.file("hello.txt", Array("hi".utf8)).path])
    do throws(ShareError) {
      return .success(try sender.send(items, to: endpoint(server)))
    } catch {
      return .failure(error)
    }
  }

  @Test func aReceiverBusyOnceIsTriedAgainAfterABackoffAndTheSendGoesThrough() throws {
    let connections = Atomic<Int>(0)
    let server = try RawServer(home: try TestHome()) { session in
      guard connections.add(1, ordering: .relaxed).newValue > 1 else {
        return try session.send(.failure(Failure(code: "busy", message: Self.said)))
      }
      try session.hello(name: "lab-b")
      let item = try session.ask().items[0]
      try session.send(.answer(Answer(items: [ItemAnswer(id: item.id, accepted: true)])))
      let sizes = try session.payloads(1)
      try session.send(.receipt(Receipt(items: [ItemReceipt(id: item.id, status: .stored, storedAs: "hello.txt", size: Int64(sizes[0]))])))
    }
    let report = try Self.send(to: server).get()
    #expect(report.allStored)
    #expect(connections.load(ordering: .relaxed) == 2)
  }

  @Test func aReceiverStillBusyIsReportedAsBusyNamingItAndItsAddressAndIsNotTriedAThirdTime() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.send(.failure(Failure(code: "busy", message: "busy: every slot is \u{1B}[31mtaken\u{1B}[0m; try again in a moment")))
    }
    guard case .failure(let error) = try Self.send(to: server) else {
      Issue.record("a send to a receiver that is always busy succeeded")
      return
    }
    guard case .busy(let peer, let address, let reason) = error else {
      Issue.record("not reported as busy: \(error)")
      return
    }
    #expect(peer == "lab-b" && address == "127.0.0.1:\(server.port)")
    #expect(reason == "every slot is \\u{1B}[31mtaken\\u{1B}[0m", "the receiver's words reach the terminal unescaped: \(reason)")
    #expect(error.description.hasPrefix("lab-b at 127.0.0.1:\(server.port) is busy (every slot is "), "\(error)")
    #expect(error.description.hasSuffix("); try again in a moment"), "\(error)")
    #expect(!error.description.contains("\u{1B}"))
    // Once, then once more: never a third time.
    #expect(server.outcomes(count: 3, timeout: .seconds(2)).count == 2)
  }

  @Test func cancellingDuringTheBackoffEndsTheSendAtOnce() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.send(.failure(Failure(code: "busy", message: Self.said)))
    }
    let result = Locked<Result<SendReport, ShareError>?>(nil)
    let sending = Locked<Sender?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
      let outcome = try? Self.send(to: server) { sender in
        sender.busyBackoff = .seconds(3600)
        sending.withLock { $0 = sender }
      }
      result.withLock { $0 = outcome }
      done.signal()
    }.start()
    // The first try is over (the receiver said busy) before the cancel: the backoff is what
    // the cancel cuts short.
    _ = server.outcomes(count: 1, timeout: .seconds(10))
    usleep(100_000)
    sending.withLock { $0 }?.cancel()
    #expect(done.wait(timeout: .now() + 20) == .success, "the backoff outlasted the cancel")
    guard case .failure(.cancelled) = result.withLock({ $0 }) else {
      Issue.record("not cancelled: \(String(describing: result.withLock { $0 }))")
      return
    }
  }
}
