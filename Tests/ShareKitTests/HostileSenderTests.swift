import Foundation
import Glibc
import InboxStore
import System
import TLS
import Testing
import Wire

@testable import ShareKit

/// A sender that breaks the rules gets a clear answer, nothing partial reaches the Inbox, and the
/// receiver keeps serving.
@Suite struct HostileSenderTests {
  /// After each hostile exchange: a well-behaved send still works.
  func stillServes(_ receiver: RunningReceiver) throws {
    let honest = try TestHome()
    let items = try OutgoingItem.files([honest.file("after.txt", Array("ok".utf8)).path])
    let report = try Sender(device: honest.device).send(items, to: receiver.endpoint)
    #expect(report.allStored)
  }

  @Test func namesThatEscapeOrAreEmptyAreRejectedAtAskTime() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    let hostile = ["../x", "/etc/x", "a/../../x", "", ".", "..", "x\0y"]
    var offers = hostile.enumerated().map { ItemOffer(id: $0.offset, kind: .file, name: PeerText($0.element), size: 1) }
    offers.append(ItemOffer(id: 99, kind: .file, name: "good.txt", size: 1))
    let answer = try client.ask(offers)
    for item in answer.items where item.id != 99 {
      #expect(!item.accepted)
      #expect(item.reason?.unescaped.contains("unsafe name") == true)
    }
    #expect(answer.items.first { $0.id == 99 }?.accepted == true)
    try client.sendItem(id: 99, bytes: [7])
    let receipt = try client.receipt()
    #expect(receipt.items.filter { $0.status == .rejected }.count == hostile.count)
    #expect(b.inboxNames() == ["good.txt"])
    #expect(!FileManager.default.fileExists(atPath: b.root.appendingPathComponent("x").path))
    #expect(!FileManager.default.fileExists(atPath: b.device.paths.documents.appendingPathComponent("x").path))
    try stillServes(receiver)
  }

  @Test func controlCharactersInANameAreStoredHarmlessly() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    _ = try client.ask([ItemOffer(id: 0, kind: .file, name: "\u{1b}]0;pwned\u{07}\u{1b}[2J.txt", size: 2)])
    try client.sendItem(id: 0, bytes: [1, 2])
    let receipt = try client.receipt()
    let stored = try #require(receipt.items.first?.storedAs)
    #expect(!stored.unescaped.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f })
    #expect(b.inboxNames() == [stored.unescaped])
  }

  @Test func anOverlongNameIsShortenedNotRefused() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    _ = try client.ask([ItemOffer(id: 0, kind: .file, name: PeerText(String(repeating: "n", count: 1000) + ".txt"), size: 1)])
    try client.sendItem(id: 0, bytes: [1])
    let stored = try #require(try client.receipt().items.first?.storedAs)
    #expect(stored.unescaped.utf8.count <= 255 && stored.unescaped.hasSuffix(".txt"))
  }

  @Test func fewerBytesThanDeclaredFailTheItemAndKeepNothing() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    _ = try client.ask([
      ItemOffer(id: 0, kind: .file, name: "short.bin", size: 100), ItemOffer(id: 1, kind: .file, name: "fine.bin", size: 3),
    ])
    try client.sendItem(id: 0, bytes: randomBytes(60))
    try client.sendItem(id: 1, bytes: [1, 2, 3])
    let receipt = try client.receipt()
    #expect(receipt.items[0].status == .failed)
    #expect(receipt.items[0].reason?.unescaped.contains("60 of the 100") == true)
    #expect(receipt.items[1].status == .stored)
    #expect(b.inboxNames() == ["fine.bin"])
    #expect(b.stagingNames().isEmpty)
    try stillServes(receiver)
  }

  @Test func moreBytesThanDeclaredEndTheConnectionWithAReason() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    _ = try client.ask([
      ItemOffer(id: 0, kind: .file, name: "first.bin", size: 2), ItemOffer(id: 1, kind: .file, name: "liar.bin", size: 10),
    ])
    try client.sendItem(id: 0, bytes: [1, 2])
    try client.sendItem(id: 1, bytes: randomBytes(5000))
    guard case .failure(let failure) = try client.receive() else {
      Issue.record("expected a Failure")
      return
    }
    #expect(failure.code == "protocol")
    #expect(failure.message.unescaped.contains("more bytes than"))
    // The item completed before the lie is kept: nothing is lost.
    #expect(
      receiver.waitFor {
        if case .stored = $0 { return true }
        return false
      })
    #expect(b.inboxNames() == ["first.bin"])
    #expect(b.stagingNames().isEmpty)
    try stillServes(receiver)
  }

  @Test func aWrongDigestFailsTheItemAndKeepsNothing() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    _ = try client.ask([ItemOffer(id: 0, kind: .file, name: "tampered.bin", size: 4)])
    try client.sendItem(id: 0, bytes: [1, 2, 3, 4], digestOf: [9, 9, 9, 9])
    let receipt = try client.receipt()
    #expect(receipt.items[0].status == .failed)
    #expect(receipt.items[0].reason?.unescaped.contains("SHA-256") == true)
    #expect(b.inboxNames().isEmpty)
    #expect(b.stagingNames().isEmpty)
  }

  @Test func anAbandonedItemIsReportedAndKeepsNothing() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    _ = try client.ask([ItemOffer(id: 0, kind: .file, name: "gone.bin", size: 4)])
    try client.sendItem(id: 0, bytes: [1, 2], abandon: true)
    let receipt = try client.receipt()
    #expect(receipt.items[0].status == .failed)
    #expect(b.inboxNames().isEmpty)
  }

  @Test func aConnectionDroppedMidItemLeavesNothingPartialButKeepsFinishedItems() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    _ = try client.ask([
      ItemOffer(id: 0, kind: .file, name: "done.txt", size: 3), ItemOffer(id: 1, kind: .file, name: "cut.bin", size: 1 << 20),
    ])
    try client.sendItem(id: 0, bytes: [1, 2, 3])
    try client.connection.sendBegin(BeginFrame(item: 1))
    var framed = [UInt8](repeating: 0, count: FrameHeader.size) + randomBytes(300_000)
    try framed.withUnsafeMutableBytes { try client.connection.sendData(framedIn: $0) }
    try client.connection.flush()
    client.connection.abort()
    #expect(
      receiver.waitFor {
        if case .connectionFailed = $0 { return true }
        return false
      })
    #expect(b.inboxNames() == ["done.txt"])
    #expect(b.stagingNames().isEmpty)
    try stillServes(receiver)
  }

  @Test func aVersionMismatchIsAClearError() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    guard case .failure(let failure) = try client.hello(version: protocolVersion + 1) else {
      Issue.record("expected a Failure")
      return
    }
    #expect(failure.code == "version")
    #expect(failure.message.unescaped.contains("protocol \(protocolVersion + 1)"))
    try stillServes(receiver)
  }

  @Test func aHelloClaimingAnotherDeviceIsRefused() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    guard case .failure(let failure) = try client.hello(id: b.device.fingerprint.hex) else {
      Issue.record("expected a Failure")
      return
    }
    #expect(failure.code == "protocol")
  }

  @Test func malformedAndOversizedControlMessagesAreRefused() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    for payload in [Array("not json".utf8), Array(#"{"type":"ask","items":"nope"}"#.utf8)] {
      let client = try RawClient(to: receiver.port, home: a)
      try client.hello()
      try client.connection.tls.write(FrameHeader(kind: .control, length: payload.count).encoded + payload)
      guard case .failure(let failure) = try client.receive() else {
        Issue.record("expected a Failure")
        continue
      }
      #expect(failure.code == "protocol")
    }
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    try client.connection.tls.write(FrameHeader(kind: .control, length: 1 << 30).encoded)
    guard case .failure(let failure) = try client.receive() else {
      Issue.record("expected a Failure")
      return
    }
    #expect(failure.message.unescaped.contains("over the limit"))
    try stillServes(receiver)
  }

  @Test func aPlainTCPClientIsDroppedAndTheReceiverKeepsServing() throws {
    let b = try TestHome()
    let receiver = try RunningReceiver(home: b)
    let socket = try Socket.connect(host: "127.0.0.1", port: receiver.port, timeout: .seconds(5))
    var request = Array("GET / HTTP/1.0\r\n\r\n".utf8)
    _ = request.withUnsafeMutableBytes { write(socket.fileDescriptor, $0.baseAddress, $0.count) }
    #expect(
      receiver.waitFor {
        if case .connectionFailed = $0 { return true }
        return false
      })
    socket.close()
    try stillServes(receiver)
  }

  @Test func aSilentClientTimesOutAndTheReceiverKeepsServing() throws {
    let b = try TestHome()
    let configuration = ReceiverConfiguration(host: "127.0.0.1", helloTimeout: .milliseconds(300))
    let receiver = try RunningReceiver(home: b, configuration: configuration)
    let socket = try Socket.connect(host: "127.0.0.1", port: receiver.port, timeout: .seconds(5))
    #expect(
      receiver.waitFor {
        if case .connectionFailed = $0 { return true }
        return false
      })
    var byte: UInt8 = 0
    #expect(read(socket.fileDescriptor, &byte, 1) <= 0)  // the receiver hung up
    socket.close()
    try stillServes(receiver)
  }

  @Test func aClientThatGoesQuietAfterHelloIsDropped() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let configuration = ReceiverConfiguration(host: "127.0.0.1", idleTimeout: .milliseconds(300))
    let receiver = try RunningReceiver(home: b, configuration: configuration)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    #expect(
      receiver.waitFor {
        if case .connectionFailed = $0 { return true }
        return false
      })
    try stillServes(receiver)
  }

  @Test func tooManyConnectionsFromOneAddressAreRefused() throws {
    let b = try TestHome()
    let configuration = ReceiverConfiguration(host: "127.0.0.1", maxUnauthenticatedPerAddress: 2)
    let receiver = try RunningReceiver(home: b, configuration: configuration)
    let held = try (0..<2).map { _ in try Socket.connect(host: "127.0.0.1", port: receiver.port, timeout: .seconds(5)) }
    #expect(receiver.waitFor { _ in receiver.receiver.activeConnections == 2 })
    let extra = try Socket.connect(host: "127.0.0.1", port: receiver.port, timeout: .seconds(5))
    var byte: UInt8 = 0
    #expect(read(extra.fileDescriptor, &byte, 1) <= 0)  // closed at once
    held.forEach { $0.close() }
    extra.close()
  }
}
