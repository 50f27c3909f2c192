import Discovery
import Foundation
import Testing
import TextEscaping

/// Tests against a real avahi-daemon, started on loopback by
/// scripts/avahi-up.sh when none is running. Serialized because some of them
/// stop and restart that daemon, which every other test here depends on.
@Suite(.serialized) struct LiveAvahiTests {
  init() throws {
    try AvahiHarness.up()
  }

  /// Starts an advertiser and waits for its registration.
  private func advertise(
    _ name: String, port: UInt16 = 4000, txt: [String: String] = ["v": "1"]
  ) async throws -> (ServiceAdvertiser, EventRecorder<AdvertiserEvent>) {
    let advertiser = try ServiceAdvertiser(name: name, port: port, txt: txt)
    let events = EventRecorder(advertiser.events)
    try advertiser.start()
    let registered = await events.first { $0.registeredName != nil }
    try #require(registered != nil, "advertiser never registered; events: \(events.events)")
    return (advertiser, events)
  }

  private func added(_ name: String, in browse: EventRecorder<BrowseEvent>) async
    -> ResolvedService?
  {
    await browse.first { $0.added?.instance.name == name }?.added
  }

  @Test func publishedServiceIsResolvedWithItsTXTPortAndALoopbackAddress() async throws {
    let name = uniqueName("resolve")
    let id = String(repeating: "0123456789abcdef", count: 4)
    let (advertiser, _) = try await advertise(name, port: 45_678, txt: ["v": "1", "id": id])
    defer { advertiser.stop() }
    #expect(advertiser.currentName == name)

    let browse = EventRecorder(try ServiceBrowser.browse())
    defer { browse.cancel() }
    let service = try #require(await added(name, in: browse), "events: \(browse.events)")
    #expect(service.port == 45_678)
    #expect(service.txt == ["v": "1", "id": id])
    #expect(service.rawTXT == [Array("id=\(id)".utf8), Array("v=1".utf8)])
    #expect(service.instance.type == "_share._tcp")
    #expect(service.instance.domain == "local")
    #expect(service.instance.interfaceName == "lo")
    #expect(service.instance.ipProtocol == .ipv4)
    #expect(service.address.hasPrefix("127."))
    #expect(service.isLocal)
    #expect(service.hostName.hasSuffix(".local"))
  }

  @Test func aServiceIsResolvedDirectlyByItsNameWithoutBrowsing() async throws {
    let name = uniqueName("direct")
    let id = String(repeating: "fedcba9876543210", count: 4)
    let (advertiser, _) = try await advertise(name, port: 45_679, txt: ["v": "1", "id": id])
    defer { advertiser.stop() }
    var found: ResolvedService? = nil
    for try await service in try ServiceResolver.resolve(name: name) {
      found = service
      break
    }
    let service = try #require(found)
    #expect(service.instance.name == name && service.instance.interfaceName == "lo")
    #expect(service.port == 45_679 && service.txt == ["v": "1", "id": id])
    #expect(service.address.hasPrefix("127.") && service.isLocal)
  }

  @Test func aNameNobodyHasResolvesToNothingAndTheStreamEnds() async throws {
    // Avahi answers "timeout" for each IP version after about five seconds.
    var found: [ResolvedService] = []
    for try await service in try ServiceResolver.resolve(name: uniqueName("nobody")) { found.append(service) }
    #expect(found.isEmpty)
    #expect(throws: DiscoveryError.self) { try ServiceResolver.resolve(name: String(repeating: "n", count: 64)) }
  }

  @Test func withdrawnServiceIsReportedRemoved() async throws {
    let name = uniqueName("withdraw")
    let (advertiser, events) = try await advertise(name)
    let browse = EventRecorder(try ServiceBrowser.browse())
    defer { browse.cancel() }
    let service = try #require(await added(name, in: browse))

    advertiser.stop()
    #expect(advertiser.currentName == nil)
    #expect(await events.waitForEnd())
    let removed = await browse.first { $0.removed == service.instance }
    #expect(removed != nil, "events: \(browse.events)")
  }

