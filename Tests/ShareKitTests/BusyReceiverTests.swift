import Foundation
import Synchronization
import Testing
import Wire

@testable import ShareKit

/// A receiver that turns a send away at its door — with a `busy` Failure (its pre-authentication
/// slots are full), or by closing the connection before the TLS handshake is done (too many
/// refusals under way) — is tried again after growing, jittered pauses for a while; if it is
/// still busy, the send says so, naming the receiver and its address, in a sentence of its own
/// rather than as a refusal.
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
    sender.busyPatience = .milliseconds(1500)
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
      try Self.storeOne(session)
    }
    let report = try Self.send(to: server).get()
    #expect(report.allStored)
    #expect(connections.load(ordering: .relaxed) == 2)
  }

  /// The script of a receiver that takes the item and stores it.
  static func storeOne(_ session: RawSession) throws {
    try session.hello(name: "lab-b")
    let item = try session.ask().items[0]
    try session.send(.answer(Answer(items: [ItemAnswer(id: item.id, accepted: true)])))
    let sizes = try session.payloads(1)
    try session.send(.receipt(Receipt(items: [ItemReceipt(id: item.id, status: .stored, storedAs: "hello.txt", size: Int64(sizes[0]))])))
  }

  @Test func aReceiverThatClosesConnectionsBeforeTheHandshakeIsTriedAgainUntilItServes() throws {
    let knocks = Atomic<Int>(0)
    let server = try RawServer(
      home: try TestHome(), door: { knocks.add(1, ordering: .relaxed).newValue > 3 }, script: Self.storeOne)
    let report = try Self.send(to: server).get()
    #expect(report.allStored)
    #expect(knocks.load(ordering: .relaxed) == 4, "three closed at the door, the fourth served")
  }

  @Test func aReceiverThatAlwaysClosesIsGivenUpAfterThePatienceWithWhatHappened() throws {
    let knocks = Atomic<Int>(0)
    let closeEvery: @Sendable () -> Bool = {
      knocks.add(1, ordering: .relaxed)
      return false
    }
    let server = try RawServer(home: try TestHome(), door: closeEvery, script: { _ in })
    guard case .failure(let error) = try Self.send(to: server) else {
      Issue.record("a send to a receiver that closes every connection succeeded")
      return
    }
    guard case .transport(let summary, _) = error else {
      Issue.record("not reported as the closed connection it was: \(error)")
      return
    }
    #expect(summary.contains("127.0.0.1:\(server.port)"), "\(summary)")
    // Pauses of 150–250, 300–500, then 600–1000 ms each within 1.5 s: three or four tries.
    #expect((3...4).contains(knocks.load(ordering: .relaxed)), "\(knocks.load(ordering: .relaxed)) tries")
  }

  @Test func pausesVaryButStayWithinAQuarterOfTheirLength() {
    let pauses = (0..<200).map { _ in Sender.jittered(.milliseconds(800)) }
    #expect(pauses.allSatisfy { $0 >= .milliseconds(600) && $0 <= .milliseconds(1000) })
    #expect(Set(pauses).count > 100, "senders turned away together would come back together")
  }

  @Test func aReceiverStillBusyIsReportedAsBusyNamingItAndItsAddressOnceThePatienceIsSpent() throws {
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
    // Pauses of 150–250, 300–500, then 600–1000 ms each within 1.5 s: three or four tries.
    #expect((3...4).contains(server.outcomes(count: 5, timeout: .seconds(2)).count))
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
        sender.busyPatience = .seconds(7200)
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
