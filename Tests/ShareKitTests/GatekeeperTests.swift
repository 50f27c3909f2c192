import Foundation
import Glibc
import Synchronization
import TLS
import Testing
import Wire

@testable import ShareKit

/// Receive modes, contacts and consent, without sockets.
@Suite struct GatekeeperTests {
  static let alice = Fingerprint(bytes: Array(repeating: 0xa1, count: 32))!
  static let mallory = Fingerprint(bytes: Array(repeating: 0x66, count: 32))!
  static let items = [AskedItem(name: PeerText("a.txt"), kind: "file", size: 1, type: "public.plain-text", accepted: true, reason: nil)]

  func trust(_ peers: Fingerprint...) -> TrustStore {
    var store = TrustStore()
    for peer in peers { store.add(TrustedPeer(id: peer, name: "p")) }
    return store
  }

  @Test func offRefusesEveryoneAndContactsRefusesStrangers() {
    let gate = Gatekeeper(mode: ModeSetting(mode: .off), trust: trust(Self.alice))
    #expect(gate.admit(Self.alice)?.code == "refused")
    gate.set(mode: ModeSetting(mode: .contacts))
    #expect(gate.admit(Self.alice) == nil)
    #expect(gate.admit(Self.mallory)?.message.contains("only its contacts") == true)
    gate.set(mode: ModeSetting(mode: .everyone))
    #expect(gate.admit(Self.mallory) == nil)
  }

  @Test func everyoneForAWhileFallsBackToContacts() {
    let setting = ModeSetting(mode: .everyone, until: Date(timeIntervalSinceNow: -1))
    #expect(setting.effective() == .contacts)
    #expect(ModeSetting(mode: .everyone, until: Date(timeIntervalSinceNow: 60)).effective() == .everyone)
    let gate = Gatekeeper(mode: setting, trust: trust())
    #expect(gate.admit(Self.mallory) != nil)
  }

  /// Review 39: an ask waiting when the owner turned receiving off (or when `everyone --for`
  /// ran out) stayed acceptable for its two minutes. The mode that refuses it declines it, and
  /// its sender is told why; a contact that must be asked still waits in mode contacts.
  @Test func aModeThatRefusesAWaitingAskDeclinesIt() throws {
    var contacts = TrustStore()
    contacts.add(TrustedPeer(id: Self.alice, name: PeerText("alice"), ask: true))
    for (mode, seconds) in [(ReceiveMode.off, nil), (.contacts, nil), (.everyone, 4 as TimeInterval?)] {
      let until = seconds.map { Date(timeIntervalSinceNow: $0) }
      let gate = Gatekeeper(mode: ModeSetting(mode: .everyone, until: until), trust: contacts, askTimeout: .seconds(60))
      let answers = Mutex<[String: Refusal?]>([:])
      for (name, peer) in [("mallory", Self.mallory), ("alice", Self.alice)] {
        Thread {
          let answer = gate.consent(peerName: PeerText(name), peer: peer, address: "::\(name.count)", items: Self.items)
          answers.withLock { $0[name] = .some(answer) }
        }.start()
      }
      try waitUntil { gate.pending.count == 2 }
      if until == nil { gate.set(mode: ModeSetting(mode: mode)) }
      try waitUntil { answers.withLock { $0["mallory"] } != nil }
      let refusal = answers.withLock { $0["mallory"] ?? nil }
      let expected = mode == .off ? "mode off" : "mode contacts"
      #expect(refusal?.code == "refused" && refusal?.message.contains(expected) == true, "\(mode): \(String(describing: refusal))")
      if mode == .off {
        try waitUntil { answers.withLock { $0["alice"] } != nil }
        #expect(gate.pending.isEmpty)
      } else {
        // The contact that must be asked still waits, and may be accepted.
        #expect(gate.pending.map(\.peerName) == [PeerText("alice")])
        _ = gate.decide(gate.pending[0].id, accept: true)
        try waitUntil { answers.withLock { $0["alice"] } != nil }
        #expect(answers.withLock { $0["alice"] ?? nil } == nil)
      }
    }
  }

