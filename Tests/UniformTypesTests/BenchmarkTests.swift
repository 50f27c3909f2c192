import Foundation
import Testing

@testable import UniformTypes

/// Prints classification costs. Runs only with SHARE_BENCH=1 (speed is measured, not asserted):
/// `SHARE_BENCH=1 swift test -c release --filter UniformTypesTests.benchmark`.
@Test(
  "benchmark: registry load, name and content judgement costs",
  .enabled(if: ProcessInfo.processInfo.environment["SHARE_BENCH"] == "1"))
func benchmark() throws {
  let figures = try TypeBenchmark.run()
  print(figures)
  #expect(figures.nameJudgeMicroseconds > 0)
}
