import Foundation
import InboxStore
import Synchronization
import Testing
import Wire

@testable import ShareKit

/// Interrupted transfers resume; limits refuse before any byte moves.
@Suite struct ResumeAndLimitsTests {
  @Test func anInterruptedTransferResumesFromWhereItStopped() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let size = 48 << 20
    let source = a.file("movie.mp4.bin", randomBytes(size))
    let first = try RunningReceiver(home: b)
    let stopped = Atomic<Bool>(false)
    let sender = try Sender(device: a.device)
    #expect(throws: ShareError.self) {
      try sender.send(try OutgoingItem.files([source.path]), to: first.endpoint) { event in
        if case .progress(let sent, _) = event, sent >= 16 << 20, !stopped.exchange(true, ordering: .relaxed) {
          first.receiver.stop(grace: .zero)
        }
      }
    }
    #expect(b.inboxNames().isEmpty)
    let staged = b.stagingNames()
    #expect(staged.contains { $0.hasSuffix(".part") } && staged.contains { $0.hasSuffix(".resume") })

    let second = try RunningReceiver(home: b)
    let sentAgain = Mutex<Int64>(0)
    let report = try Sender(device: a.device).send(try OutgoingItem.files([source.path]), to: second.endpoint) { event in
      if case .progress(let sent, _) = event { sentAgain.withLock { $0 = sent } }
    }
    #expect(report.allStored)
    #expect((report.answers.first?.resumeFrom ?? 0) > 0)
    #expect(sentAgain.withLock { $0 } < Int64(size - (8 << 20)))
    #expect(
      FileManager.default.contents(atPath: b.inbox.appendingPathComponent("movie.mp4.bin").path)
        == FileManager.default.contents(atPath: source.path))
    #expect(b.stagingNames().isEmpty)
  }

  @Test func aResumedPrefixThatDiffersIsDroppedAndTheNextTryStartsAfresh() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let store = try InboxStore(documents: b.device.paths.documents)
    let bytes = randomBytes(9 << 20)
    let source = a.file("data.bin", bytes)
    let items = try OutgoingItem.files([source.path])
    // A staged part whose bytes are not the sender's.
    let record = ResumeRecord(
      senderId: a.device.fingerprint.hex, resumeKey: items[0].offer.resumeKey!, name: "data.bin", size: Int64(bytes.count))
    let part = try store.openResumable(record, offset: 0)
    try randomBytes(1000).withUnsafeBytes { try part.write($0) }
    store.keepForResume(part, record: record)
    #expect(store.resumableOffset(for: record) == 1000)

    let receiver = try RunningReceiver(home: b)
    let first = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(first.items[0].status == .failed)
    #expect(first.items[0].reason?.unescaped.contains("did not match") == true)
    let second = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(second.allStored)
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("data.bin").path) == Data(bytes))
  }

  /// Review 44: the receiver knows at the first frame that its prefix is not the sender's; it
  /// says so then, and the sender stops, instead of sending the whole rest to be dropped.
  @Test func aResumedPrefixThatDiffersStopsTheSenderAtOnce() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let store = try InboxStore(documents: b.device.paths.documents)
    let size = 64 << 20
    let source = a.file("big.bin", [UInt8](repeating: 7, count: size))
    let items = try OutgoingItem.files([source.path])
    let record = ResumeRecord(
      senderId: a.device.fingerprint.hex, resumeKey: items[0].offer.resumeKey!, name: "big.bin", size: Int64(size))
    let part = try store.openResumable(record, offset: 0)
    try randomBytes(1000).withUnsafeBytes { try part.write($0) }
    store.keepForResume(part, record: record)
    let receiver = try RunningReceiver(home: b)
    let sent = Mutex<Int64>(0)
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint) { event in
      if case .progress(let bytes, _) = event { sent.withLock { $0 = bytes } }
    }
    #expect(report.items[0].status == .failed && report.items[0].reason?.unescaped.contains("did not match") == true)
    // Not a time: what was sent before the receiver's word came back, a few socket buffers.
    #expect(sent.withLock { $0 } < Int64(size / 2), "sent \(sent.withLock { $0 }) of \(size) bytes")
    #expect(b.stagingNames().isEmpty)
  }

  @Test func aDamagedResumeRecordIsDiscardedNotFatal() throws {
    let b = try TestHome()
    let store = try InboxStore(documents: b.device.paths.documents)
    let record = ResumeRecord(senderId: "x", resumeKey: "k", name: "n", size: 10)
    let part = try store.openResumable(record, offset: 0)
    try [1, 2, 3].withUnsafeBytes { try part.write($0) }
    store.keepForResume(part, record: record)
    try Data("{not json".utf8).write(to: store.staging.appendingPathComponent(record.stem + ".resume"))
    #expect(store.resumableOffset(for: record) == 0)
    #expect(b.stagingNames().isEmpty)
  }

  @Test func stagingCleanupKeepsFreshResumablePartsAndDropsTheRest() throws {
    let b = try TestHome()
    let store = try InboxStore(documents: b.device.paths.documents)
    let record = ResumeRecord(senderId: "x", resumeKey: "k", name: "n", size: 10)
    let part = try store.openResumable(record, offset: 0)
    try [1].withUnsafeBytes { try part.write($0) }
    store.keepForResume(part, record: record)
    try store.createStagingFile().keep()  // an orphan from a dead transfer
    _ = try store.createStagingFolder()
    #expect(store.cleanStaging(expiry: 3600) == 1)
    #expect(b.stagingNames().count == 2)
    #expect(store.cleanStaging(expiry: -1) == 0)  // expired
    #expect(b.stagingNames().isEmpty)
  }

  @Test func itemsThatWouldEatTheReservedSpaceAreRefusedBeforeAnyByteMoves() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let configuration = ReceiverConfiguration(host: "127.0.0.1", reserveBytes: Int64.max / 2)
    let receiver = try RunningReceiver(home: b, configuration: configuration)
    let report = try Sender(device: a.device).send(try OutgoingItem.files([a.file("x.txt", [1]).path]), to: receiver.endpoint)
    #expect(report.items[0].status == .rejected)
    #expect(report.items[0].reason?.unescaped.contains("free space") == true)
  }

  @Test func itemsOverTheSizeLimitsAreRefusedAtAskTime() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(maxItemBytes: 100, maxAskBytes: 150))
    let items = try OutgoingItem.files([
      a.file("big", randomBytes(101)).path, a.file("a", randomBytes(90)).path, a.file("b", randomBytes(90)).path,
    ])
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(report.items.map(\.status) == [.rejected, .stored, .rejected])
    #expect(report.items[0].reason?.unescaped.contains("too large") == true)
    #expect(report.items[2].reason?.unescaped.contains("per send") == true)
  }

  @Test func anItemOfUnknownSizeCannotGrowPastTheLimit() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b, policy: ReceivePolicy(maxItemBytes: 1000))
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    _ = try client.ask([ItemOffer(id: 0, kind: .file, name: "stream", size: nil)])
    try client.connection.sendBegin(BeginFrame(item: 0))
    var framed = [UInt8](repeating: 0, count: FrameHeader.size) + randomBytes(2000)
    try framed.withUnsafeMutableBytes { try client.connection.sendData(framedIn: $0) }
    try client.connection.flush()
    guard case .failure(let failure) = try client.receive() else {
      Issue.record("expected a Failure")
      return
    }
    #expect(failure.message.unescaped.contains("unknown size"))
    #expect(b.inboxNames().isEmpty && b.stagingNames().isEmpty)
  }
}