  /// Review 40: between two of a waiting connection's looks at the mode (once a second), an
  /// ask `everyone --for` no longer lets wait could still be accepted.
  @Test func anAskTheModeRefusesByNowCannotBeAccepted() throws {
    let until = Date(timeIntervalSinceNow: 2)
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone, until: until), trust: TrustStore(), askTimeout: .seconds(60))
    let answer = Mutex<Refusal??>(nil)
    Thread { answer.withLock { $0 = .some(gate.consent(peerName: "m", peer: Self.mallory, address: "::1", items: Self.items)) } }.start()
    try waitUntil { gate.pending.count == 1 }
    let id = try #require(gate.pending.first?.id)
    while Date() < until { usleep(5_000) }
    #expect(gate.decide(id, accept: true) == nil)
    try waitUntil { answer.withLock { $0 } != nil }
    #expect(answer.withLock { $0 ?? nil }?.message.contains("mode contacts") == true)
  }

  @Test func aContactIsAcceptedWithoutAsking() {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(Self.alice))
    #expect(gate.consent(peerName: PeerText("alice"), peer: Self.alice, address: "::1", items: Self.items) == nil)
    #expect(gate.pending.isEmpty)
  }

  /// A contact's items are not even listed (a large ask's list is most of its cost); a contact
  /// marked to be asked, and a closing gate, still see them go through the usual way.
  @Test func aContactsItemsAreListedOnlyWhenItsAskWaits() throws {
    let listed = Listings()
    @Sendable func items() -> [AskedItem] {
      listed.count.withLock { $0 += 1 }
      return Self.items
    }
    var store = trust(Self.alice)
    store.add(TrustedPeer(id: Self.mallory, name: PeerText("m"), ask: true))
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: store)
    #expect(gate.consent(peerName: PeerText("alice"), peer: Self.alice, address: "::1", items: items()) == nil)
    #expect(listed.count.withLock { $0 } == 0)
    let thread = Thread { _ = gate.consent(peerName: PeerText("m"), peer: Self.mallory, address: "::1", items: items()) }
    thread.start()
    try waitUntil { gate.pending.count == 1 }
    #expect(listed.count.withLock { $0 } == 1)
    #expect(gate.pending.first?.items.map(\.name) == [PeerText("a.txt")])
    gate.close()
    #expect(gate.consent(peerName: PeerText("alice"), peer: Self.alice, address: "::1", items: items())?.code == "shutdown")
  }

  @Test func aStrangerGivingAContactsNameIsMarkedAndCannotBeTrusted() throws {
    var contacts = TrustStore()
    contacts.add(TrustedPeer(id: Self.alice, name: "Alice-Dev"))
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: contacts, askTimeout: .seconds(10))
    for (name, peer) in [("alice-dev", Self.mallory), ("bob", Fingerprint(bytes: Array(repeating: 0xb0, count: 32))!)] {
      let thread = Thread { _ = gate.consent(peerName: PeerText(name), peer: peer, address: "::1", items: Self.items) }
      thread.start()
      try waitUntil { gate.pending.contains { $0.peerName.unescaped == name } }
    }
    let impostor = try #require(gate.pending.first { $0.peerName.unescaped == "alice-dev" })
    #expect(impostor.posedAsId == Self.alice.hex)
    #expect(impostor.whyNotTrusted?.contains("another device") == true)
    let stranger = try #require(gate.pending.first { $0.peerName.unescaped == "bob" })
    #expect(stranger.posedAsId == nil && stranger.whyNotTrusted == nil)
    gate.close()
  }

  /// Review 29: a sender calling itself this device's own name with a zero-width space added
  /// (`lab-b\u{200B}` asking `lab-b`) was shown escaped, but not marked.
  @Test func aStrangerGivingThisDevicesOwnNameIsMarkedAndCannotBeTrusted() throws {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: TrustStore(), askTimeout: .seconds(10), ownName: "lab-b")
    for (name, peer) in [("lab-b\u{200B}", Self.mallory), ("bob", Fingerprint(bytes: Array(repeating: 0xb0, count: 32))!)] {
      let thread = Thread { _ = gate.consent(peerName: PeerText(name), peer: peer, address: "::1", items: Self.items) }
      thread.start()
      try waitUntil { gate.pending.contains { $0.peerName.unescaped == name } }
    }
    let impostor = try #require(gate.pending.first { $0.peerName.unescaped == "lab-b\u{200B}" })
    #expect(impostor.posesAsThisDevice == "lab-b")
    #expect(impostor.warning?.contains("NOT this device (lab-b)") == true, "\(String(describing: impostor.warning))")
    #expect(impostor.whyNotTrusted?.contains("this device's own") == true)
    let stranger = try #require(gate.pending.first { $0.peerName.unescaped == "bob" })
    #expect(stranger.posesAsThisDevice == nil && stranger.warning == nil)
    gate.close()
  }

  /// Review 22: the impostor's ask said `contact_name` (the contact it poses as, which reads as
  /// "the sender is a contact") and a contact set to be asked got nothing. Now the contact's ask
  /// has `contact_name`, and the impostor's `posed_as` and `posed_as_id`.
  @Test func aContactsAskSaysSoAndAnImpostorsSaysWhomItPosesAs() throws {
    var contacts = TrustStore()
    contacts.add(TrustedPeer(id: Self.alice, name: PeerText("alice-send"), ask: true))
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: contacts, askTimeout: .seconds(10))
    for (index, (name, peer)) in [("alice-send", Self.alice), ("aIice-send", Self.mallory)].enumerated() {
      let thread = Thread { _ = gate.consent(peerName: PeerText(name), peer: peer, address: "::\(index + 1)", items: Self.items) }
      thread.start()
      try waitUntil { gate.pending.contains { $0.peerId == peer.hex } }
    }
    let contact = try #require(gate.pending.first { $0.peerId == Self.alice.hex })
    #expect(contact.contactName == PeerText("alice-send") && contact.posedAs == nil && contact.posedAsId == nil, "\(contact)")
    let impostor = try #require(gate.pending.first { $0.peerId == Self.mallory.hex })
    #expect(impostor.contactName == nil && impostor.posedAs == PeerText("alice-send") && impostor.posedAsId == Self.alice.hex)
    // As the control socket carries them to `share requests` (snake case both ways: an `ID`
    // in a property's name does not come back).
    let data = try JSONCoding.encoder().encode([impostor, contact])
    let json = try #require(String(data: data, encoding: .utf8))
    #expect(json.contains("\"posed_as\":\"alice-send\"") && json.contains("\"posed_as_id\""), "\(json)")
    let decoded = try JSONCoding.decoder().decode([PendingAsk].self, from: data)
    #expect(decoded.map(\.posedAs) == [impostor.posedAs, nil] && decoded.map(\.posedAsId) == [impostor.posedAsId, nil])
    #expect(decoded.map(\.contactName) == [nil, contact.contactName] && decoded.first?.posedAsId != nil)
    gate.close()
  }

  /// Review 21: `accept --trust` made contacts of names `share trust add --name` refuses, and
  /// `alice\u{0}` beside the contact `alice` got no warning.
  @Test func aStrangerWhoseNameNoContactMayHaveCannotBeTrusted() throws {
    var contacts = TrustStore()
    contacts.add(TrustedPeer(id: Self.alice, name: "alice"))
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: contacts, askTimeout: .seconds(10))
    let names = ["alice\u{0}", "", "ta\tb", " bob", String(repeating: "x", count: 64), "bob"]
    for (index, name) in names.enumerated() {
      let peer = Fingerprint(bytes: Array(repeating: UInt8(0xc0 + index), count: 32))!
      // One address each: at most four asks wait per address.
      let thread = Thread { _ = gate.consent(peerName: PeerText(name), peer: peer, address: "::\(index + 1)", items: Self.items) }
      thread.start()
      try waitUntil { gate.pending.contains { $0.peerName.unescaped == name } }
    }
    #expect(gate.pending.count == names.count)
    for ask in gate.pending {
      let name = ask.peerName.unescaped
      if name == "bob" {
        #expect(ask.whyNotTrusted == nil)
      } else {
        #expect(ask.whyNotTrusted?.contains("cannot be a contact by it") == true, "\(ask.peerName): \(ask.whyNotTrusted ?? "trusted")")
      }
    }
    let nul = try #require(gate.pending.first { $0.peerName.unescaped == "alice\u{0}" })
    #expect(nul.posedAsId == Self.alice.hex, "alice\\u{0} is not marked as looking like the contact alice")
    gate.close()
  }

  @Test func aStrangersAskWaitsUntilAccepted() throws {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(10))
    let result = Mutex<Refusal??>(nil)
    let thread = Thread {
      result.withLock { $0 = .some(gate.consent(peerName: PeerText("m"), peer: Self.mallory, address: "::1", items: Self.items)) }
    }
    thread.start()
    try waitUntil { gate.pending.count == 1 }
    #expect(gate.pending.first?.items == Self.items)
    #expect(gate.decide(gate.pending[0].id, accept: true) != nil)
    try waitUntil { result.withLock { $0 != nil } }
    #expect(result.withLock { $0 } == .some(nil))
  }

  /// Found by the adversarial suite: every item of a 20,000-item ask went into the control
  /// socket's answer, past what the command would read.
  @Test func aHugeAskListsItsFirstItemsAndCountsThemAll() throws {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(10))
    let items = (0..<20_000).map {
      AskedItem(name: PeerText("spam-\($0).txt"), kind: "file", size: 1, type: nil, accepted: true, reason: nil)
    }
    let thread = Thread { _ = gate.consent(peerName: PeerText("m"), peer: Self.mallory, address: "::1", items: items) }
    thread.start()
    try waitUntil { gate.pending.count == 1 }
    let ask = gate.pending[0]
    #expect(ask.itemCount == 20_000)
    #expect(ask.items == Array(items.prefix(PendingAsk.listedItems)))
    let line = try ControlCoding.encoder.encode(ControlResponse(ok: true, requests: gate.pending))
    #expect(line.count < 64 << 10, "\(line.count) bytes")
    #expect(gate.decide(ask.id, accept: false) != nil)
  }

  @Test func aDeclinedOrUnansweredAskIsRefused() throws {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .milliseconds(300))
    #expect(
      gate.consent(peerName: PeerText("m"), peer: Self.mallory, address: "::1", items: Self.items)?.message.contains("nobody answered")
        == true)
    let result = Mutex<Refusal??>(nil)
    let longer = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(10))
    Thread {
      result.withLock { $0 = .some(longer.consent(peerName: PeerText("m"), peer: Self.mallory, address: "::1", items: Self.items)) }
    }.start()
    try waitUntil { longer.pending.count == 1 }
    _ = longer.decide(longer.pending[0].id, accept: false)
    try waitUntil { result.withLock { $0 != nil } }
    #expect(result.withLock { $0 }??.code == "declined")
  }

  /// Review 49: one accept of an ask folded from two connections let both deliver (the note
  /// stored twice); the first goes ahead, the other is told it is not needed.
  @Test func anAcceptOfAFoldedAskLetsOneConnectionThrough() throws {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(30))
    let refusals = Mutex<[Refusal?]>([])
    let items = [AskedItem(name: PeerText("note.txt"), kind: "file", size: 15, type: nil, accepted: true, reason: nil)]
    for _ in 0..<2 {
      Thread {
        let r = gate.consent(peerName: PeerText("x"), peer: Self.mallory, address: "::1", items: items)
        refusals.withLock { $0.append(r) }
      }.start()
    }
    try waitUntil { gate.pending.first?.connections == 2 }
    let id = try #require(gate.pending.first?.id)
    #expect(gate.decide(id, accept: true) != nil)
    try waitUntil { refusals.withLock { $0.count } == 2 }
    let answers = refusals.withLock { $0 }
    #expect(answers.filter { $0 == nil }.count == 1, "\(answers)")
    #expect(answers.compactMap { $0 }.first?.message.contains("received on another connection") == true, "\(answers)")
  }

  @Test func askSpamIsCappedAndDuplicatesAreFolded() throws {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(10), maxPendingPerPeer: 2, maxPending: 3)
    let refusals = Mutex<[Refusal?]>([])
    func ask(_ peer: Fingerprint, _ name: String) {
      let items = [AskedItem(name: PeerText(name), kind: "file", size: 1, type: nil, accepted: true, reason: nil)]
      Thread {
        let r = gate.consent(peerName: PeerText("x"), peer: peer, address: "::1", items: items)
        refusals.withLock { $0.append(r) }
      }.start()
    }
    ask(Self.mallory, "1")
    ask(Self.mallory, "1")  // the same ask again: folded
    try waitUntil { gate.pending.first?.connections == 2 }
    ask(Self.mallory, "2")
    try waitUntil { gate.pending.count == 2 }
    ask(Self.mallory, "3")  // over the per-peer cap: refused at once
    try waitUntil { refusals.withLock { $0.count } == 1 }
    #expect(refusals.withLock { $0.first??.code } == "busy")
    ask(Self.alice, "a")
    try waitUntil { gate.pending.count == 3 }
    ask(GatekeeperTests.alice, "b")  // over the total cap
    try waitUntil { refusals.withLock { $0.count } == 2 }
    gate.close()  // shutdown declines everything waiting
    try waitUntil { refusals.withLock { $0.count } == 6 }
    #expect(gate.admit(Self.alice)?.code == "shutdown")
  }

  /// Review 19: a folder offered under the name and size of a waiting ask's 5-byte note was
  /// folded into that ask (the key was names and sizes), and came in with the owner's accept.
  @Test func onlyAnAskOfferingExactlyTheSameIsFolded() throws {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(10))
    let shown = [AskedItem(name: PeerText("notes.txt"), kind: "file", size: 5, type: nil, accepted: true, reason: nil)]
    let note = ItemOffer(id: 0, kind: .file, name: PeerText("notes.txt"), size: 5, type: "public.plain-text")
    let entry = EntryOffer(path: PeerText("big.bin"), kind: .file, size: 5)
    let folder = ItemOffer(id: 0, kind: .folder, name: PeerText("notes.txt"), size: 5, type: "public.folder", entries: [entry])
    let done = Mutex(0)
    func ask(_ offered: [ItemOffer]) {
      Thread {
        _ = gate.consent(peerName: PeerText("x"), peer: Self.mallory, address: "192.0.2.7", items: shown, offered: offered)
        done.withLock { $0 += 1 }
      }.start()
    }
    ask([note])
    try waitUntil { gate.pending.count == 1 }
    ask([folder])
    try waitUntil { gate.pending.count == 2 }
    // The same note with another resume key is the same ask.
    var again = note
    again.resumeKey = "another"
    ask([again])
    try waitUntil { gate.pending.contains { $0.connections == 2 } }
    #expect(gate.pending.count == 2)
    // Every part of an item counts.
    func key(_ offers: ItemOffer...) -> String { Gatekeeper.foldKey(Self.mallory, items: shown, offered: offers) }
    var typed = note
    typed.type = "public.data"
    var otherEntry = folder
    otherEntry.entries = [EntryOffer(path: PeerText("big.bin"), kind: .file, size: 6)]
    var otherPath = folder
    otherPath.entries = [EntryOffer(path: PeerText("other.bin"), kind: .file, size: 5)]
    let keys = [key(note), key(folder), key(typed), key(otherEntry), key(otherPath), key(note, note)]
    #expect(Set(keys).count == keys.count)
    #expect(key(note) != Gatekeeper.foldKey(Self.alice, items: shown, offered: [note]))
    gate.close()
    try waitUntil { done.withLock { $0 } == 3 }
  }

  /// Review 17: 48 connections sending one ask folded into it without limit, each holding a
  /// stranger's slot while it waited; and two addresses held every ask slot with free IDs.
  @Test func anAskIsHeldOnTwoConnectionsAtMostAndOneAddressHoldsFourAsks() throws {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(10))
    let refusals = Mutex<[Refusal?]>([])
    func ask(_ peer: Fingerprint, _ name: String, from address: String = "192.0.2.7") {
      let items = [AskedItem(name: PeerText(name), kind: "file", size: 1, type: nil, accepted: true, reason: nil)]
      Thread {
        let r = gate.consent(peerName: PeerText("x"), peer: peer, address: address, items: items)
        refusals.withLock { $0.append(r) }
      }.start()
    }
    ask(Self.mallory, "1")
    ask(Self.mallory, "1")
    try waitUntil { gate.pending.first?.connections == 2 }
    ask(Self.mallory, "1")  // a third connection for the same ask: turned away
    try waitUntil { refusals.withLock { $0.count } == 1 }
    #expect(refusals.withLock { $0.first??.message } == "this ask is already waiting for an answer on another connection")
    #expect(gate.pending.first?.connections == 2)
    // Other IDs from the same address: four asks in all, then no more.
    for byte in UInt8(1)...4 { ask(Fingerprint(bytes: Array(repeating: byte, count: 32))!, "n\(byte)") }
    try waitUntil { refusals.withLock { $0.count } == 2 }
    #expect(gate.pending.count == 4)
    #expect(refusals.withLock { $0.last??.message } == "too many asks from your address are already waiting for an answer")
    ask(Fingerprint(bytes: Array(repeating: 9, count: 32))!, "elsewhere", from: "192.0.2.8")
    try waitUntil { gate.pending.count == 5 }
    gate.close()
    try waitUntil { refusals.withLock { $0.count } == 8 }
  }

  /// Review 18: of two connections folded into one ask that nobody answered, the second was
  /// told "declined by the receiver" (it is now also woken when the ask's time is up).
  @Test func everyConnectionFoldedIntoAnUnansweredAskIsToldSoWhenItsTimeIsUp() throws {
    let gate = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(1))
    let refusals = Mutex<[Refusal?]>([])
    for delay in [0, 500_000] {
      Thread {
        usleep(useconds_t(delay))
        let refusal = gate.consent(peerName: PeerText("m"), peer: Self.mallory, address: "::1", items: Self.items)
        refusals.withLock { $0.append(refusal) }
      }.start()
    }
    try waitUntil { gate.pending.first?.connections == 2 }
    try waitUntil { refusals.withLock { $0.count } == 2 }
    #expect(
      refusals.withLock { $0 }.allSatisfy { $0?.message == "declined: nobody answered within 1 seconds" }, "\(refusals.withLock { $0 })")
  }

  @Test func anAskIsWithdrawnWhenEveryConnectionWaitingOnItGoesAway() throws {
    let withdrawn = Mutex<[Int]>([])
    let gate = Gatekeeper(
      mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(30),
      onWithdrawn: { ask in withdrawn.withLock { $0.append(ask.id) } })
    let leaving = Mutex<[@Sendable () -> Void]>([])
    let refusals = Mutex<[Refusal?]>([])
    for _ in 0..<2 {  // two connections folded into one ask
      Thread {
        let refusal = gate.consent(peerName: PeerText("m"), peer: Self.mallory, address: "::1", items: Self.items) { _, senderLeft in
          leaving.withLock { $0.append(senderLeft) }
        }
        refusals.withLock { $0.append(refusal) }
      }.start()
    }
    try waitUntil { leaving.withLock { $0.count } == 2 }
    let id = try #require(gate.pending.first?.id)
    leaving.withLock { $0[0] }()
    try waitUntil { refusals.withLock { $0.count } == 1 }
    // One sender of two left: the ask still waits, on one connection.
    #expect(gate.pending.map(\.connections) == [1])
    #expect(withdrawn.withLock { $0 }.isEmpty)
    leaving.withLock { $0[1] }()
    try waitUntil { refusals.withLock { $0.count } == 2 }
    #expect(gate.pending.isEmpty)
    #expect(refusals.withLock { $0 }.allSatisfy { $0?.message.contains("the sender went away") == true })
    #expect(withdrawn.withLock { $0 } == [id])
    #expect(gate.decide(id, accept: true) == nil)
    #expect(gate.withdrawn(id)?.peerName.unescaped == "m")
  }

  /// Review 26: one stranger that asked and hung up in a loop got a notification and log lines
  /// per ask; the waiting caps never applied, as nothing stayed waiting.
  @Test func askingAndHangingUpInALoopIsCappedOverTime() {
    let notified = Mutex(0)
    let gate = Gatekeeper(
      mode: ModeSetting(mode: .everyone), trust: trust(), askTimeout: .seconds(30),
      onPending: { _ in notified.withLock { $0 += 1 } })
    func askAndLeave(_ peer: Fingerprint, from address: String) -> Refusal? {
      gate.consent(peerName: PeerText("m"), peer: peer, address: address, items: Self.items) { _, senderLeft in senderLeft() }
    }
    let refusals = (0..<10).map { _ in askAndLeave(Self.mallory, from: "127.0.0.9") }
    #expect(notified.withLock { $0 } == AskRate.perPeer)
    #expect(refusals.prefix(AskRate.perPeer).allSatisfy { $0?.message.contains("the sender went away") == true })
    #expect(refusals.dropFirst(AskRate.perPeer).allSatisfy { $0?.code == "busy" && $0?.message.contains("from you") == true })
    // Another certificate from the same address asks until the address's own cap.
    let others = (0..<10).map { index in askAndLeave(Fingerprint(bytes: Array(repeating: UInt8(index + 1), count: 32))!, from: "127.0.0.9")
    }
    #expect(others.filter { $0?.code == "busy" }.count == 10 - (AskRate.perAddress - AskRate.perPeer))
    #expect(others.last??.message.contains("your address") == true)
    // Someone else, elsewhere, is not held up; nor is a contact that needs no asking.
    #expect(askAndLeave(Self.alice, from: "127.0.0.10")?.code != "busy")
    #expect(notified.withLock { $0 } == AskRate.perAddress + 1)
  }

  @Test func theAskRateForgetsAsksOlderThanItsWindow() {
    var rate = AskRate()
    let start = ContinuousClock.now
    for _ in 0..<AskRate.perPeer { #expect(rate.admit(peer: "p", address: "a", now: start) == nil) }
    #expect(rate.admit(peer: "p", address: "a", now: start + .seconds(59))?.code == "busy")
    #expect(rate.admit(peer: "p", address: "a", now: start + AskRate.window) == nil)
  }

  @Test func durationsParse() {
    #expect(parseDuration("10m") == 600)
    #expect(parseDuration("1h30m") == 5400)
    #expect(parseDuration("90s") == 90)
    #expect(parseDuration("5") == 300)
    #expect(parseDuration("abc") == nil)
    #expect(parseDuration("-5") == nil)
    #expect(parseDuration("5", bareUnit: 1) == 5)
    #expect(parseDuration("0", bareUnit: 1) == 0)
    #expect(parseDuration("") == nil && parseDuration("5x") == nil && parseDuration("m") == nil)
  }

  @Test func verificationCodesAgreeOnBothSidesAndDifferForAnotherPeerOrNonce() {
    let nonces = PairingNonces(
      sender: Digest(bytes: Array(repeating: 1, count: 32))!, receiver: Digest(bytes: Array(repeating: 2, count: 32))!)
    let code = verificationCode(Self.alice, Self.mallory, nonces: nonces)
    #expect(code == verificationCode(Self.mallory, Self.alice, nonces: nonces))
    let other = Fingerprint(bytes: Array(repeating: 0x67, count: 32))!
    #expect(code != verificationCode(Self.alice, other, nonces: nonces))
    // Review 39: the same two devices get another code with other nonces, and the two nonces
    // are not interchangeable.
    var another = nonces
    another.receiver = Digest(bytes: Array(repeating: 3, count: 32))!
    #expect(code != verificationCode(Self.alice, Self.mallory, nonces: another))
    #expect(code != verificationCode(Self.alice, Self.mallory, nonces: PairingNonces(sender: nonces.receiver, receiver: nonces.sender)))
    #expect(code.count == 7)
    // A commitment binds its nonce.
    #expect(PairingNonces.commitment(to: nonces.sender) != PairingNonces.commitment(to: nonces.receiver))
  }
}

/// Polls a condition (bounded) for tests that wait on other threads. Synchronous on purpose:
/// an async wait can be starved of the two cooperative threads by blocking tests running beside it.
/// How many times an ask's items were listed.
private final class Listings: Sendable {
  let count = Mutex(0)
}

func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) throws {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    guard ContinuousClock.now < deadline else {
      Issue.record("timed out waiting")
      return
    }
    usleep(10_000)
  }
}
