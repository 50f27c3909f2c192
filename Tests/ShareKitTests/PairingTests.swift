import Foundation
import Synchronization
import TLS
import Testing

@testable import ShareKit

/// Pairing: both sides see the same code; the receiver's owner accepts; the sender becomes a
/// contact, whose sends then go through without asking.
@Suite struct PairingTests {
  func daemonLike(_ home: TestHome, mode: ReceiveMode = .everyone) throws -> (RunningReceiver, Gatekeeper) {
    let gate = Gatekeeper(mode: ModeSetting(mode: mode), trust: try Contacts(paths: home.device.paths).trusted(), askTimeout: .seconds(20))
    let receiver = try RunningReceiver(home: home, gatekeeper: gate)
    return (receiver, gate)
  }

  @Test func anAcceptedPairingMakesTheSenderAContactWithTheSameCodeOnBothSides() throws {
    let (a, b) = (try TestHome(name: "alice"), try TestHome(name: "bob"))
    let (receiver, gate) = try daemonLike(b)
    let shown = Mutex<String?>(nil)
    let outcome = Mutex<Sender.PairOutcome?>(nil)
    let sender = try Sender(device: a.device)
    Thread {
      let result = try? sender.pair(with: receiver.endpoint, showCode: { code, _, _ in shown.withLock { $0 = code } }, confirm: { true })
      outcome.withLock { $0 = result }
    }.start()
    try waitUntil { gate.pending.count == 1 }
    let ask = gate.pending[0]
    #expect(ask.pairingCode?.count == 7)
    try waitUntil { shown.withLock { $0 } != nil }
    #expect(shown.withLock { $0 } == ask.pairingCode)
    _ = gate.decide(ask.id, accept: true)
    try waitUntil { outcome.withLock { $0 } != nil }
    #expect(outcome.withLock { $0?.accepted } == true)
    #expect(try Contacts(paths: b.device.paths).trusted().trusts(a.device.fingerprint))
    #expect(gate.trust.trusts(a.device.fingerprint))
    // Now a contact: a send goes through without an ask.
    let report = try Sender(device: a.device).send(
      try OutgoingItem.files([a.file("after.txt", Array("paired\n".utf8)).path]), to: receiver.endpoint)
    #expect(report.allStored)
  }

  @Test func aDeclinedPairingTrustsNobody() throws {
    let (a, b) = (try TestHome(name: "alice"), try TestHome(name: "bob"))
    let (receiver, gate) = try daemonLike(b)
    let outcome = Mutex<Sender.PairOutcome?>(nil)
    let sender = try Sender(device: a.device)
    Thread { outcome.withLock { $0 = try? sender.pair(with: receiver.endpoint, showCode: { _, _, _ in }, confirm: { true }) } }.start()
    try waitUntil { gate.pending.count == 1 }
    _ = gate.decide(gate.pending[0].id, accept: false)
    try waitUntil { outcome.withLock { $0 } != nil }
    #expect(outcome.withLock { $0?.accepted } == false)
    #expect(!(try Contacts(paths: b.device.paths).trusted().trusts(a.device.fingerprint)))
  }

  @Test func aPairingAcceptedThereButAnsweredNoHereTrustsNobody() throws {
    let (a, b) = (try TestHome(name: "alice"), try TestHome(name: "bob"))
    let (receiver, gate) = try daemonLike(b)
    let outcome = Mutex<Sender.PairOutcome?>(nil)
    let asked = Atomic<Bool>(false)
    let sender = try Sender(device: a.device)
    Thread {
      let result = try? sender.pair(
        with: receiver.endpoint, showCode: { _, _, _ in },
        confirm: {
          asked.store(true, ordering: .sequentiallyConsistent)
          return false
        })
      outcome.withLock { $0 = result }
    }.start()
    try waitUntil { gate.pending.count == 1 }
    _ = gate.decide(gate.pending[0].id, accept: true)
    try waitUntil { outcome.withLock { $0 } != nil }
    let wasAsked = asked.load(ordering: .sequentiallyConsistent)
    #expect(wasAsked)
    #expect(outcome.withLock { $0?.accepted } == false)
    #expect(outcome.withLock { $0?.declinedHere } == true)
    // Before the fix the receiver trusted the sender before it even answered; give it a moment
    // to act on the "no", then check it trusted nobody.
    usleep(300_000)
    #expect(!(try Contacts(paths: b.device.paths).trusted().trusts(a.device.fingerprint)))
    #expect(!gate.trust.trusts(a.device.fingerprint))
  }

  /// Review 39: two devices asking to pair under one name were each accepted before either was
  /// confirmed (neither was a contact yet when its owner accepted), and each confirmation then
  /// wrote a contact of that name. The name is checked again when the contact is written.
  @Test func twoPairingsOfOneNameConfirmedLateMakeOneContact() throws {
    let (a1, a2, b) = (try TestHome(name: "twin"), try TestHome(name: "twin"), try TestHome(name: "bob"))
    let (receiver, gate) = try daemonLike(b)
    let decided = Atomic<Int>(0)
    let outcomes = Mutex<[Sender.PairOutcome]>([])
    for home in [a1, a2] {
      let sender = try Sender(device: home.device)
      Thread {
        let result = try? sender.pair(
          with: receiver.endpoint, showCode: { _, _, _ in },
          confirm: {
            // Confirmed only once the owner has accepted both.
            while decided.load(ordering: .sequentiallyConsistent) < 2 { usleep(10_000) }
            return true
          })
        if let result { outcomes.withLock { $0.append(result) } }
      }.start()
    }
    try waitUntil { gate.pending.count == 2 }
    for ask in gate.pending {
      _ = gate.decide(ask.id, accept: true)
      decided.add(1, ordering: .sequentiallyConsistent)
    }
    try waitUntil { outcomes.withLock { $0.count } == 2 }
    let accepted = outcomes.withLock { $0 }.filter(\.accepted)
    #expect(accepted.count == 1, "\(outcomes.withLock { $0 })")
    let refused = outcomes.withLock { $0 }.first { !$0.accepted }
    #expect(refused?.reason?.unescaped.contains("became a contact called twin") == true, "\(String(describing: refused))")
    let contacts = try Contacts(paths: b.device.paths).trusted()
    #expect(contacts.trusts(a1.device.fingerprint) != contacts.trusts(a2.device.fingerprint))
  }

  @Test func contactsModeRefusesAStrangerWithoutAsking() throws {
    let (a, b) = (try TestHome(name: "alice"), try TestHome(name: "bob"))
    let (receiver, gate) = try daemonLike(b, mode: .contacts)
    let items = try OutgoingItem.files([a.file("x.txt", Array("x\n".utf8)).path])
    #expect(throws: ShareError.self) { try Sender(device: a.device).send(items, to: receiver.endpoint) }
    #expect(gate.pending.isEmpty)
    #expect(b.inboxNames().isEmpty && b.stagingNames().isEmpty)
  }
}
