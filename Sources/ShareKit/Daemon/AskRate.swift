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

  private var starts: [String: [(at: ContinuousClock.Instant, cost: Int)]] = [:]
  /// This one's limits: `perPeer` and `perAddress` asks unless given, and as much cost (the
  /// Asks received, refused or not, get a larger budget and a cost: `Gatekeeper.beforeJudging`).
  private let limits: (peer: Int, address: Int)
  private let costs: (peer: Int, address: Int)

  init(perPeer: Int = Self.perPeer, perAddress: Int = Self.perAddress, costPerPeer: Int = .max, costPerAddress: Int = .max) {
    limits = (perPeer, perAddress)
    costs = (costPerPeer, costPerAddress)
  }

  /// Records a new ask from `peer` at `address`, or says why it may not start one now.
  /// `cost` is what the ask weighs (its items and entries), counted once it is admitted: an
  /// ask is refused once the window holds as many asks as the limit or as much cost.
  mutating func admit(peer: String, address: String, cost: Int = 1, now: ContinuousClock.Instant = .now) -> Refusal? {
    let keys = ["id " + peer, "address " + address]
    for key in keys { prune(key, now: now) }
    if let refusal = refusal(peer: peer, address: address, now: now) { return refusal }
    if starts.count >= Self.maxKeys { forgetOldest(now: now) }
    for key in keys { starts[key, default: []].append((now, cost)) }
    return nil
  }

  /// Why an ask from `peer` at `address` would be refused now, without counting one.
  func refusal(peer: String, address: String, now: ContinuousClock.Instant = .now) -> Refusal? {
    func window(_ key: String) -> (count: Int, cost: Int) {
      let times = (starts[key] ?? []).filter { now - $0.at < Self.window }
      return (times.count, times.reduce(0) { $0 &+ $1.cost })
    }
    let (fromPeer, fromAddress) = (window("id " + peer), window("address " + address))
    let peerFull = fromPeer.count >= limits.peer || fromPeer.cost >= costs.peer
    guard peerFull || fromAddress.count >= limits.address || fromAddress.cost >= costs.address else { return nil }
    return Refusal(
      code: "busy",
      message: "too many asks from \(peerFull ? "you" : "your address") in the last minute; wait a minute before asking again")
  }

  /// Forgets what `key` started before the window.
  private mutating func prune(_ key: String, now: ContinuousClock.Instant) {
    guard var times = starts[key] else { return }
    times.removeAll { now - $0.at >= Self.window }
    starts[key] = times.isEmpty ? nil : times
  }

  /// Forgets every key with nothing in the window, then the half that asked least lately.
  private mutating func forgetOldest(now: ContinuousClock.Instant) {
    starts = starts.filter { _, times in times.contains { now - $0.at < Self.window } }
    guard starts.count >= Self.maxKeys else { return }
    let sorted = starts.sorted { ($0.value.last?.at ?? now) < ($1.value.last?.at ?? now) }
    for (key, _) in sorted.prefix(starts.count / 2) { starts[key] = nil }
  }
}
