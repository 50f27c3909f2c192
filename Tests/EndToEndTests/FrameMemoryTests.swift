import Foundation
import Glibc
import TLS
import Testing
import Wire

/// What a frame header declares costs the receiver nothing until the bytes come (review 15: each
/// header of 16 MiB was reserved and zeroed at once, so 32 connections of six bytes each held
/// half a gigabyte of the daemon's memory, before anything was proven).
@Suite struct FrameMemoryTests {
  @Test func aHelloOverItsCapIsRefusedAtOnceWithoutWaitingForItsBytes() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let mallory = try ThrowawayIdentity()
    let peer = try RawPeer(port: daemon.port, identity: mallory.identity)
    try peer.sendRaw(FrameHeader(kind: .control, length: 1 << 20).encoded + Array("{".utf8))
    guard case .failure(let failure) = try peer.receive() else { throw HarnessError("expected a Failure") }
    #expect(failure.code == "protocol" && failure.message.unescaped.contains("1048576"), "\(failure)")
  }

  @Test func declaredAsksOfSixteenMebibytesCostOnlyWhatArrived() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let before = try residentKiB(daemon.process.pid)
    // Sixteen strangers (eight per address, the limit), each proven, each declaring an Ask of
    // 4 MiB, a stranger's most, and sending one byte of it (two take the strangers' budget for
    // large asks; the others are told busy).
    let strangers = try (0..<16).map { _ in try ThrowawayIdentity() }
    let peers = try strangers.enumerated().map { index, stranger in
      let peer = try RawPeer(port: daemon.port, identity: stranger.identity, from: index < 8 ? "127.0.0.2" : "127.0.0.3")
      try peer.hello()
      try peer.sendRaw(FrameHeader(kind: .control, length: 4 << 20).encoded + Array("{".utf8))
      return peer
    }
    usleep(1_000_000)
    let after = try residentKiB(daemon.process.pid)
    // 256 MiB when each header was reserved at once; 16 × 64 KiB now. The bound leaves room for
    // the sessions' own buffers and the allocator.
    #expect(after - before < 64 << 10, "the daemon grew from \(before) KiB to \(after) KiB")
    #expect(daemon.isRunning)
    withExtendedLifetime(peers) {}
  }

  /// Review 17: each stranger's 16 MiB Ask, parsed, held ~115 MB while it waited for the
  /// owner; eight connections from one address held 920 MB. A stranger's Ask is at most 4 MiB,
  /// and strangers' large Asks share 8 MiB at once: the next is told busy.
  @Test func strangersLargeAsksAreCappedAndShareOneBudget() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let oversized = try RawPeer(port: daemon.port, identity: try ThrowawayIdentity().identity)
    _ = try oversized.hello()
    try oversized.sendRaw(FrameHeader(kind: .control, length: (4 << 20) + 1).encoded)
    // Answered at once, before its bytes (review 44: with what to do).
    guard case .failure(let tooLarge) = try oversized.receive() else { throw HarnessError("expected a Failure") }
    #expect(tooLarge.code == "too-large" && tooLarge.message.unescaped.contains("at most 4 MiB"), "\(tooLarge)")

    // 3 MiB Asks, each from another stranger: two fit the budget and wait. Few items of long
    // names, so that the debug daemon decides them quickly on a busy machine (a slow decision
    // would hold up the next stranger's handshake past its deadline).
    let name = String(repeating: "n", count: 3_900)
    let items = (0..<780).map { ItemOffer(id: $0, kind: .file, name: PeerText("\(name)-\($0).txt"), size: 1) }
    let frame = try MessageCodec.frame(.ask(Ask(items: items)))
    #expect(frame.count > 2 << 20 && frame.count < 4 << 20)
    var waiting: [RawPeer] = []
    for index in 0..<3 {
      let peer = try RawPeer(port: daemon.port, identity: try ThrowawayIdentity().identity, from: "127.0.0.\(index + 2)")
      _ = try peer.hello(name: "stranger-\(index)")
      try peer.sendRaw(frame)
      let reply = try peer.receive()
      if index < 2 {
        guard case .wait = reply else { throw HarnessError("expected a Wait, got \(reply)") }
        waiting.append(peer)
      } else {
        guard case .failure(let busy) = reply else { throw HarnessError("expected busy, got \(reply)") }
        #expect(busy.code == "busy" && busy.message.unescaped.contains("large asks"), "\(busy)")
      }
    }
    // A small ask still gets through to the owner.
    let small = try RawPeer(port: daemon.port, identity: try ThrowawayIdentity().identity, from: "127.0.0.9")
    _ = try small.hello(name: "small")
    try small.send(.ask(Ask(items: [ItemOffer(id: 0, kind: .file, name: "a.txt", size: 1)])))
    guard case .wait = try small.receive() else { throw HarnessError("the small ask did not wait for the owner") }
    withExtendedLifetime(waiting) {}
  }

  /// Review 19: the budget was strangers' only; one contact's eight 16 MiB Asks held 875 MB.
  /// Contacts' large Asks share a budget of their own (48 MiB): the next is told busy while the
  /// others are received.
  @Test func contactsLargeAsksShareABudgetToo() throws {
    let b = try ShareHome(name: "bob")
    let contact = try ThrowawayIdentity(name: "carol")
    #expect(try b.share("trust", "add", contact.id, "--name", "carol").exited(with: 0))
    let daemon = try b.startDaemon()
    defer { _ = daemon.stop() }
    // 13 MiB Asks of few, long names (quick for the debug daemon to decide): three fit.
    let name = String(repeating: "c", count: 3_900)
    let items = (0..<3_420).map { ItemOffer(id: $0, kind: .file, name: PeerText("\(name)-\($0).txt"), size: 1) }
    let frame = try MessageCodec.frame(.ask(Ask(items: items)))
    #expect(frame.count > 12 << 20 && frame.count < 16 << 20)
    var receiving: [RawPeer] = []
    for index in 0..<4 {
      let peer = try RawPeer(port: daemon.port, identity: contact.identity)
      // The debug daemon takes about ten seconds to decide such an Ask (3,420 names of 3,900
      // characters, each shortened and composed) when the machine is idle; under CI's parallel
      // load it passed RawPeer's 20 s (a clean-clone run, 2026-12-05). What is tested is the budget.
      try peer.tls.setIdleTimeout(.seconds(180))
      _ = try peer.hello(name: "carol")
      try peer.sendRaw(frame)
      let reply = try peer.receive()
      if index < 3 {
        guard case .answer = reply else { throw HarnessError("expected an Answer, got \(reply)") }
        receiving.append(peer)
      } else {
        guard case .failure(let busy) = reply else { throw HarnessError("expected busy, got \(reply)") }
        #expect(busy.code == "busy" && busy.message.unescaped.contains("large asks"), "\(busy)")
      }
    }
    // A contact's small ask still goes through.
    let small = try RawPeer(port: daemon.port, identity: contact.identity)
    _ = try small.hello(name: "carol")
    try small.send(.ask(Ask(items: [ItemOffer(id: 0, kind: .file, name: "a.txt", size: 1)])))
    guard case .answer = try small.receive() else { throw HarnessError("the small ask was not answered") }
    withExtendedLifetime(receiving) {}
  }

  private func residentKiB(_ pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { throw HarnessError("no VmRSS in /proc/\(pid)/status") }
    return kib
  }
}
