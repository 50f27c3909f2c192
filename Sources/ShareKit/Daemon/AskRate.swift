/// How many new asks one peer, and one address, may start in a while. The waiting caps
/// (`Gatekeeper`) bound the asks waiting at one time, not how many come and go: one stranger
/// that asked and hung up in a loop got 200 desktop notifications and 600 log lines out of the
/// daemon in 10 s (review 26, the AirDoS notification flood). Past the rate, an ask is refused
/// `busy` before anyone is told of it; an ask folded into one already waiting is not a new one.
struct AskRate {
  /// The while.
  static let window: Duration = .seconds(60)
  /// New asks in it from one peer ID, and from one address (a certificate costs nothing).
  static let perPeer = 6
  static let perAddress = 12
  /// Keys remembered at most (the rest are forgotten oldest first).
  static let maxKeys = 4096

  private var starts: [String: [ContinuousClock.Instant]] = [:]

  /// Records a new ask from `peer` at `address`, or says why it may not start one now.
  mutating func admit(peer: String, address: String, now: ContinuousClock.Instant = .now) -> Refusal? {
    let (peerKey, addressKey) = ("id " + peer, "address " + address)
    let recentFromPeer = recent(peerKey, now: now)
    let recentFromAddress = recent(addressKey, now: now)
    if recentFromPeer >= Self.perPeer || recentFromAddress >= Self.perAddress {
      let whom = recentFromPeer >= Self.perPeer ? "you" : "your address"
      return Refusal(
        code: "busy", message: "too many asks from \(whom) in the last minute; wait a minute before asking again")
    }
    if starts.count >= Self.maxKeys { forgetOldest(now: now) }
    starts[peerKey, default: []].append(now)
    starts[addressKey, default: []].append(now)
    return nil
  }

  /// How many asks `key` started within the window before `now` (older ones forgotten).
  private mutating func recent(_ key: String, now: ContinuousClock.Instant) -> Int {
    guard var times = starts[key] else { return 0 }
    times.removeAll { now - $0 >= Self.window }
    starts[key] = times.isEmpty ? nil : times
    return times.count
  }

  /// Forgets every key with nothing in the window, then the half that asked least lately.
  private mutating func forgetOldest(now: ContinuousClock.Instant) {
    starts = starts.filter { _, times in times.contains { now - $0 < Self.window } }
    guard starts.count >= Self.maxKeys else { return }
    let sorted = starts.sorted { ($0.value.last ?? now) < ($1.value.last ?? now) }
    for (key, _) in sorted.prefix(starts.count / 2) { starts[key] = nil }
  }
}
