import Foundation
import Glibc
import Synchronization
import TLS
import Testing
import Wire

/// Connections that never authenticate cannot block receiving (issue 11.3).
@Suite struct ConnectionFloodTests {
  /// A flood's shape: `connections` silent ones spread over `addresses` source addresses.
  struct Flood: Sendable, CustomTestStringConvertible {
    let mode: String
    let connections: Int
    let addresses: Int
    var testDescription: String { "\(connections) from \(addresses) addresses, --mode \(mode)" }
  }

  /// 32 from 32 addresses: one from each fills every unauthenticated slot (32) evenly, which
  /// kept everyone out while a newcomer needed an address holding two more than its own (review 13).
  @Test(arguments: [
    Flood(mode: "everyone", connections: 64, addresses: 8), Flood(mode: "contacts", connections: 64, addresses: 8),
    Flood(mode: "everyone", connections: 32, addresses: 32),
  ])
  func silentTLSConnectionsDoNotStopAContactsSendAndAreLoggedOncePerAddress(shape: Flood) throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a], arguments: ["--mode", shape.mode])
    defer { _ = daemon.stop() }
    let flood = try SilentTLSFlood(port: daemon.port, connections: shape.connections, addresses: shape.addresses)
    defer { flood.stop() }
    // Let the flood take hold: every slot it can get, for longer than a handshake takes.
    let settled = ContinuousClock.now + .seconds(10)
    while flood.handshakes.load(ordering: .relaxed) < shape.connections && ContinuousClock.now < settled { usleep(50_000) }
    usleep(500_000)

    for round in 0..<3 {
      let sent = try a.share("send", try a.file("during-\(round).txt", "sent during the flood\n").path, "--to", daemon.address)
      #expect(sent.exited(with: 0), "a contact's send failed during the flood:\n\(sent)\n\(daemon.log)")
    }
    #expect(b.inboxNames() == ["during-0.txt", "during-1.txt", "during-2.txt"])
    // Past the Hello deadline the flood has lost connections and made new ones: still one line
    // per address.
    usleep(6_000_000)
    flood.stop()
    usleep(500_000)
    let lines = daemon.log.split(separator: "\n")
    for address in flood.addresses {
      let mentions = lines.filter { $0.contains("from \(address) ") || $0.contains("from \(address):") }
      #expect(mentions.count == 1, "\(address) is logged \(mentions.count) times:\n\(mentions.joined(separator: "\n"))")
    }
    #expect(daemon.isRunning)
    #expect(flood.handshakes.load(ordering: .relaxed) >= shape.connections, "the flood did not get going")
  }

  /// Review 15: 48 strangers (8 from each of 6 addresses, every slot strangers may hold) that
  /// said a valid Hello and then dripped an Ask kept every other stranger out for as long as they
  /// liked, in `--mode everyone`. The oldest of them that has not sent a whole Ask makes room.
  @Test func strangersDrippingAnAskMakeRoomForAStrangerThatSends() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let identities = try (0..<48).map { _ in try ThrowawayIdentity() }
    var dripping: [RawPeer] = []
    for (index, stranger) in identities.enumerated() {
      let peer = try RawPeer(port: daemon.port, identity: stranger.identity, from: "127.0.9.\(index / 8 + 1)")
      try peer.hello(name: "drip-\(index)")
      try peer.sendRaw(FrameHeader(kind: .control, length: 4000).encoded + Array("{".utf8))
      dripping.append(peer)
    }
    let carol = try ShareHome(name: "carol")
    let sending = try carol.startShare("send", try carol.file("hello.txt", "from a stranger\n").path, "--to", daemon.address)
    defer { sending.signal(SIGKILL) }
    #expect(sending.waitForStderr(containing: "waiting for the receiver's owner"), "a stranger was kept out:\n\(daemon.log)")
    #expect(try b.share("accept", "1").exited(with: 0))
    let sent = sending.wait()
    #expect(sent.exited(with: 0), "\(sent)\n\(daemon.log)")
    #expect(b.inboxNames() == ["hello.txt"])
    #expect(daemon.log.contains("another stranger needed the room"), "\(daemon.log)")
    withExtendedLifetime(dripping) {}
  }

  /// Review 15, the LocalSend port: 48 connections from 6 addresses, each dripping a
  /// `/register` body, held every stranger slot in any mode. A connection whose request is not
  /// whole is not at work, and makes room for a client that asks.
  @Test func localSendClientsDrippingABodyMakeRoomForOneThatAsks() throws {
    let b = try ShareHome(name: "bob")
    let port = try freeLoopbackPort()
    let daemon = try b.startDaemon(arguments: ["--mode", "contacts", "--localsend", "--localsend-port", String(port)])
    defer { _ = daemon.stop() }
    #expect(daemon.waitForLog("LocalSend: receiving on port \(port)"), "\(daemon.log)")
    let identity = try ThrowawayIdentity()
    let context = try TLSContext(identity: identity.identity, role: .client)
    let head = "POST /api/localsend/v2/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"
    var dripping: [TLSConnection] = []
    for index in 0..<48 {
      let tls = try loopbackTLS(to: port, context: context, from: "127.0.9.\(index / 8 + 1)", timeout: .seconds(10))
      try tls.write(Array(head.utf8))
      dripping.append(tls)
    }
    let asking = try loopbackTLS(to: port, context: context, from: "127.0.9.99", timeout: .seconds(10))
    try asking.setIdleTimeout(.seconds(10))
    try asking.write(Array("GET /api/localsend/v2/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
    var answer = [UInt8](repeating: 0, count: 4096)
    let count = try answer.withUnsafeMutableBytes { try asking.read(into: $0) }
    #expect(String(decoding: answer.prefix(count), as: UTF8.self).hasPrefix("HTTP/1.1 200"), "the client was kept out:\n\(daemon.log)")
    dripping.forEach { $0.close() }
    asking.close()
  }

  @Test func aSenderOverThePerAddressLimitIsToldBusyAndTheDaemonSaysSo() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    // Four strangers on this address (as many asks as one address may have waiting) each ask
    // twice, the same ask: eight connections wait for the owner.
    let strangers = try (0..<4).map { try ShareHome(name: "stranger-\($0)") }
    let files = try strangers.map { try $0.file("ask.txt", "may I?\n").path }
    let asking = try zip(strangers + strangers, files + files).map { try $0.startShare("send", $1, "--to", daemon.address) }
    defer { asking.forEach { $0.signal(SIGKILL) } }
    let deadline = ContinuousClock.now + .seconds(30)
    var waiting = 0
    repeat {
      usleep(100_000)
      waiting = try parseJSONLines(try b.share("requests", "--json").stdoutText).reduce(0) { $0 + ($1["connections"] as? Int ?? 0) }
    } while waiting < 8 && ContinuousClock.now < deadline
    #expect(waiting == 8)

    // A ninth stranger from the same address is over the limit: the sender is told "busy",
    // not that the connection closed; it says so and tries again for --busy-wait.
    let ninth = try ShareHome(name: "stranger-8")
    let over = try ninth.share("send", try ninth.file("over.txt", "one too many\n").path, "--to", daemon.address, "--busy-wait", "2")
    #expect(!over.exited(with: 0), "\(over)")
    #expect(over.stderrText.contains("\(daemon.address) is busy (") && over.stderrText.contains("); trying again in 1 s"), "\(over)")
    // Said as such, naming the address that turned it away (after the tries), not as a
    // refusal by "the peer".
    #expect(over.stderrText.contains("Error: the receiver at \(daemon.address) is busy ("), "\(over)")
    #expect(over.stderrText.contains("try again in a moment") && !over.stderrText.contains("the peer refused"), "\(over)")
    #expect(!over.stderrText.contains("closed"), "\(over)")
    #expect(daemon.waitForLog("busy"), "\(daemon.log)")
    // In --json, a `busy` event for each pause: what the receiver said, and the seconds until
    // the next try.
    let overJSON = try ninth.share(
      "send", try ninth.file("over.txt", "one too many\n").path, "--to", daemon.address, "--busy-wait", "2", "--json")
    let busy = try parseJSONLines(overJSON.stdoutText).filter { $0["event"] as? String == "busy" }
    #expect(!busy.isEmpty, "\(overJSON)")
    #expect(busy.allSatisfy { ($0["reason"] as? String)?.contains("connections") == true && $0["retry_in"] as? Int == 1 }, "\(busy)")
    #expect(b.inboxNames().isEmpty)
    // A contact on that address is not capped per address (it proved who it is; the users of
    // one lab server share an address): its send goes through.
    let contact = try a.share("send", try a.file("contact.txt", "from a contact\n").path, "--to", daemon.address)
    #expect(contact.exited(with: 0), "\(contact)")
    #expect(b.inboxNames() == ["contact.txt"])
  }
}
