import Foundation
import Synchronization
import Testing

@testable import ShareKit

@Suite struct IdleTrimmerTests {
  /// The counts the trimmer reads, set by the test.
  final class Counts: Sendable {
    let ended = Mutex(0)
    let active = Mutex(0)
    let trims = Mutex(0)
  }

  @Test func itTrimsOnceAfterConnectionsEndAndNoneIsServedNeverWhileIdleOrBusy() throws {
    let counts = Counts()
    let trimmer = IdleTrimmer(
      interval: .milliseconds(20), ended: { counts.ended.withLock { $0 } }, active: { counts.active.withLock { $0 } },
      trim: { counts.trims.withLock { $0 += 1 } })
    defer { trimmer.cancel() }
    // Nothing has ended since it started: some rounds pass without a trim.
    for _ in 0..<5 { Thread.sleep(forTimeInterval: 0.03) }
    #expect(counts.trims.withLock { $0 } == 0)

    // A connection ended, another is still served: no trim.
    counts.ended.withLock { $0 = 1 }
    counts.active.withLock { $0 = 1 }
    for _ in 0..<5 { Thread.sleep(forTimeInterval: 0.03) }
    #expect(counts.trims.withLock { $0 } == 0)

    // All ended: one trim, and no more while nothing else ends.
    counts.active.withLock { $0 = 0 }
    try waitUntil(timeout: .seconds(10)) { counts.trims.withLock { $0 } == 1 }
    for _ in 0..<5 { Thread.sleep(forTimeInterval: 0.03) }
    #expect(counts.trims.withLock { $0 } == 1)

    counts.ended.withLock { $0 = 2 }
    try waitUntil(timeout: .seconds(10)) { counts.trims.withLock { $0 } == 2 }
  }
}
