import Foundation
import Synchronization
import TLS
import Testing
import Wire

@testable import ShareKit

/// A receiver that lies or stalls is not believed (issue 11.7): what it says that cannot be true
/// is a protocol error naming it, and nothing more is sent to it; its waits are bounded.
@Suite struct HostileReceiverTests {
  /// Sends `items` to `server` and returns how the send ended.
  static func send(_ items: [OutgoingItem], to server: RawServer, configure: (Sender) -> Void = { _ in }) throws
    -> Result<SendReport, ShareError>
  {
    let sender = try Sender(device: try TestHome(name: "honest-sender").device)
    configure(sender)
    do throws(ShareError) {
      return .success(try sender.send(items, to: server.endpoint))
    } catch {
      return .failure(error)
    }
  }

  /// The protocol violation a send ended with: what it said of the receiver.
  static func violation(_ result: Result<SendReport, ShareError>) -> (peer: String, address: String, problem: String)? {
    guard case .failure(.protocolViolation(let peer, let address, let problem)) = result else { return nil }
    return (peer, address, problem)
  }

  static func file(_ size: Int) throws -> [OutgoingItem] {
    let home = try TestHome()
    return try OutgoingItem.files([home.file("a.bin", randomBytes(size)).path])
  }

  @Test func aResumeOffsetPastTheEndIsAProtocolErrorNamingTheReceiverAndNothingIsStreamed() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.hello(name: "liar")
      let item = try session.ask().items[0]
      try session.send(.answer(Answer(items: [ItemAnswer(id: item.id, accepted: true, offset: (item.size ?? 0) + 1_000_000)])))
    }
    let result = try Self.send(try Self.file(4096), to: server)
    let violation = try #require(Self.violation(result), "\(result)")
    #expect(violation.peer == "liar" && violation.address == "127.0.0.1:\(server.port)")
    #expect(violation.problem.contains("resume offset of 1004096") && violation.problem.contains("past its end (4096 bytes)"))
    #expect(server.outcomes() == ["closed"])
  }

  @Test func aResumeOffsetForAnItemThatCannotResumeIsAProtocolError() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.hello()
      let item = try session.ask().items[0]
      try session.send(.answer(Answer(items: [ItemAnswer(id: item.id, accepted: true, offset: 1)])))
    }
    var catalog = ItemCatalog()
    catalog.add(text: "hello", name: "note")
    let violation = try #require(Self.violation(try Self.send(catalog.items, to: server)))
    #expect(violation.problem.contains("cannot resume"))
    #expect(server.outcomes() == ["closed"])
  }

  @Test func aVerdictForAnItemNeverOfferedIsAProtocolError() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.hello()
      let item = try session.ask().items[0]
      try session.send(.answer(Answer(items: [ItemAnswer(id: item.id, accepted: true), ItemAnswer(id: 4242, accepted: true)])))
    }
    let violation = try #require(Self.violation(try Self.send(try Self.file(10), to: server)))
    #expect(violation.problem.contains("item #4242, which was never offered"))
    #expect(server.outcomes() == ["closed"])
  }

  @Test func anItemAnsweredTwiceOrNotAtAllIsAProtocolError() throws {
    for twice in [true, false] {
      let server = try RawServer(home: try TestHome()) { session in
        try session.hello()
        let items = try session.ask().items
        let answers =
          twice
          ? items.map { ItemAnswer(id: $0.id, accepted: true) } + [ItemAnswer(id: items[0].id, accepted: false)]
          : [ItemAnswer(id: items[0].id, accepted: true)]
        try session.send(.answer(Answer(items: answers)))
      }
      let home = try TestHome()
      let items = try OutgoingItem.files([home.file("a.txt", [1]).path, home.file("b.txt", [2]).path])
      let violation = try #require(Self.violation(try Self.send(items, to: server)))
      #expect(violation.problem.contains(twice ? "\"a.txt\" twice" : "says nothing about \"b.txt\""), "\(violation)")
    }
  }

  @Test func aReceiptThatStoresWhatTheAnswerRefusedIsAProtocolError() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.hello()
      let items = try session.ask().items
      try session.send(.answer(Answer(items: [ItemAnswer(id: items[0].id, accepted: true), ItemAnswer(id: items[1].id, accepted: false)])))
      _ = try session.payloads(1)
      try session.send(.receipt(Receipt(items: items.map { ItemReceipt(id: $0.id, status: .stored, storedAs: $0.name, size: 1) })))
    }
    let home = try TestHome()
    let items = try OutgoingItem.files([home.file("a.txt", [1]).path, home.file("b.txt", [2]).path])
    let violation = try #require(Self.violation(try Self.send(items, to: server)))
    #expect(violation.problem.contains("stored \"b.txt\", which it refused"))
  }

  @Test func anHonestResumeOffsetIsStillBelieved() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.hello()
      let item = try session.ask().items[0]
      try session.send(.answer(Answer(items: [ItemAnswer(id: item.id, accepted: true, offset: 1000)])))
      let sizes = try session.payloads(1)
      try session.send(
        .receipt(Receipt(items: [ItemReceipt(id: item.id, status: .stored, storedAs: "a.bin", size: Int64(1000 + sizes[0]))])))
    }
    let report = try Self.send(try Self.file(4096), to: server).get()
    #expect(report.allStored && report.answers.first?.resumeFrom == 1000)
  }

  // MARK: Waits

  @Test func aWaitThenSilenceEndsWhenTheAnnouncedTimeIsOverNamingTheReceiver() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.hello(name: "staller")
      _ = try session.ask()
      try session.send(.wait(Wait(message: "asking", timeout: 1)))
      _ = session.whatFollows()  // silence until the sender gives up
    }
    let sender = try Sender(device: try TestHome().device)
    sender.replyGrace = .milliseconds(200)
    let waits = Mutex<[Duration]>([])
    let items = try Self.file(10)
    let result: Result<SendReport, ShareError>
    do throws(ShareError) {
      result = .success(
        try sender.send(items, to: server.endpoint) { event in
          if case .waiting(_, let left) = event { waits.withLock { $0.append(left) } }
        })
    } catch {
      result = .failure(error)
    }
    guard case .failure(.transport(let message, _)) = result else {
      Issue.record("expected the wait to end with an error, got \(result)")
      return
    }
    #expect(message.contains("staller at 127.0.0.1:\(server.port) did not reply in the time it said"))
    #expect(waits.withLock { $0 } == [.milliseconds(1200)])
  }

  @Test func repeatedWaitsCannotOutlastTheSendersMaximum() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.hello()
      _ = try session.ask()
      // A Wait every 100 ms, each promising another day, until the sender hangs up.
      while (try? session.send(.wait(Wait(message: "any minute now", timeout: 86_400)))) != nil { usleep(100_000) }
    }
    let result = try Self.send(try Self.file(10), to: server) { sender in
      sender.maximumWait = .milliseconds(500)
      sender.replyGrace = .milliseconds(200)
    }
    guard case .failure(.transport(let message, _)) = result else {
      Issue.record("expected the waits to end with an error, got \(result)")
      return
    }
    #expect(message.contains("did not reply in the time it said"))
  }

  @Test func cancellingDuringAWaitEndsTheSendAsCancelled() throws {
    let server = try RawServer(home: try TestHome()) { session in
      try session.hello()
      _ = try session.ask()
      try session.send(.wait(Wait(message: "asking", timeout: 600)))
      _ = session.whatFollows()
    }
    let sender = try Sender(device: try TestHome().device)
    let items = try Self.file(10)
    let result: Result<SendReport, ShareError>
    do throws(ShareError) {
      result = .success(
        try sender.send(items, to: server.endpoint) { event in
          // As Ctrl-C would: from another thread, while the sender waits.
          // (On a thread of its own: the global queue's threads may all be blocked by other tests.)
          if case .waiting = event {
            Thread {
              Thread.sleep(forTimeInterval: 0.1)
              sender.cancel()
            }.start()
          }
        })
    } catch {
      result = .failure(error)
    }
    guard case .failure(.cancelled) = result else {
      Issue.record("expected .cancelled, got \(result)")
      return
    }
  }
}
