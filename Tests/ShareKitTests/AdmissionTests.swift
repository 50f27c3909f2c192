import Testing

@testable import ShareKit

/// Who gets a connection slot, as pure decisions (issue 11.3).
@Suite struct AdmissionTests {
  let limits = Admission.Limits(
    maxUnauthenticatedPerAddress: 2, maxUnauthenticated: 4, maxConnectionsPerAddress: 3, maxConnections: 4,
    contactReserve: 2)
  let start = ContinuousClock.now

  func at(_ seconds: Int) -> ContinuousClock.Instant { start + .seconds(seconds) }

  func admittedID(_ arrival: Admission.Arrival) -> Int? {
    if case .admitted(let id, _) = arrival { return id }
    return nil
  }

  @Test func oneAddressCannotHoldMoreThanItsShareOfUnauthenticatedSlots() {
    var admission = Admission(limits: limits)
    #expect(admittedID(admission.arrive(address: "a", port: 1, now: at(0))) != nil)
    #expect(admittedID(admission.arrive(address: "a", port: 2, now: at(1))) != nil)
    #expect(admission.arrive(address: "a", port: 3, now: at(2)) == .refused("too many connections from your address are still starting"))
    #expect(admittedID(admission.arrive(address: "b", port: 1, now: at(3))) != nil)
  }

  @Test func whenAllUnauthenticatedSlotsAreTakenANewAddressTakesTheOldestPlaceOfTheMostCrowded() {
    var admission = Admission(limits: limits)
    let oldest = admittedID(admission.arrive(address: "flood", port: 1, now: at(0)))
    _ = admission.arrive(address: "flood", port: 2, now: at(1))
    _ = admission.arrive(address: "other", port: 1, now: at(2))
    _ = admission.arrive(address: "other", port: 2, now: at(3))
    // Full (4). Both crowded addresses hold 2; a newcomer with none takes the oldest place.
    guard case .admitted(_, let evicting) = admission.arrive(address: "contact", port: 1, now: at(4)) else {
      Issue.record("the newcomer was refused")
      return
    }
    #expect(evicting == oldest)
    #expect(!admission.isUnauthenticated(oldest ?? -1))
  }

