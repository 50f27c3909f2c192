/// Says whether a failure of an unauthenticated connection is logged: once per address per
/// burst, so a flood of a thousand connections is one line per address, not a thousand.
///
/// A burst from an address lasts while its failures come less than `quiet` apart. Its first
/// failure is logged; while it goes on, one line every `every` says how many were not.
struct FloodLog {
  enum Decision: Equatable {
    /// Log it; it starts a burst, or `unlogged` failures happened since the last line.
    case log(first: Bool, unlogged: Int)
    case skip
  }

  private struct Burst {
    var last: ContinuousClock.Instant
    var logged: ContinuousClock.Instant
    var unlogged = 0
  }

  var quiet: Duration = .seconds(30)
  var every: Duration = .seconds(300)
  private var bursts: [String: Burst] = [:]

  /// Records a failure from `address` at `now`.
  mutating func record(_ address: String, now: ContinuousClock.Instant) -> Decision {
    bursts = bursts.filter { now - $0.value.last < quiet }
    guard var burst = bursts[address] else {
      bursts[address] = Burst(last: now, logged: now)
      return .log(first: true, unlogged: 0)
    }
    burst.last = now
    defer { bursts[address] = burst }
    if now - burst.logged >= every {
      let unlogged = burst.unlogged
      burst.logged = now
      burst.unlogged = 0
      return .log(first: false, unlogged: unlogged)
    }
    burst.unlogged += 1
    return .skip
  }
}