  @Test func secondAdvertiserWithTheSameNameMovesToAnAlternativeName() async throws {
    // Different ports: Avahi treats two identical services as one, not as a collision.
    let name = uniqueName("twin")
    let (first, _) = try await advertise(name, port: 4000, txt: ["id": "first"])
    defer { first.stop() }

    let (second, secondEvents) = try await advertise(name, port: 4001, txt: ["id": "second"])
    defer { second.stop() }
    #expect(secondEvents.events.contains(.collision(old: name, new: "\(name) #2")))
    #expect(secondEvents.events.contains(.registered(name: "\(name) #2")))
    #expect(second.currentName == "\(name) #2")
    #expect(first.currentName == name)

    let browse = EventRecorder(try ServiceBrowser.browse())
    defer { browse.cancel() }
    #expect(await added(name, in: browse)?.txt["id"] == "first")
    #expect(await added("\(name) #2", in: browse)?.txt["id"] == "second")
  }

  @Test func hostileRecordIsReportedRawAndDoesNotStopBrowsing() async throws {
    let suffix = uniqueName("hostile")
    let hostileName = "evil\u{1B}[31m\u{07}name-\(suffix)"
    // Through sh so printf can put bytes that are not UTF-8 into the TXT.
    let script = """
      exec avahi-publish -s "$(printf 'evil\\033[31m\\007name-%s' "$1")" _share._tcp 9 \
        "$(printf 'bin=\\377\\376\\001x')" flag dup=first DUP=second \
        "big=$(head -c 251 /dev/zero | tr '\\0' 'A')" $(seq -f 'k%g=v' 1 60)
      """
    let publisher = try ChildProcess("/bin/sh", ["-c", script, "sh", suffix])
    defer { publisher.stop() }

    let browse = EventRecorder(try ServiceBrowser.browse())
    defer { browse.cancel() }
    let hostile = try #require(
      await added(hostileName, in: browse),
      "publisher: \(publisher.output); events: \(browse.events)")
    #expect(hostile.rawTXT.first == Array("bin=".utf8) + [0xFF, 0xFE, 0x01, 0x78])
    #expect(hostile.rawTXT.count == 65)
    #expect(hostile.txt.count == 64)
    #expect(hostile.txt["bin"] == "\u{FFFD}\u{FFFD}\u{01}x")
    #expect(hostile.txt["flag"] == "")
    #expect(hostile.txt["dup"] == "first")
    #expect(hostile.txt["big"] == String(repeating: "A", count: 251))
    #expect(hostile.txt["k60"] == "v")
    let shown = Escaping.escaped(hostile.instance.name, maximumLength: .max)
    #expect(!shown.unicodeScalars.contains("\u{1B}") && !shown.unicodeScalars.contains("\u{07}"))

