import Foundation
import Glibc
import InboxStore
import System
import TLS
import Testing
import Wire

@testable import ShareKit

/// Two peers in one process over loopback: the real receiver, sender, TLS and Inbox.
@Suite struct TransferTests {
  @Test func filesArriveByteIdenticalReadOnlyWithTheSendersFingerprint() throws {
    let (a, b) = (try TestHome(name: "alice"), try TestHome(name: "bob"))
    let receiver = try RunningReceiver(home: b)
    let big = randomBytes(12 << 20 + 17)
    let items = try OutgoingItem.files([a.file("big.bin", big).path, a.file("notes.txt", Array("hi\n".utf8)).path])
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(report.allStored)
    #expect(report.peerFingerprint == b.device.fingerprint)
    #expect(report.peerName == "bob")
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("big.bin").path) == Data(big))
    let listed = try InboxStore(documents: b.device.paths.documents).list()
    #expect(listed.count == 2)
    for item in listed {
      #expect(item.metadata?.senderId == a.device.fingerprint.hex)
      #expect(item.metadata?.senderName == "alice")
      var info = stat()
      lstat(item.url.path, &info)
      #expect(info.st_mode & 0o222 == 0)
    }
    #expect(listed.first { $0.name == "big.bin" }?.metadata?.sha256 == Digest(bytes: SHA256Hasher.hash(big))?.hex)
    #expect(b.stagingNames().isEmpty)
  }

  @Test func sendingTheSameNameAgainTakesANumberedName() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let items = try OutgoingItem.files([a.file("notes.txt", [1]).path])
    _ = try Sender(device: a.device).send(items, to: receiver.endpoint)
    let second = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(second.items.first?.storedAs == "notes-1.txt")
    #expect(b.inboxNames() == ["notes.txt", "notes-1.txt"])
  }

  @Test func emptyFilesAndManySmallFilesArrive() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    var paths = [a.file("empty", []).path]
    for i in 0..<300 { paths.append(a.file("small-\(i).txt", Array("file \(i)".utf8)).path) }
    let report = try Sender(device: a.device).send(try OutgoingItem.files(paths), to: receiver.endpoint)
    #expect(report.storedCount == 301)
    #expect(b.inboxNames().count == 301)
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("small-299.txt").path) == Data("file 299".utf8))
  }

  /// A full batch's items are told stored (the log, hooks) as soon as it is placed, while the
  /// rest of the Ask is still coming: here the last item waits until they are.
  @Test func aPlacedBatchIsToldStoredBeforeTheAskEnds() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    let count = PlacementBatch.maxItems + 1
    let offers = (0..<count).map { ItemOffer(id: $0, kind: .file, name: PeerText("f-\($0).txt"), size: 5) }
    #expect(try client.ask(offers).items.allSatisfy(\.accepted))
    for id in 0..<count - 1 { try client.sendItem(id: id, bytes: Array("item\n".utf8)) }
    let lastOfTheBatch = count - 2
    #expect(
      receiver.waitFor {
        if case .stored(_, let item, _, _, _, _) = $0 { return item.id == lastOfTheBatch }
        return false
      })
    try client.sendItem(id: count - 1, bytes: Array("last\n".utf8))
    let receipt = try client.receipt()
    #expect(receipt.items.count == count && receipt.items.allSatisfy { $0.status == .stored })
    #expect(b.inboxNames().count == count)
  }

  @Test func aWrongExpectedFingerprintStopsTheSendBeforeTheOffer() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    var endpoint = receiver.endpoint
    endpoint.expectedFingerprint = a.device.fingerprint  // not bob's
    let items = try OutgoingItem.files([a.file("x", [1]).path])
    #expect(throws: ShareError.self) { try Sender(device: a.device).send(items, to: endpoint) }
    #expect(
      receiver.waitFor(timeout: .seconds(5)) {
        if case .connectionFailed = $0 { return true }
        return false
      })
    #expect(
      !receiver.recorded.contains {
        if case .asked = $0 { return true }
        return false
      })
    #expect(b.inboxNames().isEmpty)
  }

  @Test func connectingToAClosedPortIsAClearError() throws {
    let a = try TestHome()
    let listener = try TCPListener(host: "127.0.0.1", port: 0)
    let port = listener.port
    listener.close()
    let items = try OutgoingItem.files([a.file("x", [1]).path])
    do {
      _ = try Sender(device: a.device).send(items, to: Endpoint(host: "127.0.0.1", port: port))
      Issue.record("sent to a closed port")
    } catch {
      #expect(error.description.lowercased().contains("refused"))
    }
  }
}
