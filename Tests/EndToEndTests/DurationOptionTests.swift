import Foundation
import Testing

/// Every duration option takes units (`90s`, `10m`, `1h`), and a bare number means what its
/// help says.
@Suite struct DurationOptionTests {
  @Test func theDaemonTakesUnitsForGraceAskTimeoutAndFor() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon(arguments: ["--grace", "2s", "--ask-timeout", "1m", "--mode", "everyone", "--for", "90s"])
    defer { _ = daemon.stop() }
    let status = try #require(try parseJSONLines(try b.share("status", "--json").stdoutText).first)
    let until = try #require(status["mode_until"] as? String)
    let date = try #require(ISO8601DateFormatter().date(from: until))
    #expect(abs(date.timeIntervalSinceNow - 90) < 30, "\(until)")
  }

  @Test func receiveForTakesSecondsAndABareNumberIsMinutes() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon()
    defer { _ = daemon.stop() }
    for (value, seconds) in [("90s", 90.0), ("2", 120.0)] {
      let changed = try b.share("receive", "everyone", "--for", value)
      #expect(changed.exited(with: 0), "\(changed)")
      let status = try #require(try parseJSONLines(try b.share("status", "--json").stdoutText).first)
      let until = try #require((status["mode_until"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
      #expect(abs(until.timeIntervalSinceNow - seconds) < 30, "--for \(value): \(status)")
    }
  }

  /// Review 18: the fall back from `everyone --for` to contacts was silent in the daemon's log.
  @Test func theDaemonLogsWhenEveryoneForAWhileRunsOut() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon(arguments: ["--mode", "everyone", "--for", "2s"])
    defer { _ = daemon.stop() }
    #expect(daemon.waitForLog("receive mode: contacts (everyone until "), "\(daemon.log)")
    // And after 'share receive everyone --for': the first timer stays silent, the new one says it.
    #expect(try b.share("receive", "everyone", "--for", "2s").exited(with: 0))
    #expect(daemon.waitForLog("ran out)", count: 2), "\(daemon.log)")
  }

  @Test func aDurationWithoutAKnownUnitIsAUsageErrorThatSaysWhatABareNumberMeans() throws {
    let b = try ShareHome(name: "bob")
    let result = try b.share("daemon", "--ask-timeout", "2 minutes")
    #expect(result.exited(with: 64), "\(result)")
    #expect(result.stderrLines.first?.contains("(a bare number is seconds)") == true, "\(result)")
  }
}
