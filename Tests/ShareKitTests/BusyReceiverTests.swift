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

  /// A receiver at `server`'s address (and at `more` addresses), advertised as lab-b, expecting
  /// its certificate.
  static func endpoint(_ server: RawServer, more: [Endpoint.Candidate] = []) -> Endpoint {
    Endpoint(
      candidates: [Endpoint.Candidate(host: "127.0.0.1", port: server.port, advertisedAs: "lab-b")] + more, label: "lab-b",
      expectedFingerprint: server.fingerprint)
  }

  /// A send of one small file to `server`, and the pauses it made for a busy receiver.
  static func send(
    to server: RawServer, more: [Endpoint.Candidate] = [], configure: (Sender) -> Void = { _ in }
  ) throws -> (result: Result<SendReport, ShareError>, pauses: [PeerText?]) {
    let home = try TestHome()
    let sender = try Sender(device: home.device)
    sender.busyBackoff = .milliseconds(100)
    sender.busyPatience = .seconds(1)
    configure(sender)
    let items = try OutgoingItem.files([home.file("hello.txt", Array("hi".utf8)).path])
    var pauses: [PeerText?] = []
    do throws(ShareError) {
      let report = try sender.send(items, to: endpoint(server, more: more)) { event in
        if case .busy(let said, _) = event { pauses.append(said) }
      }
      return (.success(report), pauses)
    } catch {
      return (.failure(error), pauses)
    }
  }

  /// A receiver that says it is busy to its first connection and stores the item of the next,
  /// and how many connections it has had.
  static func busyOnce() throws -> (server: RawServer, connections: @Sendable () -> Int) {
    let connections = Locked(0)
    let server = try RawServer(home: try TestHome()) { session in
      let count = connections.withLock { count in
        count += 1
        return count
      }
      guard count > 1 else { return try session.send(.failure(Failure(code: "busy", message: Self.said))) }
      try Self.storeOne(session)
    }
    return (server, { connections.withLock { $0 } })
  }

  @Test func aReceiverBusyOnceIsTriedAgainAfterABackoffAndTheSendGoesThrough() throws {
    let (server, connections) = try Self.busyOnce()
    let (result, pauses) = try Self.send(to: server)
    #expect(try result.get().allStored)
    #expect(connections() == 2)
    #expect(pauses == ["too many connections from your address are still starting"])
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
    let (result, pauses) = try Self.send(to: server) { $0.busyPatience = .seconds(60) }
    #expect(try result.get().allStored)
    #expect(knocks.load(ordering: .relaxed) == 4, "three closed at the door, the fourth served")
    #expect(pauses == [nil, nil, nil], "each pause is said, as a close (nothing said)")
  }

  @Test func aBusyAddressIsTriedAgainWhenTheReceiversOtherAddressCannotBeReached() throws {
    let (server, connections) = try Self.busyOnce()
    // Port 1 on loopback refuses: an address that says nothing about the receiver being busy.
    let refusing = Endpoint.Candidate(host: "127.0.0.1", port: 1, advertisedAs: "lab-b")
    let (result, pauses) = try Self.send(to: server, more: [refusing])
    #expect(try result.get().allStored)
    #expect(pauses.count == 1 && connections() == 2)
  }

  @Test func aReceiverThatOnlyEverClosesIsTriedAFewTimesThenReportedAsTheClosedConnectionItIs() throws {
    let knocks = Atomic<Int>(0)
    let closeEvery: @Sendable () -> Bool = {
      knocks.add(1, ordering: .relaxed)
      return false
    }
    let server = try RawServer(home: try TestHome(), door: closeEvery, script: { _ in })
    let (result, pauses) = try Self.send(to: server) { $0.busyPatience = .seconds(60) }
    guard case .failure(let error) = result else {
      Issue.record("a send to a receiver that closes every connection succeeded")
      return
    }
    guard case .transport(let summary, _) = error else {
      Issue.record("not reported as the closed connection it was: \(error)")
      return
    }
    #expect(summary.contains("127.0.0.1:\(server.port)"), "\(summary)")
    // Nothing was set up, so nothing "closed before the transfer finished" (review 13).
    #expect(summary.contains("closed the connection before it was set up"), "\(summary)")
    #expect(!summary.contains("transfer"), "\(summary)")
    // A server that hangs up on everyone is not busy: not tried for the whole patience.
    #expect(pauses.count == Sender.closedRetries)
    #expect(knocks.load(ordering: .relaxed) == Sender.closedRetries + 1)
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
    let (result, pauses) = try Self.send(to: server)
    guard case .failure(let error) = result else {
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
    // Tried again after each pause, then given up once the patience (1 s) is spent.
    #expect(!pauses.isEmpty)
    #expect(server.outcomes(count: pauses.count + 2, timeout: .seconds(2)).count == pauses.count + 1)
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
      }.result
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
