import Dispatch
import Foundation
import Glibc
import InboxStore
import Synchronization
import TLS
import Testing
import Wire

@testable import ShareKit

/// A receiver whose Documents sit on a full or read-only file system: the items that cannot be
/// written fail with a clear reason, the rest are stored, nothing partial reaches the Inbox,
/// staging is left empty, and the receiver keeps serving.
///
/// These run as root and use real mounts (a small tmpfs), because permission bits do not stop
/// root from writing.
@Suite struct DiskFaultTests {
  @Test func anItemLargerThanTheFreeSpaceIsRefusedBeforeAnyByteMoves() throws {
    let mount = try ScratchMount(options: "size=2m")
    defer { mount.unmount() }
    let a = try TestHome(name: "alice")
    let b = try TestHome(name: "bob", documents: mount.point)
    let receiver = try RunningReceiver(home: b, configuration: ReceiverConfiguration(host: "127.0.0.1", reserveBytes: 512 << 10))
    defer { receiver.receiver.stop() }
    let items = try OutgoingItem.files([a.file("big.bin", randomBytes(3 << 20)).path, a.file("small.txt", Array("fits\n".utf8)).path])
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(report.answers.first { $0.id == 0 }?.accepted == false)
    #expect(report.items.first { $0.id == 0 }?.reason?.unescaped.contains("not enough free space") == true)
    #expect(report.items.first { $0.id == 1 }?.status == .stored)
    #expect(b.inboxNames() == ["small.txt"])
    #expect(b.stagingNames().isEmpty)
  }

