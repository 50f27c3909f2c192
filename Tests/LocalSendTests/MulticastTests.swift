import Foundation
import Testing

@testable import LocalSend

/// Multicast discovery between two devices on loopback (the channel never leaves 127.0.0.1).
@Suite struct MulticastTests {
  func device(_ alias: String, fingerprint: String) -> LocalSendDevice {
    LocalSendDevice(alias: alias, deviceModel: "Linux", deviceType: .desktop, fingerprint: fingerprint, port: 53317)
  }

  @Test func anAnnouncementIsHeardAndAnsweredByMulticastWhenNoClientCanRegister() throws {
    let first = try MulticastChannel(port: 0, interfaceAddress: "127.0.0.1")
    let second = try MulticastChannel(port: first.port, interfaceAddress: "127.0.0.1")
    let heardByFirst = HeardLog()
    let heardBySecond = HeardLog()
    let a = MulticastDiscovery(channel: first, device: device("A", fingerprint: "AAAA"), client: nil) { heardByFirst.add($0) }
    let b = MulticastDiscovery(channel: second, device: device("B", fingerprint: "BBBB"), client: nil) { heardBySecond.add($0) }
    a.start()
    b.start()
    defer {
      a.stop()
      b.stop()
    }
    try a.announce()
    let announcement = try heardBySecond.wait { $0.device.alias == "A" }
    #expect(announcement.announce && announcement.address == "127.0.0.1")
    let answer = try heardByFirst.wait { $0.device.alias == "B" }
    #expect(!answer.announce, "an answer carries announce: false")
    #expect(!heardByFirst.all.contains { $0.device.alias == "A" }, "a device does not hear itself")
  }

  @Test func datagramsThatAreNotLocalSendAreDropped() {
    #expect(MulticastDiscovery.parse(Array("hello".utf8)) == nil)
    #expect(MulticastDiscovery.parse(Array(#"{"alias":"x","version":"2.0","fingerprint":"f","port":0,"protocol":"https"}"#.utf8)) == nil)
    #expect(
      MulticastDiscovery.parse(Array(#"{"alias":"x\u0007","version":"2.0","fingerprint":"f","port":1,"protocol":"https"}"#.utf8)) == nil)
    #expect(MulticastDiscovery.parse(Array(#"{"alias":"x","version":"2.0","fingerprint":"f","port":1,"protocol":"https"}"#.utf8)) != nil)
  }

  @Test func closingWakesABlockedReceive() throws {
    let channel = try MulticastChannel(port: 0, interfaceAddress: "127.0.0.1")
    let waiting = Background { () throws -> Bool in try channel.receive() == nil }
    Thread.sleep(forTimeInterval: 0.2)
    channel.close()
    #expect(try waiting.wait(seconds: 10))
  }

  /// Review 34: every announcement was answered, so a flood of them had this device multicast
  /// as many answers. The answer is the same for all who hear it: one per while serves them.
  @Test func aFloodOfAnnouncementsIsAnsweredOnce() throws {
    let first = try MulticastChannel(port: 0, interfaceAddress: "127.0.0.1")
    let second = try MulticastChannel(port: first.port, interfaceAddress: "127.0.0.1")
    let heardByFirst = HeardLog()
    let heardBySecond = HeardLog()
    let a = MulticastDiscovery(channel: first, device: device("A", fingerprint: "AAAA"), client: nil) { heardByFirst.add($0) }
    let b = MulticastDiscovery(
      channel: second, device: device("B", fingerprint: "BBBB"), client: nil, answerEvery: .seconds(600)
    ) { heardBySecond.add($0) }
    a.start()
    b.start()
    defer {
      a.stop()
      b.stop()
    }
    for _ in 0..<50 { try a.announce() }
    let deadline = Date().addingTimeInterval(20)
    while heardBySecond.all.count < 50, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    #expect(heardBySecond.all.count == 50)
    // B's own announcement comes after its answers: once A hears it, A has heard them all.
    try b.announce()
    _ = try heardByFirst.wait { $0.device.alias == "B" && $0.announce }
    #expect(heardByFirst.all.filter { $0.device.alias == "B" && !$0.announce }.count == 1)
  }

  @Test func anAnnouncerIsRegisteredWithOncePerWhileAndTheAddressesKeptAreBounded() {
    var throttle = AnswerThrottle(multicastEvery: .seconds(1), registerEvery: .seconds(5))
    let start = ContinuousClock.now
    let registers = [
      throttle.mayRegister("198.18.0.2", now: start), throttle.mayRegister("198.18.0.2", now: start + .seconds(4)),
      throttle.mayRegister("198.18.0.3", now: start + .seconds(4)), throttle.mayRegister("198.18.0.2", now: start + .seconds(5)),
    ]
    #expect(registers == [true, false, true, true])
    let multicasts = [
      throttle.mayMulticast(now: start), throttle.mayMulticast(now: start + .milliseconds(999)),
      throttle.mayMulticast(now: start + .seconds(1)),
    ]
    #expect(multicasts == [true, false, true])
    // A flood from many addresses keeps at most maxAddresses, forgetting the oldest.
    for index in 0..<1000 { _ = throttle.mayRegister("198.19.\(index / 250).\(index % 250)", now: start + .seconds(6)) }
    let again = throttle.mayRegister("198.18.0.2", now: start + .seconds(6))
    #expect(again)
  }
}
