import Discovery
import TLS
import Testing

@testable import ShareKit

/// What `share peers --watch` reports as records come and go: each appearance once.
@Suite struct PeerTableTests {
  typealias R = PeerRecords

  static func kinds(_ events: [PeerEvent]) -> [String] {
    events.map { event in
      switch event {
      case .appeared(let peer): "appeared \(peer.name)"
      case .changed(let peer): "changed \(peer.name)"
      case .disappeared(let peer): "disappeared \(peer.name)"
      case .settled: "settled"
      }
    }
  }

  @Test func aRecordResolvedAgainIsNotASecondAppearance() {
    var table = PeerTable(book: R.book())
    let record = R.record("lab-b", R.labB)
    #expect(Self.kinds(table.add(record)) == ["appeared lab-b"])
    #expect(table.add(record).isEmpty)
    #expect(table.add(record).isEmpty)
  }

  @Test func theSameAddressOnASecondInterfaceIsNoNewsAndThePeerStaysUntilItsLastRecordGoes() {
    var table = PeerTable(book: R.book())
    let first = R.record("lab-b", R.labB, address: "192.0.2.7", interface: 1)
    let second = R.record("lab-b", R.labB, address: "192.0.2.7", interface: 2)
    #expect(Self.kinds(table.add(first)) == ["appeared lab-b"])
    #expect(table.add(second).isEmpty)
    // Its address is now the second interface's: at most a change, never a disappearance.
    #expect(Self.kinds(table.remove(first.instance)).allSatisfy { $0.hasPrefix("changed") })
    #expect(Self.kinds(table.remove(second.instance)) == ["disappeared lab-b"])
    #expect(table.remove(second.instance).isEmpty)
    #expect(Self.kinds(table.add(first)) == ["appeared lab-b"])
  }

  @Test func anotherAddressIsAChangeAndLosingItIsAnother() {
    var table = PeerTable(book: R.book())
    let v4 = R.record("lab-b", R.labB, address: "192.0.2.7", interface: 1)
    let other = R.record("lab-b", R.labB, address: "198.51.100.7", interface: 2)
    _ = table.add(v4)
    let changed = table.add(other)
    #expect(Self.kinds(changed) == ["changed lab-b"])
    #expect(changed.first?.peer?.addresses.map(\.address) == ["192.0.2.7", "198.51.100.7"])
    #expect(Self.kinds(table.remove(v4.instance)) == ["changed lab-b"])
  }

  @Test func aRecordWhoseIDChangesLeavesOnePeerForAnother() {
    var table = PeerTable(book: R.book())
    _ = table.add(R.record("lab-b", R.labB))
    let events = table.add(R.record("lab-b", R.mallory))
    #expect(Self.kinds(events) == ["disappeared lab-b", "appeared lab-b"])
    #expect(events.last?.peer?.id == R.mallory)
    #expect(table.peers.count == 1)
  }

  @Test func aCopyOfAContactsIDNeitherJoinsNorChangesTheContact() {
    var table = PeerTable(book: R.book(contacts: ["lab-b": R.labB]))
    #expect(Self.kinds(table.add(R.record("lab-b", R.labB, port: 2))) == ["appeared lab-b"])
    let events = table.add(R.record("aaa-spoof", R.labB, port: 1))
    #expect(Self.kinds(events) == ["appeared aaa-spoof"])
    #expect(events.first?.peer?.trusted == false)
    #expect(table.peers.values.first { $0.name.unescaped == "lab-b" }?.addresses.map(\.port) == [2])
  }
  /// Review 36: `café` as U+00E9 and as `e` + U+0301 are two instance names on the network (Avahi
  /// publishes both); `String`'s equality made them one record, so one device hid the other and
  /// a send without --to went to the one left, "the one peer nearby".
  @Test func namesThatAreTheSameTextButNotTheSameBytesAreTwoPeers() throws {
    let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
    #expect(composed == decomposed)  // what made them one key
    let records = [R.record(composed, R.labB, port: 1), R.record(decomposed, R.mallory, port: 2)]
    var table = PeerTable(book: R.book())
    #expect(Self.kinds(table.add(records[0])).count == 1)
    #expect(Self.kinds(table.add(records[1])).count == 1)
    #expect(Set(table.peers.values.compactMap(\.id)) == [R.labB, R.mallory])
    #expect(Self.kinds(table.remove(records[1].instance)).count == 1)
    #expect(table.peers.values.compactMap(\.id) == [R.labB])
    // Both are there to choose from, with no name and with the name typed either way.
    let peers = R.peers(records, book: R.book())
    for query in [nil, composed, decomposed] {
      #expect {
        try R.endpoint(for: query, among: peers, book: R.book())
      } throws: { error in
        (error as? R.Ambiguous)?.peers.count == 2
      }
    }
  }
  /// Review 36: two new devices called `laptop`, the second numbered by Avahi (`laptop #2`):
  /// `--to laptop` went to whichever won the name on the network, without asking.
  @Test func aNewNameAvahiNumberedForAnotherDeviceIsAChoiceNotAGuess() throws {
    let records = [R.record("laptop", R.labB, port: 1), R.record("laptop #2", R.mallory, port: 2)]
    let peers = R.peers(records, book: R.book())
    #expect {
      try R.endpoint(for: "laptop", among: peers, book: R.book())
    } throws: { error in
      Set((error as? R.Ambiguous)?.peers.compactMap(\.id) ?? []) == [R.labB, R.mallory]
    }
    #expect(try R.endpoint(for: "laptop #2", among: peers, book: R.book()).expectedFingerprint == R.mallory)
    // A name this home knows keeps to its device.
    let book = R.book(sentTo: ["laptop": R.labB])
    #expect(try R.endpoint(for: "laptop", among: R.peers(records, book: book), book: book).expectedFingerprint == R.labB)
  }

  /// Review 36 L8: `--to cafe` with `café` nearby got two hints, the first about ID prefixes.
  @Test func aNameCloseToOneNearbyGetsOneHint() {
    let peers = R.peers([R.record("caf\u{E9}", R.labB, port: 1)], book: R.book())
    #expect {
      try R.endpoint(for: "cafe", among: peers, book: R.book())
    } throws: { error in
      "\(error)".contains("did you mean 'caf\u{E9}'?") && !"\(error)".contains("hex digits")
    }
    #expect {
      try R.endpoint(for: " caf\u{E9}", among: peers, book: R.book())
    } throws: { error in
      "\(error)".contains("is called \" caf\u{E9}\"")
    }
  }
}
