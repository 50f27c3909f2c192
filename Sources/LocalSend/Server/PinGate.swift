/// The PIN option (protocol 2.1): a prepare-upload must carry `?pin=` equal to the receiver's
/// PIN. After `maxFailures` wrong PINs an address gets 429 until the gate forgets it (it keeps
/// at most `capacity` addresses, dropping the oldest); and after `maxFailuresPerWindow` wrong
/// PINs from anyone within `window`, every address gets 429 until the window has passed — an
/// address costs an attacker little (review 17: rotating over 300 addresses found a 4-digit PIN
/// in 6 minutes; at 10 a minute the same search takes hours). A sender whose certificate proved
/// a contact's fingerprint is not held by that lockout of everyone (review 31: 10 wrong PINs a
/// minute from anywhere kept contacts out too), though it still needs the PIN and its own
/// address's count still holds. Pure: the caller gives the time.
struct PinGate: Sendable {
  enum Verdict: Equatable {
    case allowed
    /// 401 "PIN required".
    case required
    /// 401 "Invalid PIN".
    case invalid
    /// 429 "Too many requests".
    case tooManyAttempts
  }

  static let maxFailures = 3
  static let capacity = 256
  static let maxFailuresPerWindow = 10
  static let window: Double = 60

  let pin: String?
  private var failures: [String: Int] = [:]
  private var order: [String] = []
  /// When each of the latest wrong PINs came (seconds), and from where, within `window`.
  private var recent: [(time: Double, address: String)] = []

  /// Whether wrong PINs from everyone have closed the gate at `now`; and, for the owner's log,
  /// how many came in the window and from how many addresses.
  func lockedOut(at now: Double) -> (failures: Int, addresses: Int)? {
    let latest = recent.filter { now - $0.time < Self.window }
    guard latest.count >= Self.maxFailuresPerWindow else { return nil }
    return (latest.count, Set(latest.map(\.address)).count)
  }

  init(pin: String?) {
    self.pin = pin
  }

  /// The verdict on `provided` from `address`; `provenContact`: the sender's certificate proved
  /// a contact's fingerprint.
  mutating func check(_ provided: String?, from address: String, provenContact: Bool = false, at now: Double) -> Verdict {
    guard let pin else { return .allowed }
    recent.removeAll { now - $0.time >= Self.window }
    guard provenContact || lockedOut(at: now) == nil else { return .tooManyAttempts }
    let count = failures[address, default: 0]
    guard count < Self.maxFailures else { return .tooManyAttempts }
    guard let provided else { return .required }
    if constantTimeEqual(provided, pin) {
      failures[address] = nil
      order.removeAll { $0 == address }
      return .allowed
    }
    if failures[address] == nil {
      order.append(address)
      if order.count > Self.capacity { failures[order.removeFirst()] = nil }
    }
    failures[address] = count + 1
    recent.append((now, address))
    return .invalid
  }
}
