import Testing

@testable import ShareKit

/// The reserve's ledger, as values: what it admits, when it measures again, and that it never
/// admits past the reserve by what it measured.
@Suite struct SpaceLedgerTests {
  let start = ContinuousClock.now
  let mib: Int64 = 1 << 20

  /// A measurement that reports `free` and counts how often it was taken.
  final class Disk: @unchecked Sendable {  // used on one thread
    var free: Int64?
    var measured = 0
    init(_ free: Int64?) { self.free = free }
    func measure() -> Int64? {
      measured += 1
      return free
    }
  }

  /// What `ledger` admits of each of `counts`, `after` the start, against `reserve` on `disk`.
  func admitted(
    _ counts: [Int64], by ledger: inout SpaceLedger, reserve: Int64, after elapsed: Duration = .zero, on disk: Disk
  ) -> [Bool] {
    counts.map { ledger.admit($0, reserve: reserve, now: start + elapsed, measure: disk.measure) }
  }

  @Test func nearTheReserveEveryWriteIsMeasuredAndTheOneThatWouldCrossItIsRefused() {
    var ledger = SpaceLedger()
    let disk = Disk(10 * mib)
    #expect(admitted([3 * mib], by: &ledger, reserve: 6 * mib, on: disk) == [true])
    disk.free = 7 * mib
    #expect(admitted([mib], by: &ledger, reserve: 6 * mib, on: disk) == [true])
    disk.free = 6 * mib
    #expect(admitted([1], by: &ledger, reserve: 6 * mib, on: disk) == [false])
    #expect(disk.measured == 3)
  }

  @Test func farAboveTheReserveTheEstimateIsTrustedForAMomentInWholeBlocks() {
    var ledger = SpaceLedger()
    let disk = Disk(1000 * mib)
    #expect(admitted([100], by: &ledger, reserve: mib, on: disk) == [true])
    #expect(ledger.estimate == 1000 * mib - 4096)
    let many = admitted(Array(repeating: mib, count: 900), by: &ledger, reserve: mib, after: .milliseconds(50), on: disk)
    #expect(many.allSatisfy { $0 })
    #expect(disk.measured == 1)
    #expect(ledger.estimate == 100 * mib - 4096)
    // Later, it measures again, and sees what others wrote meanwhile.
    disk.free = 2 * mib
    #expect(admitted([2 * mib], by: &ledger, reserve: mib, after: .milliseconds(200), on: disk) == [false])
    #expect(disk.measured == 2)
  }

  @Test func anEstimateNearTheMarginIsNotTrusted() {
    var ledger = SpaceLedger()
    let disk = Disk(SpaceLedger.margin + 2 * mib)
    // After the first, what is left above the reserve is under the margin: the second measures.
    #expect(admitted([mib, mib], by: &ledger, reserve: mib, on: disk) == [true, true])
    #expect(disk.measured == 2)
  }

  @Test func anUnknownFreeSpaceAdmitsAndAZeroReserveNeverMeasures() {
    var ledger = SpaceLedger()
    #expect(admitted([mib], by: &ledger, reserve: mib, on: Disk(nil)) == [true])
    let disk = Disk(0)
    let reserve = DiskReserve(bytes: 0, measure: { disk.measure() })
    #expect(reserve.admits(1 << 30))
    #expect(disk.measured == 0)
    let strict = DiskReserve(bytes: mib, measure: { disk.measure() })
    #expect(!strict.admits(1))
    #expect(strict.reason == "not stored: not enough free space on the receiver (it keeps 1.0 MiB free)")
  }
}
