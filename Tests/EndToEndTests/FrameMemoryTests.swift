import Foundation
import Glibc
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
    // 16 MiB and sending one byte of it.
    let strangers = try (0..<16).map { _ in try ThrowawayIdentity() }
    let peers = try strangers.enumerated().map { index, stranger in
      let peer = try RawPeer(port: daemon.port, identity: stranger.identity, from: index < 8 ? "127.0.0.2" : "127.0.0.3")
      try peer.hello()
      try peer.sendRaw(FrameHeader(kind: .control, length: 16 << 20).encoded + Array("{".utf8))
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

  private func residentKiB(_ pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { throw HarnessError("no VmRSS in /proc/\(pid)/status") }
    return kib
  }
}
