import Testing
import Wire

@testable import ShareKit

/// Review 31: a stranger's Ask of 60,000 items was judged in full (2 s of CPU) before the
/// waiting caps answered "busy", and refused asks were never counted: two connections kept the
/// daemon's cores busy. Every Ask of a peer that has to ask is counted before it is judged.
@Suite struct AskBudgetTests {
  static let alice = Fingerprint(bytes: Array(repeating: 0xa1, count: 32))!
  static let mallory = Fingerprint(bytes: Array(repeating: 0x66, count: 32))!

  @Test func asksReceivedFromAStrangerAreCountedBeforeTheyAreJudged() {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: TrustStore(peers: [TrustedPeer(id: Self.alice, name: "alice")]))
    let budget = 4 * AskRate.perPeer
    let refusals = (0..<(budget + 3)).map { _ in gate.beforeJudging(Self.mallory, address: "127.0.0.9") }
    #expect(refusals.prefix(budget).allSatisfy { $0 == nil })
    #expect(refusals.dropFirst(budget).allSatisfy { $0?.code == "busy" && $0?.message.contains("from you") == true })
    // Other certificates from that address, until the address's own budget.
    let others = (1...(4 * AskRate.perAddress)).map { index in
      gate.beforeJudging(Fingerprint(bytes: Array(repeating: UInt8(index), count: 32))!, address: "127.0.0.9")
    }
    #expect(others.filter { $0 == nil }.count == 4 * AskRate.perAddress - budget)
    #expect(others.last??.message.contains("your address") == true)
    // A contact that needs no asking is never counted, from that address or any.
    #expect((0..<(2 * budget)).allSatisfy { _ in gate.beforeJudging(Self.alice, address: "127.0.0.9") == nil })
    // Someone else, elsewhere, is not held up.
    #expect(gate.beforeJudging(Fingerprint(bytes: Array(repeating: 0x77, count: 32))!, address: "127.0.0.10") == nil)
  }

  /// A large Ask is judged once; the next within the minute is refused before it is judged, and
  /// a little one from someone else still goes.
  @Test func aStrangersLargeAsksAreJudgedOnceAMinute() {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: TrustStore())
    let large = 60_000
    #expect(gate.budgetSpent(Self.mallory, address: "127.0.0.9") == nil)
    #expect(gate.beforeJudging(Self.mallory, address: "127.0.0.9", cost: large) == nil)
    // Looked at after the Hello, before the next Ask is read, without counting one.
    #expect((0..<50).allSatisfy { _ in gate.budgetSpent(Self.mallory, address: "127.0.0.9")?.code == "busy" })
    #expect(gate.budgetSpent(Self.alice, address: "127.0.0.10") == nil)
    #expect(gate.beforeJudging(Self.mallory, address: "127.0.0.9", cost: 1)?.code == "busy")
    // Another certificate from that address waits too (its budget is twice a peer's, spent);
    // from another address it is judged.
    let other = Fingerprint(bytes: Array(repeating: 0x67, count: 32))!
    #expect(gate.beforeJudging(other, address: "127.0.0.9", cost: 1)?.message.contains("your address") == true)
    #expect(gate.budgetSpent(other, address: "127.0.0.11") == nil)
    #expect(gate.beforeJudging(other, address: "127.0.0.11", cost: 30_000) == nil)
    #expect(gate.beforeJudging(Self.alice, address: "127.0.0.10", cost: 5_000) == nil)
    var rate = AskRate(costPerPeer: 10)
    let start = ContinuousClock.now
    #expect(rate.admit(peer: "p", address: "a", cost: 9, now: start) == nil)
    #expect(rate.admit(peer: "p", address: "a", cost: 1, now: start) == nil)
    #expect(rate.admit(peer: "p", address: "a", cost: 1, now: start)?.code == "busy")
    #expect(rate.admit(peer: "p", address: "a", cost: 1, now: start + AskRate.window) == nil)
  }
  /// Review 44: a stranger's Ask over its 4 MiB was cut off ("the connection was closed"); it is
  /// read through and answered with why, and what to do.
  @Test func aStrangersAskOverItsLimitIsAnsweredWithWhy() throws {
    let (stranger, b) = (try TestHome(), try TestHome())
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: TrustStore())
    let receiver = try RunningReceiver(home: b, gatekeeper: gate)
    let name = String(repeating: "n", count: 200)
    let offers = (0..<25_000).map { ItemOffer(id: $0, kind: .text, name: PeerText("\(name)-\($0).txt"), size: 1) }
    let client = try RawClient(to: receiver.port, home: stranger)
    try client.hello()
    try client.connection.sendNow(.ask(Ask(items: offers)))
    let answer = try client.connection.receiveMessage(expecting: "Answer")
    guard case .failure(let failure) = answer else {
      Issue.record("an Ask over the limit is answered with a failure: \(answer)")
      return
    }
    #expect(failure.code == "too-large" && failure.message.unescaped.contains("pair first"), "\(failure)")
  }

  /// Review 34: an Ask that failed validation (an item ID twice) was never counted, so a
  /// stranger's invalid 4 MB Asks were decoded and validated without end. The budget is spent
  /// before validation now: past it, the next connection is refused right after its Hello.
  @Test func invalidAsksSpendTheBudgetToo() throws {
    let (stranger, b) = (try TestHome(), try TestHome())
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: TrustStore())
    let receiver = try RunningReceiver(home: b, gatekeeper: gate)
    let large = 20_000
    let offers = (0..<large).map { ItemOffer(id: $0 == large - 1 ? 0 : $0, kind: .text, name: PeerText("t\($0).txt"), size: 1) }
    let client = try RawClient(to: receiver.port, home: stranger)
    try client.hello()
    try client.connection.sendNow(.ask(Ask(items: offers)))
    let refused = try client.connection.receiveMessage(expecting: "Answer")
    guard case .failure(let invalid) = refused else {
      Issue.record("an invalid Ask is answered with a failure: \(refused)")
      return
    }
    #expect(invalid.code != "busy", "\(invalid)")
    let next = try RawClient(to: receiver.port, home: stranger)
    let greeting = try next.hello()
    guard case .failure(let busy) = greeting else {
      Issue.record("refused right after the Hello: \(greeting)")
      return
    }
    #expect(busy.code == "busy", "\(busy)")
    #expect(gate.budgetSpent(stranger.device.fingerprint, address: "127.0.0.1")?.code == "busy")
  }
}
