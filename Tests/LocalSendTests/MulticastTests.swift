import Foundation
import LocalSend
import Testing

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
}