    // The same browse still reports a well-formed service that appears afterwards.
    let name = uniqueName("after-hostile")
    let (advertiser, _) = try await advertise(name)
    defer { advertiser.stop() }
    #expect(await added(name, in: browse) != nil, "events: \(browse.events)")
    #expect(!browse.ending.ended)
  }

  @Test func allForNowComesAfterTheServicesAlreadyPublishedAreResolved() async throws {
    let name = uniqueName("snapshot")
    let (advertiser, _) = try await advertise(name)
    defer { advertiser.stop() }

    let browse = EventRecorder(try ServiceBrowser.browse())
    defer { browse.cancel() }
    #expect(await browse.first { $0.isAllForNow } != nil)
    let events = browse.events
    let addedAt = try #require(
      events.firstIndex { $0.added?.instance.name == name }, "events: \(events)")
    let allForNowAt = try #require(events.firstIndex { $0.isAllForNow })
    #expect(addedAt < allForNowAt)
  }

  @Test func snapshotListsAServiceAlreadyPublished() async throws {
    let name = uniqueName("list")
    let (advertiser, _) = try await advertise(name, port: 4321)
    defer { advertiser.stop() }
    let services = try await ServiceBrowser.snapshot()
    #expect(services.contains { $0.instance.name == name && $0.port == 4321 })
  }

  @Test func browsingFailsAtOnceWithDaemonUnreachableWhenAvahiIsDown() async throws {
    try AvahiHarness.down()
    defer { _ = try? runScript("avahi-up.sh") }
    #expect {
      _ = try ServiceBrowser.browse()
    } throws: { error in
      guard case .daemonUnreachable = error as? DiscoveryError else { return false }
      return "\(error)".contains("avahi-daemon")
    }
  }

  @Test func browsingFailsWithDaemonUnreachableWhenTheSystemBusIsDown() async throws {
    try AvahiHarness.down(includingBus: true)
    defer { _ = try? runScript("avahi-up.sh") }
    #expect {
      _ = try ServiceBrowser.browse()
    } throws: { error in
      if case .daemonUnreachable = error as? DiscoveryError { true } else { false }
    }
  }

  @Test func aBrowseEndsWithDaemonUnreachableWhenAvahiGoesAwayMidway() async throws {
    let browse = EventRecorder(try ServiceBrowser.browse())
    defer { browse.cancel() }
    try #require(await browse.first { $0.isAllForNow } != nil, "events: \(browse.events)")
    try await expectEndWhenAvahiGoes(browse, "browsing")
  }

  @Test func aResolveEndsWithDaemonUnreachableWhenAvahiGoesAwayMidway() async throws {
    // Nobody has the name, so the resolvers are still waiting (about five seconds) when Avahi goes.
    let resolve = EventRecorder(try ServiceResolver.resolve(name: uniqueName("gone")))
    defer { resolve.cancel() }
    try await expectEndWhenAvahiGoes(resolve, "resolving")
  }

  /// Stops avahi-daemon (restarting it afterwards) and expects `lookup` to end with
  /// `.daemonUnreachable`, saying what it was doing.
  private func expectEndWhenAvahiGoes<Event>(_ lookup: EventRecorder<Event>, _ doing: String) async throws {
    try AvahiHarness.down()
    defer { _ = try? runScript("avahi-up.sh") }
    #expect(await lookup.waitForEnd())
    let error = lookup.ending.error
    guard case .daemonUnreachable(let detail) = error as? DiscoveryError else {
      Issue.record("the lookup ended with \(String(describing: error)), not daemonUnreachable")
      return
    }
    #expect(detail.contains("avahi-daemon went away while \(doing)"), "\(detail)")
  }

  @Test func advertiserReregistersByItselfAfterAvahiRestarts() async throws {
    let name = uniqueName("restart")
    let (advertiser, events) = try await advertise(name)
    defer { advertiser.stop() }

    try AvahiHarness.down()
    var restarted = false
    defer { if !restarted { _ = try? runScript("avahi-up.sh") } }
    #expect(await events.first { $0.isDaemonUnavailable } != nil, "events: \(events.events)")
    try AvahiHarness.up()
    restarted = true

    #expect(await events.first { $0 == .daemonReturned } != nil, "events: \(events.events)")
    let registrations = await events.nth(2) { $0.registeredName == name }
    #expect(registrations != nil, "events: \(events.events)")
    #expect(advertiser.currentName == name)

    let browse = EventRecorder(try ServiceBrowser.browse())
    defer { browse.cancel() }
    #expect(await added(name, in: browse) != nil)
  }

  @Test func advertiserReregistersAfterTheSystemBusAndAvahiRestart() async throws {
    let name = uniqueName("bus-restart")
    let (advertiser, events) = try await advertise(name)
    defer { advertiser.stop() }

    try AvahiHarness.down(includingBus: true)
    var restarted = false
    defer { if !restarted { _ = try? runScript("avahi-up.sh") } }
    #expect(await events.first { $0.isDaemonUnavailable } != nil, "events: \(events.events)")
    try AvahiHarness.up()
    restarted = true

    let registrations = await events.nth(2) { $0.registeredName == name }
    #expect(registrations != nil, "events: \(events.events)")

    let browse = EventRecorder(try ServiceBrowser.browse())
    defer { browse.cancel() }
    #expect(await added(name, in: browse) != nil)
  }

  @Test func advertiserStartedWithoutAvahiRegistersOnceItAppears() async throws {
    try AvahiHarness.down()
    var restarted = false
    defer { if !restarted { _ = try? runScript("avahi-up.sh") } }

    let name = uniqueName("early")
    let advertiser = try ServiceAdvertiser(name: name, port: 4000, txt: ["v": "1"])
    defer { advertiser.stop() }
    let events = EventRecorder(advertiser.events)
    try advertiser.start()
    #expect(await events.first { $0.isDaemonUnavailable } != nil)
    #expect(advertiser.currentName == nil)

    try AvahiHarness.up()
    restarted = true
    #expect(await events.first { $0.registeredName == name } != nil, "events: \(events.events)")
    #expect(events.events.contains(.daemonReturned))
  }
}
