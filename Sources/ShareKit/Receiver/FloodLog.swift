/// Says whether a failure of an unauthenticated connection is logged: once per address per
/// burst, so a flood of a thousand connections is one line per address, not a thousand; and at
/// most `newAddressesPerWindow` (100) new addresses each `window` (a minute), so a flood from thousands of
/// addresses (an IPv6 /64, spare IPv4 addresses) is not a line each either (review 44: 100,000
/// connections from as many loopback addresses added 8,032 lines).
///
/// A burst from an address lasts while its failures come less than `quiet` apart. Its first
/// failure is logged; while it goes on, one line every `every` says how many were not. The
/// addresses whose first failure went unlogged are counted in the next line logged.
struct FloodLog {
  enum Decision: Equatable {
    /// Log it; it starts a burst, or `unlogged` failures happened since the last line; the
    /// first failures of `unloggedAddresses` other addresses were not logged since the last line.
    case log(first: Bool, unlogged: Int, unloggedAddresses: Int = 0)
    case skip
  }

  private struct Burst {
    var last: ContinuousClock.Instant
    var logged: ContinuousClock.Instant
    var unlogged = 0
  }

  var quiet: Duration = .seconds(30)
  var every: Duration = .seconds(300)
  var window: Duration = .seconds(60)
  var newAddressesPerWindow = 100
  private var bursts: [String: Burst] = [:]
  private var windowStart: ContinuousClock.Instant?
  private var startedInWindow = 0
  private var unloggedAddresses = 0
  private var pruned: ContinuousClock.Instant?

  /// Records a failure from `address` at `now`.
  mutating func record(_ address: String, now: ContinuousClock.Instant) -> Decision {
    // Ended bursts are dropped once a second, not on every failure (a scan of every address).
    if pruned.map({ now - $0 >= .seconds(1) }) ?? true {
      bursts = bursts.filter { now - $0.value.last < quiet }
      pruned = now
    }
    guard var burst = bursts[address], now - burst.last < quiet else { return started(address, now: now) }
    burst.last = now
    defer { bursts[address] = burst }
    if now - burst.logged >= every {
      let unlogged = burst.unlogged
      burst.logged = now
      burst.unlogged = 0
      return logged(first: false, unlogged: unlogged)
    }
    burst.unlogged += 1
    return .skip
  }

  /// A new burst from `address`: logged unless this window has had its share of new addresses.
  private mutating func started(_ address: String, now: ContinuousClock.Instant) -> Decision {
    bursts[address] = Burst(last: now, logged: now)
    if windowStart.map({ now - $0 >= window }) ?? true {
      windowStart = now
      startedInWindow = 0
    }
    guard startedInWindow < newAddressesPerWindow else {
      unloggedAddresses += 1
      return .skip
    }
    startedInWindow += 1
    return logged(first: true, unlogged: 0)
  }

  private mutating func logged(first: Bool, unlogged: Int) -> Decision {
    defer { unloggedAddresses = 0 }
    return .log(first: first, unlogged: unlogged, unloggedAddresses: unloggedAddresses)
  }
}