  @Test func aFullDiskFailsTheItemThatDoesNotFitStoresTheNextAndLeavesNothingPartial() throws {
    let mount = try ScratchMount(options: "size=2m")
    defer { mount.unmount() }
    let a = try TestHome(name: "alice")
    let b = try TestHome(name: "bob", documents: mount.point)
    // No reserve: this test is about the disk filling up mid-transfer, after the space check.
    let receiver = try RunningReceiver(home: b, configuration: ReceiverConfiguration(host: "127.0.0.1", reserveBytes: 0))
    defer { receiver.receiver.stop() }

    // The big one first, from a pipe: its size is unknown, so no free-space check can refuse it
    // up front and the disk fills mid-transfer. The small one fits only if the big one's partial
    // file was discarded.
    let small = Array("small enough\n".utf8)
    let readEnd = try feedPipe(randomBytes(4 << 20))
    defer { close(readEnd) }
    var catalog = ItemCatalog()
    catalog.add(stream: readEnd, name: "big.bin")
    try catalog.add(path: a.file("small.txt", small).path)
    let report = try Sender(device: a.device).send(catalog.items, to: receiver.endpoint)

    let big = try #require(report.items.first { $0.id == 0 })
    #expect(big.status == .failed)
    // The sender learns why, and nothing of the receiver's paths (they reveal its home folder).
    #expect(big.reason == "not stored: the receiver's disk is full", "\(big.reason ?? "")")
    #expect(report.items.first { $0.id == 1 }?.status == .stored)
    #expect(b.inboxNames() == ["small.txt"])
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("small.txt").path) == Data(small))
    #expect(b.stagingNames().isEmpty, "staging: \(b.stagingNames())")
    // The receiver's own log keeps the detail: which disk is full.
    #expect(
      receiver.waitFor { event in
        if case .failed(_, let item, let reason) = event {
          return item.name == "big.bin" && reason.contains("full") && reason.contains(mount.point.path)
        }
        return false
      }, "\(receiver.recorded)")

    // Still serving, and the freed space is usable.
    let again = try Sender(device: a.device).send(try OutgoingItem.files([a.file("later.txt", [1, 2, 3]).path]), to: receiver.endpoint)
    #expect(again.allStored)
    #expect(b.inboxNames() == ["small.txt", "later.txt"])
  }

  /// Review 23 found listing a home on a read-only mount failed: that home had no Inbox yet (it
  /// had never received), which cannot be made there. One that has received is listed.
  @Test func anInboxOnAReadOnlyFileSystemCanBeListedAndNotChanged() throws {
    let mount = try ScratchMount(options: "size=8m")
    defer { mount.unmount() }
    let a = try TestHome(name: "alice")
    let b = try TestHome(name: "bob", documents: mount.point)
    let receiver = try RunningReceiver(home: b, configuration: ReceiverConfiguration(host: "127.0.0.1", reserveBytes: 0))
    let report = try Sender(device: a.device).send(try OutgoingItem.files([a.file("kept.txt", [1, 2]).path]), to: receiver.endpoint)
    #expect(report.allStored)
    receiver.receiver.stop()
    try mount.remount(readOnly: true)
    let inbox = try Inbox(paths: b.device.paths)
    #expect(inbox.list().map(\.name) == ["kept.txt"])
    #expect(throws: ShareError.self) { try inbox.delete("kept.txt") }
    try mount.remount(readOnly: false)
  }

  @Test func aReadOnlyFileSystemFailsEveryItemWithAClearReasonAndTheReceiverKeepsServing() throws {
    let mount = try ScratchMount(options: "size=8m")
    defer { mount.unmount() }
    let a = try TestHome(name: "alice")
    let b = try TestHome(name: "bob", documents: mount.point)
    // Creates Inbox, staging and meta first.
    let receiver = try RunningReceiver(home: b, configuration: ReceiverConfiguration(host: "127.0.0.1", reserveBytes: 0))
    defer { receiver.receiver.stop() }
    try mount.remount(readOnly: true)

    let items = try OutgoingItem.files([a.file("big.bin", randomBytes(1 << 20)).path, a.file("small.txt", [7]).path])
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(report.items.count == 2)
    for item in report.items {
      #expect(item.status == .failed, "\(item)")
      // Path-free for the sender.
      #expect(item.reason == "not stored: the receiver cannot write to its Inbox", "\(item.reason ?? "")")
    }
    // Locally, the log says what is wrong: a read-only file system (not "permission denied").
    for name in ["big.bin", "small.txt"] {
      #expect(
        receiver.waitFor { event in
          if case .failed(_, let item, let reason) = event {
            return item.name.unescaped == name && reason.contains("the file system holding \(mount.point.path)")
              && reason.hasSuffix(" is read-only") && !reason.contains("permission denied")
          }
          return false
        }, "\(name): \(receiver.recorded)")
    }
    #expect(b.inboxNames().isEmpty)
    #expect(b.stagingNames().isEmpty)
    #expect(
      receiver.waitFor {
        if case .finished(_, 0, 0, 2) = $0 { return true }
        return false
      })

    // Writable again: the same receiver stores the next send.
    try mount.remount(readOnly: false)
    let again = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(again.allStored)
    #expect(b.inboxNames() == ["big.bin", "small.txt"])
  }

  // MARK: The reserve, while bytes are written

  @Test func aStreamOfUnknownSizeStopsAtTheReserveFailsCleanlyAndTheNextItemIsStored() throws {
    let mount = try ScratchMount(options: "size=8m")
    defer { mount.unmount() }
    let a = try TestHome(name: "alice")
    let b = try TestHome(name: "bob", documents: mount.point)
    let reserve: Int64 = 6 << 20
    let receiver = try RunningReceiver(home: b, configuration: ReceiverConfiguration(host: "127.0.0.1", reserveBytes: reserve))
    defer { receiver.receiver.stop() }

    // Standard input: no size to refuse up front, and more than the disk can give above the reserve.
    let small = Array("small enough\n".utf8)
    let readEnd = try feedPipe(randomBytes(4 << 20))
    defer { close(readEnd) }
    var catalog = ItemCatalog()
    catalog.add(stream: readEnd, name: "stream.bin")
    try catalog.add(path: a.file("small.txt", small).path)
    let watch = FreeSpaceWatch(mount.point)
    let report = try Sender(device: a.device).send(catalog.items, to: receiver.endpoint)
    let lowest = watch.stop()

    let stream = try #require(report.items.first { $0.id == 0 })
    #expect(stream.status == .failed, "\(stream)")
    #expect(stream.reason == "not stored: not enough free space on the receiver (it keeps 6.0 MiB free)", "\(stream.reason ?? "")")
    #expect(lowest >= reserve, "free space fell to \(lowest) bytes, under the reserve of \(reserve)")
    #expect(report.items.first { $0.id == 1 }?.status == .stored)
    #expect(b.inboxNames() == ["small.txt"])
    #expect(b.stagingNames().isEmpty, "staging: \(b.stagingNames())")
    // The receiver's log says which disk.
    #expect(
      receiver.waitFor { event in
        if case .failed(_, let item, let reason) = event { return item.name == "stream.bin" && reason.contains(mount.point.path) }
        return false
      }, "\(receiver.recorded)")

    // Still serving.
    let again = try Sender(device: a.device).send(try OutgoingItem.files([a.file("later.txt", [1, 2, 3]).path]), to: receiver.endpoint)
    #expect(again.allStored)
  }

  @Test func twoAsksAdmittedAgainstTheSameFreeSpaceCannotTogetherEatTheReserve() throws {
    let mount = try ScratchMount(options: "size=12m")
    defer { mount.unmount() }
    let b = try TestHome(name: "bob", documents: mount.point)
    let reserve: Int64 = 4 << 20
    let receiver = try RunningReceiver(home: b, configuration: ReceiverConfiguration(host: "127.0.0.1", reserveBytes: reserve))
    defer { receiver.receiver.stop() }

    // Each fits above the reserve on its own, and each is accepted before either sends a byte.
    let (first, second) = (try RawClient(to: receiver.port, home: try TestHome()), try RawClient(to: receiver.port, home: try TestHome()))
    let bytes = randomBytes(5 << 20)
    for client in [first, second] {
      try client.hello()
      let answer = try client.ask([ItemOffer(id: 0, kind: .file, name: "half.bin", size: Int64(bytes.count))])
      #expect(answer.items.first?.accepted == true)
    }
    let watch = FreeSpaceWatch(mount.point)
    try first.sendItem(id: 0, bytes: bytes)
    #expect(try first.receiptAfterSkips().receipt.items.first?.status == .stored)
    try second.sendItem(id: 0, bytes: bytes)
    let (receipt, skips) = try second.receiptAfterSkips()
    let lowest = watch.stop()

    #expect(receipt.items.first?.status == .failed, "\(receipt)")
    #expect(receipt.items.first?.reason == "not stored: not enough free space on the receiver (it keeps 4.0 MiB free)")
    // The sender was told to stop sending it.
    #expect(skips.map(\.item) == [0])
    #expect(lowest >= reserve, "free space fell to \(lowest) bytes, under the reserve of \(reserve)")
    #expect(b.inboxNames() == ["half.bin"])
    #expect(b.stagingNames().isEmpty, "staging: \(b.stagingNames())")
  }
}

/// The least free space a file system had while it was watched (statvfs every millisecond, on
/// a thread of its own).
private final class FreeSpaceWatch: Sendable {
  private let lowest = Mutex<Int64>(Int64.max)
  private let stopped = Atomic<Bool>(false)
  private let done = DispatchSemaphore(value: 0)

  init(_ url: URL) {
    Thread { [self] in
      while !stopped.load(ordering: .acquiring) {
        var info = statvfs()
        if statvfs(url.path, &info) == 0 {
          let free = Int64(info.f_bavail) * Int64(info.f_frsize)
          lowest.withLock { $0 = min($0, free) }
        }
        usleep(1000)
      }
      done.signal()
    }.start()
  }

  /// Stops watching; the least free space seen.
  func stop() -> Int64 {
    stopped.store(true, ordering: .releasing)
    done.wait()
    return lowest.withLock { $0 }
  }
}
