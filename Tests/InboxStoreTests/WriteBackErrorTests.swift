import Dispatch
import Foundation
import Glibc
import Synchronization
import System
import Testing

@testable import InboxStore

/// A disk that fails to write what `write` accepted: `scripts/failing-disk.sh up` mounts one and
/// scripts/test.sh says where in `SHARE_FAILING_DISK` (it needs root and a loop device).
enum FailingDisk {
  static let folder: URL? = ProcessInfo.processInfo.environment["SHARE_FAILING_DISK"].flatMap {
    $0.isEmpty ? nil : URL(fileURLWithPath: $0)
  }

  /// A store on the failing disk, removed after `body`.
  static func withStore(_ body: (InboxStore, URL) throws -> Void) throws {
    let root = try #require(folder).appendingPathComponent("documents-\(UUID().uuidString)")
    defer { try? removeTree(root) }
    try body(try InboxStore(documents: root), root)
  }

  /// Stages `count` bytes, not synced: the page cache holds them until write-back (which fails).
  static func stage(_ count: Int, in store: InboxStore) throws {
    let file = try store.createStagingFile()
    let bytes = [UInt8](repeating: 0x5a, count: count)
    try bytes.withUnsafeBytes { try file.write($0) }
    _ = try file.finish(sync: false)
  }

  /// syncfs through a description of its own, as another process's `sync -f` would: true when it
  /// reported the write-back error (which it then has seen first).
  static func otherSyncFails(_ path: String) throws -> Bool {
    let other = try FileDescriptor.open(path, .readOnly, options: .directory)
    return other.closeAfter { (try? FileSystem.syncFileSystem(of: other)) == nil }
  }
}

/// What the store says when the disk loses staged data after `write` succeeded (Linux reports a
/// write-back error once to each open file description, and only errors since it was opened).
@Suite(.serialized, .enabled(if: FailingDisk.folder != nil, "SHARE_FAILING_DISK names no failing disk"))
struct WriteBackErrorTests {
  @Test func aSyncOfStagingReportsAnErrorAnotherProcessSawFirst() throws {
    try FailingDisk.withStore { store, _ in
      let before = store.failedStagingSyncs
      try FailingDisk.stage(64 << 10, in: store)
      // Another description's syncfs writes the data back, fails, and sees the error first.
      try #require(try FailingDisk.otherSyncFails(store.staging.path), "the disk did not fail: nothing to test")
      #expect(throws: InboxError.self) { try store.syncStaging(stagedSince: before) }
      #expect(store.failedStagingSyncs == before + 1)
    }
  }

  @Test func aBatchStagedBeforeAFailedSyncFailsTooAndALaterOneDoesNot() throws {
    try FailingDisk.withStore { store, _ in
      let first = store.failedStagingSyncs
      try FailingDisk.stage(64 << 10, in: store)
      #expect(throws: InboxError.self) { try store.syncStaging(stagedSince: first) }
      // Another batch staged before that failure: its data may have been lost in it, and the
      // error was reported once already, so the store says so from its count.
      #expect(throws: InboxError.self) { try store.syncStaging(stagedSince: first) }
      // A batch staged after it, with nothing new written: nothing failed since.
      #expect(throws: Never.self) { try store.syncStaging(stagedSince: store.failedStagingSyncs) }
    }
  }

  /// Found by a review: two sessions' syncs ending on the same failed write-back; the one that
  /// did not see the error read the count before the other raised it. Both batches must fail.
  @Test func twoBatchesSyncedAtOnceAfterALossBothFail() throws {
    try FailingDisk.withStore { store, _ in
      let before = store.failedStagingSyncs
      try FailingDisk.stage(64 << 10, in: store)
      try FailingDisk.stage(64 << 10, in: store)
      let failures = Atomic<Int>(0)
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        do throws(InboxError) { try store.syncStaging(stagedSince: before) } catch { failures.add(1, ordering: .relaxed) }
      }
      #expect(failures.load(ordering: .relaxed) == 2)
    }
  }

  @Test func aMoveToADiskThatFailsToWriteTheCopyKeepsTheItem() throws {
    let t = try TempDocuments()
    _ = t.store.place([try t.stage(Array(repeating: 7, count: 64 << 10), name: "big.bin")])
    let target = try #require(FailingDisk.folder).appendingPathComponent("moved-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    defer { try? removeTree(target) }
    #expect(throws: InboxError.self) { try t.store.move("big.bin", to: target) }
    // The copy is gone from the failing disk and the item is still whole in the Inbox.
    #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
    #expect(t.store.list().map(\.name) == ["big.bin"])
    #expect(FileManager.default.contents(atPath: t.store.inbox.appendingPathComponent("big.bin").path)?.count == 64 << 10)
  }
}

@Suite struct StagingSyncTests {
  @Test func aHealthyDiskSyncsStagingWithoutError() throws {
    let documents = try TempDocuments()
    try FailingDisk.stage(1 << 20, in: documents.store)
    #expect(throws: Never.self) { try documents.store.syncStaging(stagedSince: documents.store.failedStagingSyncs) }
  }
}
