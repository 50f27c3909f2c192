import Foundation
import ShareKit
import Testing
import Wire

/// Review 39: the six digits were a function of the two device IDs alone, which are public
/// (every daemon advertises its own), so a device in the middle made keys until the code it
/// showed one side was the code it showed the other (0.1 s). Each side now adds a nonce, the
/// receiver committed to its own before it sees the sender's, and the sender checks it keeps
/// to it.
@Suite struct PairingExchangeTests {
  @Test func aReceiverThatRevealsAnotherNonceThanItCommittedToIsRefusedAndNobodyIsTrusted() throws {
    let receiver = try FakeReceiver { session, fake in
      try session.send(fake.hello())
      guard case .pair(let pair) = try session.receive(), pair.exchange == Pair.currentExchange else {
        throw HarnessError("expected a Pair with the nonce exchange")
      }
      let committed = PairingNonces.random()
      try session.send(.pairKey(PairKey(commitment: PairingNonces.commitment(to: committed))))
      guard case .pairKey(let key) = try session.receive(), key.nonce != nil else { throw HarnessError("expected the sender's nonce") }
      // A device in the middle would want to choose its nonce now, having seen the sender's.
      try session.send(.pairKey(PairKey(nonce: PairingNonces.random())))
      _ = try? session.receive()
    }
    let alice = try ShareHome(name: "pair-alice")
    let paired = try alice.share("pair", receiver.address, "--yes", timeout: .seconds(60))
    #expect(!paired.exited(with: 0), "\(paired)")
    #expect(paired.stderrText.contains("not the one it committed to"), "\(paired)")
    #expect(!paired.stdoutText.contains("Verification code"), "\(paired)")
    let trust = try alice.share("trust", "--json")
    #expect(trust.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || !trust.stdoutText.contains(receiver.id), "\(trust)")
  }

  @Test func aReceiverThatAnswersAsAnOlderShareIsToldToUpdate() throws {
    let receiver = try FakeReceiver { session, fake in
      try session.send(fake.hello())
      guard case .pair = try session.receive() else { throw HarnessError("expected a Pair") }
      try session.send(.pairResult(PairResult(accepted: true, reason: "accepted by the receiver's owner")))
      _ = try? session.receive()
    }
    let alice = try ShareHome(name: "pair-alice")
    let paired = try alice.share("pair", receiver.address, "--yes", timeout: .seconds(60))
    #expect(!paired.exited(with: 0) && paired.stderrText.contains("older share"), "\(paired)")
  }

  /// An older sender's `Pair` (no exchange) is refused by the daemon with what to do, before
  /// its owner is asked.
  @Test func anOlderSendersPairIsRefusedBeforeTheOwnerIsAsked() throws {
    let b = try ShareHome(name: "pair-bob")
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let older = try ThrowawayIdentity(name: "older")
    let session = try RawPeer(port: daemon.port, identity: older.identity)
    guard case .hello = try session.hello(name: "older") else { throw HarnessError("expected the daemon's Hello") }
    try session.send(.pair(Pair(exchange: nil)))
    guard case .pairResult(let result) = try session.receive() else { throw HarnessError("expected a PairResult") }
    #expect(!result.accepted && result.reason?.unescaped.contains("update share on the sending device") == true, "\(result)")
    #expect(try b.share("requests").stdoutText.isEmpty)
  }
}