  /// Found by review 13: one silent connection from each of 32 addresses (the total) kept every
  /// newcomer out, contacts too, while the margin to evict was two.
  @Test func oneSilentConnectionFromEachOfManyAddressesGivesWayToANewAddress() throws {
    var admission = Admission(limits: limits)
    var ids: [Int] = []
    for (second, address) in ["a", "b", "c", "d"].enumerated() {
      ids.append(try #require(admittedID(admission.arrive(address: address, port: 1, now: at(second)))))
    }
    guard case .admitted(_, let evicting) = admission.arrive(address: "contact", port: 1, now: at(4)) else {
      Issue.record("the newcomer was refused")
      return
    }
    #expect(evicting == ids[0])
    // An address that already holds as many as the most crowded one takes no one's place.
    #expect(admission.arrive(address: "b", port: 2, now: at(5)) == .refused("too many connections are starting at once"))
  }

  @Test func aContactIsAuthenticatedByItsCertificateAndAStrangerOnlyByItsHello() throws {
    var admission = Admission(limits: limits)
    let contact = try #require(admittedID(admission.arrive(address: "a", port: 1, now: at(0))))
    let stranger = try #require(admittedID(admission.arrive(address: "b", port: 1, now: at(0))))
    #expect(admission.handshakeDone(contact, contact: "alice") == nil)
    #expect(admission.handshakeDone(stranger, contact: nil) == nil)
    #expect(!admission.isUnauthenticated(contact))
    #expect(admission.isUnauthenticated(stranger))
    #expect(admission.helloAccepted(address: "b", port: 1)?.refusal == nil)
    #expect(!admission.isUnauthenticated(stranger))
  }

  @Test func strangersCannotTakeTheSlotsReservedForContacts() throws {
    var admission = Admission(limits: limits)
    // Two strangers at work fill what strangers may use (4 in all, 2 reserved for contacts).
    for port: UInt16 in [1, 2] {
      _ = admission.arrive(address: "s\(port)", port: port, now: at(0))
      let accepted = admission.helloAccepted(address: "s\(port)", port: port)
      let proof = try #require(accepted)
      #expect(proof.refusal == nil)
      admission.engaged(proof.id, true)
    }
    let third = try #require(admittedID(admission.arrive(address: "s3", port: 3, now: at(1))))
    #expect(admission.handshakeDone(third, contact: nil) == "the receiver is serving as many connections as it can")
    // Contacts still get in, up to the total.
    for port: UInt16 in [1, 2] {
      let id = try #require(admittedID(admission.arrive(address: "c\(port)", port: port, now: at(2))))
      #expect(admission.handshakeDone(id, contact: "contact-\(port)") == nil)
    }
    let fifth = try #require(admittedID(admission.arrive(address: "c3", port: 3, now: at(3))))
    #expect(admission.handshakeDone(fifth, contact: "contact-3") == "the receiver is serving as many connections as it can")
  }

  /// Found by review 15: strangers that held their connections without sending (or dripped an
  /// Ask a byte at a time) kept every other stranger out for as long as they liked. When
  /// strangers hold every slot they may, the oldest one not at work makes room; one at work
  /// (its Ask came whole) never does, and an address at its own cap gets no one's place.
  @Test func aStrangerNotAtWorkMakesRoomForAnother() throws {
    var admission = Admission(limits: limits)
    var proven: [Int] = []
    for port: UInt16 in [1, 2] {
      let id = try #require(admittedID(admission.arrive(address: "s\(port)", port: port, now: at(0))))
      #expect(admission.handshakeDone(id, contact: nil) == nil)
      let accepted = admission.helloAccepted(address: "s\(port)", port: port)
      proven.append(try #require(accepted).id)
    }
    admission.engaged(proven[1], true)
    let third = try #require(admittedID(admission.arrive(address: "s3", port: 3, now: at(1))))
    #expect(admission.handshakeDone(third, contact: nil) == nil, "an idle stranger can make room")
    #expect(admission.helloAccepted(address: "s3", port: 3) == Admission.Proof(id: third, evicting: proven[0]))
    admission.engaged(third, true)
    // Both at work now: the next stranger is refused.
    let fourth = try #require(admittedID(admission.arrive(address: "s4", port: 4, now: at(2))))
    #expect(admission.handshakeDone(fourth, contact: nil) == "the receiver is serving as many connections as it can")
    // A LocalSend connection between requests is not at work.
    admission.engaged(third, false)
    let fifth = try #require(admittedID(admission.arrive(address: "s5", port: 5, now: at(3))))
    #expect(admission.proven(fifth) == Admission.Proof(id: fifth, evicting: third))
  }

  /// Found by the benchmark's 50 senders (issue 14): contacts sending from one address (the
  /// users of one lab server, or 50 senders on one machine) were told "busy" after the eighth.
  /// Contacts are capped per device, not per address; strangers per address.
  @Test func contactsAreCappedPerDeviceAndStrangersPerAddress() throws {
    var admission = Admission(
      limits: Admission.Limits(
        maxUnauthenticatedPerAddress: 8, maxUnauthenticated: 8, maxConnectionsPerAddress: 2, maxConnections: 8, contactReserve: 2))
    // Four contacts on one address, one connection each: all in.
    for port: UInt16 in [1, 2, 3, 4] {
      let id = try #require(admittedID(admission.arrive(address: "a", port: port, now: at(0))))
      #expect(admission.handshakeDone(id, contact: "device-\(port)") == nil)
    }
    // A stranger on that address is over its cap.
    let stranger = try #require(admittedID(admission.arrive(address: "a", port: 5, now: at(1))))
    #expect(admission.handshakeDone(stranger, contact: nil) == "4 connections from your address are already being served")
    admission.leave(stranger)
    let elsewhere = try #require(admittedID(admission.arrive(address: "b", port: 6, now: at(2))))
    #expect(admission.handshakeDone(elsewhere, contact: nil) == nil)
    #expect(admission.helloAccepted(address: "b", port: 6)?.refusal == nil)
    // One contact, from anywhere, holds at most 2.
    let second = try #require(admittedID(admission.arrive(address: "c", port: 7, now: at(3))))
    #expect(admission.handshakeDone(second, contact: "device-1") == nil)
    let third = try #require(admittedID(admission.arrive(address: "d", port: 8, now: at(3))))
    #expect(admission.handshakeDone(third, contact: "device-1") == "2 connections of yours are already being served")
    admission.leave(third)
    // The total still holds.
    for port: UInt16 in [9, 10] {
      let id = try #require(admittedID(admission.arrive(address: "a", port: port, now: at(4))))
      #expect(admission.handshakeDone(id, contact: "device-\(port)") == nil)
    }
    let overTotal = try #require(admittedID(admission.arrive(address: "e", port: 11, now: at(5))))
    #expect(admission.handshakeDone(overTotal, contact: "device-11") == "the receiver is serving as many connections as it can")
  }

}

/// A flood is logged once per address per burst.
@Suite struct FloodLogTests {
  @Test func theFirstFailureOfABurstIsLoggedTheRestCountedAndANewBurstLoggedAgain() {
    var log = FloodLog()
    log.every = .seconds(100)
    let start = ContinuousClock.now
    #expect(log.record("a", now: start) == .log(first: true, unlogged: 0))
    for second in 1..<100 { #expect(log.record("a", now: start + .seconds(second)) == .skip) }
    #expect(log.record("b", now: start + .seconds(50)) == .log(first: true, unlogged: 0))
    // Still going after `every`: one reminder with the count.
    #expect(log.record("a", now: start + .seconds(100)) == .log(first: false, unlogged: 99))
    // Quiet for longer than `quiet`: the next failure starts a new burst.
    #expect(log.record("a", now: start + .seconds(140)) == .log(first: true, unlogged: 0))
  }

  /// Review 44: a flood from thousands of addresses was a line per address.
  @Test func newAddressesAreLoggedAtMostSoManyAWindowAndTheRestCounted() {
    var log = FloodLog()
    log.newAddressesPerWindow = 3
    log.window = .seconds(60)
    let start = ContinuousClock.now
    let decisions = (0..<1_000).map { log.record("198.18.\($0 / 250).\($0 % 250)", now: start + .milliseconds($0)) }
    #expect(decisions.filter { $0 != .skip }.count == 3)
    // The next window's first line says how many addresses went unlogged.
    #expect(log.record("198.19.0.1", now: start + .seconds(61)) == .log(first: true, unlogged: 0, unloggedAddresses: 997))
    #expect(log.record("198.19.0.2", now: start + .seconds(62)) == .log(first: true, unlogged: 0, unloggedAddresses: 0))
  }
}
