/// How often announcements are answered (review 34: every announcement was, so a flood of them,
/// from any address on the link, had this device multicast as many answers to every device on
/// it and connect to whatever addresses the announcements came from). The multicast answer is
/// the same for everyone who hears it: one per `multicastEvery` serves them all. A register
/// goes to one announcer's address at most once per `registerEvery`.
struct AnswerThrottle {
  let multicastEvery: Duration
  let registerEvery: Duration
  /// Addresses remembered at most; past it, those registered with longest ago are forgotten.
  static let maxAddresses = 256

  private var multicastAt: ContinuousClock.Instant?
  private var registeredAt: [String: ContinuousClock.Instant] = [:]

  init(multicastEvery: Duration, registerEvery: Duration) {
    self.multicastEvery = multicastEvery
    self.registerEvery = registerEvery
  }

  /// Whether a multicast answer may go now; if so, it is counted.
  mutating func mayMulticast(now: ContinuousClock.Instant = .now) -> Bool {
    if let multicastAt, now - multicastAt < multicastEvery { return false }
    multicastAt = now
    return true
  }

  /// Whether the announcer at `address` may be registered with now; if so, it is counted.
  mutating func mayRegister(_ address: String, now: ContinuousClock.Instant = .now) -> Bool {
    if let at = registeredAt[address], now - at < registerEvery { return false }
    if registeredAt.count >= Self.maxAddresses {
      registeredAt = registeredAt.filter { now - $0.value < registerEvery }
      if registeredAt.count >= Self.maxAddresses, let oldest = registeredAt.min(by: { $0.value < $1.value }) {
        registeredAt[oldest.key] = nil
      }
    }
    registeredAt[address] = now
    return true
  }
}
