import Foundation
import Synchronization
import Testing

@testable import ShareKit

@Suite struct IdleTrimmerTests {
  /// Trims counted.
  final class Count: Sendable {
    let value = Mutex(0)
    var current: Int { value.withLock { $0 } }
  }

  /// Lets a few of `delay`s pass.
  private func waitSomeDelays() { Thread.sleep(forTimeInterval: 0.15) }

  @Test func itTrimsOnceAfterTheLastConnectionEndsUnlessAnotherComesMeanwhile() throws {
    let trims = Count()
    let trimmer = IdleTrimmer(delay: .milliseconds(30)) { trims.value.withLock { $0 += 1 } }
    // Connections come and go, one still served: no trim.
    trimmer.connections(active: 1)
    trimmer.connections(active: 2)
    trimmer.connections(active: 1)
    waitSomeDelays()
    #expect(trims.current == 0)

    // The last one ends: one trim.
    trimmer.connections(active: 0)
    try waitUntil(timeout: .seconds(10)) { trims.current == 1 }
    waitSomeDelays()
    #expect(trims.current == 1)

    // The last one ends, but another comes before the delay is over: no trim for that ending.
    let slow = IdleTrimmer(delay: .seconds(1)) { trims.value.withLock { $0 += 100 } }
    slow.connections(active: 0)
    slow.connections(active: 1)
    Thread.sleep(forTimeInterval: 1.3)
    #expect(trims.current == 1)

    // Stopped: nothing more.
    trimmer.stop()
    trimmer.connections(active: 0)
    waitSomeDelays()
    #expect(trims.current == 1)
  }
}
