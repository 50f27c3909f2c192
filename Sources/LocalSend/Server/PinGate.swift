/// The PIN option (protocol 2.1): a prepare-upload must carry `?pin=` equal to the receiver's
/// PIN. After `maxFailures` wrong PINs an address gets 429 until the gate forgets it (it keeps
/// at most `capacity` addresses, dropping the oldest). Pure.
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

  let pin: String?
  private var failures: [String: Int] = [:]
  private var order: [String] = []

  init(pin: String?) {
    self.pin = pin
  }

  mutating func check(_ provided: String?, from address: String) -> Verdict {
    guard let pin else { return .allowed }
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
    return .invalid
  }
}
