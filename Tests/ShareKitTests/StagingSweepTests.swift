import Foundation
import InboxStore
import System
import Testing

@testable import ShareKit

/// A running daemon removes the parts of interrupted items kept past their expiry (review 44:
/// only a restart did, while `share status` promised "gone after 7 days unused").
@Suite struct StagingSweepTests {
  /// Keeps a resumable part of `size` bytes for `name`, last used `age` seconds ago.
  static func keep(_ store: InboxStore, _ name: String, age: TimeInterval) throws -> ResumeRecord {
    let record = ResumeRecord(senderId: "x", resumeKey: name, name: name, size: 10)
    let part = try store.openResumable(record, offset: 0)
    try [1, 2, 3].withUnsafeBytes { try part.write($0) }
    store.keepForResume(part, record: record)
    let then = Date(timeIntervalSinceNow: -age)
    for suffix in [".part", ".resume"] {
      try FileManager.default.setAttributes(
        [.modificationDate: then], ofItemAtPath: store.staging.appendingPathComponent(record.stem + suffix).path)
    }
    return record
  }

  @Test func expiredPartsGoAndFreshOrResumedOnesStay() throws {
    let b = try TestHome()
    let store = try InboxStore(documents: b.device.paths.documents)
    let old = try Self.keep(store, "old", age: 8 * 86400)
    let fresh = try Self.keep(store, "fresh", age: 60)
    let resumed = try Self.keep(store, "resumed", age: 8 * 86400)
    #expect(store.expireResumable(expiry: 7 * 86400, receiving: [resumed.stem]) == 1)
    let left = Set(b.stagingNames())
    #expect(!left.contains(old.stem + ".part") && !left.contains(old.stem + ".resume"), "\(left)")
    #expect(left.isSuperset(of: [fresh.stem + ".part", fresh.stem + ".resume", resumed.stem + ".part", resumed.stem + ".resume"]))
  }

  @Test func aRunningDaemonSweepsWhatHasExpired() throws {
    let b = try TestHome()
    var options = DaemonOptions()
    options.configuration = ReceiverConfiguration(host: "127.0.0.1")
    options.mode = ModeSetting(mode: .off)
    options.stagingSweep = .milliseconds(100)
    let daemon = try Daemon(paths: b.device.paths, options: options, events: { _ in }, note: { _ in })
    try daemon.start()
    defer { daemon.stop() }
    // Kept after the start's own cleaning: only the sweep can remove it.
    let old = try Self.keep(daemon.store, "old", age: 8 * 86400)
    let deadline = ContinuousClock.now + .seconds(20)
    while b.stagingNames().contains(old.stem + ".part") && ContinuousClock.now < deadline { usleep(20_000) }
    #expect(!b.stagingNames().contains(old.stem + ".part"), "\(b.stagingNames())")
  }
}
