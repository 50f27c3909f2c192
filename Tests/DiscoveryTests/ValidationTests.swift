import Discovery
import Testing

@Suite struct AdvertiserValidationTests {
  @Test func validServiceIsAccepted() throws {
    let advertiser = try ServiceAdvertiser(name: "desk", port: 4000, txt: ["v": "1"])
    #expect(advertiser.currentName == nil)
    #expect(advertiser.type == "_share._tcp")
  }

  @Test(arguments: [
    "", String(repeating: "x", count: 64), "a\u{1B}[31m", "line\nbreak", "c1\u{85}",
  ])
  func invalidNameIsRejected(name: String) {
    #expect(throws: DiscoveryError.self) { try ServiceAdvertiser(name: name, port: 4000) }
  }

  @Test func sixtyThreeByteNameIsAccepted() throws {
    _ = try ServiceAdvertiser(name: String(repeating: "é", count: 31) + "x", port: 4000)
  }

  @Test(arguments: [
    "share._tcp", "_share._sctp", "_share", "_._tcp", "_sixteen-chars-xx._tcp", "_a b._tcp",
    "_share._tcp.local",
  ])
  func invalidTypeIsRejected(type: String) {
    #expect(throws: DiscoveryError.invalidServiceType(type)) {
      try ServiceAdvertiser(name: "desk", port: 4000, type: type)
    }
    #expect(throws: DiscoveryError.invalidServiceType(type)) {
      try ServiceBrowser.browse(type: type)
    }
  }

  @Test func invalidTXTKeyIsRejectedAtInit() {
    #expect(throws: DiscoveryError.self) {
      try ServiceAdvertiser(name: "desk", port: 4000, txt: ["fingerprint": "x"])
    }
  }

  @Test func stopBeforeStartFinishesEventsAndIsIdempotent() async throws {
    let advertiser = try ServiceAdvertiser(name: "desk", port: 4000)
    advertiser.stop()
    advertiser.stop()
    var count = 0
    for await _ in advertiser.events { count += 1 }
    #expect(count == 0)
    try advertiser.start()  // after stop: does nothing
    #expect(advertiser.currentName == nil)
  }

  @Test func daemonUnreachableMessageSaysHowToStartAvahiAndHowToSendWithoutIt() {
    let text = DiscoveryError.daemonUnreachable(detail: "avahi_client_new: Daemon not running")
      .description
    #expect(text.contains("avahi-daemon"))
    #expect(text.contains("systemctl start avahi-daemon"))
    #expect(text.contains("--to HOST:PORT"))
  }

  @Test func errorDescriptionsEscapeNamesFromTheNetwork() {
    let instance = ServiceInstance(
      name: "x\u{1B}]0;pwned\u{07}", type: "_share._tcp", domain: "local", interfaceIndex: 1,
      interfaceName: "lo", ipProtocol: .ipv4)
    let text = DiscoveryError.resolveFailed(instance, code: -15, message: "Timeout reached")
      .description
    #expect(!text.unicodeScalars.contains("\u{1B}"))
    #expect(!text.unicodeScalars.contains("\u{07}"))
  }
}
