/// Which connections a receiver serves, decided as values: no sockets, no clock of its own.
///
/// A connection is *unauthenticated* from accept until the peer has proven who it is — a
/// contact by its certificate at the end of the TLS handshake, anyone else by a valid Hello —
/// and must get there before one deadline (`Limits.helloTimeout`) that no read restarts.
/// Unauthenticated connections are capped per address and in total; when the total is reached, a
/// newcomer from an address holding fewer of them takes the place of the oldest one of the
/// addresses holding the most, so a flood from some addresses cannot lock out the others.
/// Authenticated connections have caps of their own: in total; per address for strangers and per
/// device for contacts; and a reserve of the total that only contacts may use, so strangers
/// cannot take every slot from contacts. Contacts are capped per device rather than per address:
/// each proved who it is, several of them may well share an address (the users of one lab
/// server, the devices behind one NAT), and one of them still cannot hold every slot.
struct Admission {
  /// The caps. See `ReceiverConfiguration` for what each means.
  struct Limits: Sendable {
    var maxUnauthenticatedPerAddress: Int
    var maxUnauthenticated: Int
    /// Per address for strangers, per device for contacts.
    var maxConnectionsPerAddress: Int
    var maxConnections: Int
    var contactReserve: Int
  }

  enum Stage: Equatable {
    /// Accepted at `since`; not yet proven.
    case unauthenticated(since: ContinuousClock.Instant)
    /// Proven: a contact by its certificate (its device ID), or a stranger by its Hello (nil).
    case authenticated(contact: String?)
  }

  struct Entry: Equatable {
    var address: String
    var port: UInt16
    var stage: Stage
    /// Proven and at work: a share sender whose Ask (or pairing) came whole, a LocalSend client
    /// whose request is being answered. A stranger that is not may make room for another.
    var engaged = false
  }

  /// What happens to a new connection.
  enum Arrival: Equatable {
    /// Served under `id`; the connection `evicting` (if any) must be closed to make room.
    case admitted(id: Int, evicting: Int?)
    /// Refused (`busy`), and why.
    case refused(String)
  }

  let limits: Limits
  private(set) var entries: [Int: Entry] = [:]
  private var nextID = 0

  init(limits: Limits) {
    self.limits = limits
  }

  /// A connection from `address`:`port` accepted at `now`.
  mutating func arrive(address: String, port: UInt16, now: ContinuousClock.Instant) -> Arrival {
    let waiting = unauthenticatedCounts()
    let fromAddress = waiting[address, default: 0]
    if fromAddress >= limits.maxUnauthenticatedPerAddress {
      return .refused("too many connections from your address are still starting")
    }
    var evicting: Int? = nil
    if waiting.values.reduce(0, +) >= limits.maxUnauthenticated {
      // Fewer is enough: with a margin of two, one silent connection from each of as many
      // addresses as there are slots locked out everyone else, contacts too (review 13).
      guard let most = waiting.values.max(), most > fromAddress else {
        return .refused("too many connections are starting at once")
      }
      evicting = oldestUnauthenticated(from: Set(waiting.filter { $0.value == most }.keys))
      if let evicting { entries[evicting] = nil }
    }
    nextID += 1
    entries[nextID] = Entry(address: address, port: port, stage: .unauthenticated(since: now))
    return .admitted(id: nextID, evicting: evicting)
  }

  /// The TLS handshake of `id` is done: a contact (`contact`: its device ID) is authenticated
  /// now, if there is room; a stranger (nil) stays unauthenticated until its Hello, but is
  /// refused at once when strangers have no room. Returns the refusal, if any.
  mutating func handshakeDone(_ id: Int, contact: String?) -> String? {
    guard let entry = entries[id], case .unauthenticated = entry.stage else { return nil }
    // A stranger that an idle stranger could make room for goes on to its Hello.
    if let full = roomProblem(for: entry.address, contact: contact), contact != nil || strangerToEvict(for: entry.address) == nil {
      return full
    }
    if let contact { entries[id]?.stage = .authenticated(contact: contact) }
    return nil
  }

  /// What became of a stranger that proved itself.
  struct Proof: Equatable {
    var id: Int
    /// Why it must go after all (its address holds as many as it may, or no stranger made room).
    var refusal: String?
    /// The stranger that made room for it, to be closed.
    var evicting: Int?
  }

  /// A stranger's Hello on the connection from `address`:`port` was valid: it is served if there
  /// is room, and when strangers hold every slot they may, the oldest stranger that is not at
  /// work (`Entry.engaged`) makes room, as the oldest unauthenticated one does for a newcomer:
  /// strangers that hold a connection and say nothing, or drip a message byte by byte, cannot
  /// keep every other stranger out (review 15).
  mutating func helloAccepted(address: String, port: UInt16) -> Proof? {
    guard
      let (id, entry) = entries.first(where: { $0.value.address == address && $0.value.port == port }),
      case .unauthenticated = entry.stage
    else { return nil }
    var evicting: Int? = nil
    if let full = roomProblem(for: address, contact: nil) {
      guard let idle = strangerToEvict(for: address) else { return Proof(id: id, refusal: full) }
      entries[idle] = nil
      evicting = idle
    }
    entries[id]?.stage = .authenticated(contact: nil)
    return Proof(id: id, evicting: evicting)
  }

  /// Connection `id` proved itself by other means than a Hello (a LocalSend connection, by its
  /// finished handshake): as `helloAccepted`, by ID.
  mutating func proven(_ id: Int) -> Proof? {
    guard let entry = entries[id], case .unauthenticated = entry.stage else { return nil }
    return helloAccepted(address: entry.address, port: entry.port)
  }

  /// Connection `id` is at work (or no longer: a LocalSend connection between requests).
  mutating func engaged(_ id: Int, _ engaged: Bool) {
    entries[id]?.engaged = engaged
  }

  /// Whether `id` is still waiting to prove itself (its Hello deadline still applies).
  func isUnauthenticated(_ id: Int) -> Bool {
    if case .unauthenticated = entries[id]?.stage { return true }
    return false
  }

  /// Whether the connection from `address`:`port` is still waiting to prove itself.
  func isUnauthenticated(address: String, port: UInt16) -> Bool {
    entries.values.contains { entry in
      guard entry.address == address, entry.port == port, case .unauthenticated = entry.stage else { return false }
      return true
    }
  }

  /// The connection ended (or was evicted: then this does nothing).
  mutating func leave(_ id: Int) {
    entries[id] = nil
  }

  /// Unauthenticated connections per address.
  private func unauthenticatedCounts() -> [String: Int] {
    var counts: [String: Int] = [:]
    for entry in entries.values {
      if case .unauthenticated = entry.stage { counts[entry.address, default: 0] += 1 }
    }
    return counts
  }

  /// The connection waiting longest among those from `addresses`.
  private func oldestUnauthenticated(from addresses: Set<String>) -> Int? {
    var oldest: (id: Int, since: ContinuousClock.Instant)? = nil
    for (id, entry) in entries where addresses.contains(entry.address) {
      if case .unauthenticated(let since) = entry.stage, oldest.map({ since < $0.since }) ?? true {
        oldest = (id, since)
      }
    }
    return oldest?.id
  }

  /// The stranger's connection that makes room for a stranger from `address` when strangers
  /// hold every slot they may: the one proven first (the lowest ID: IDs grow) that is not at
  /// work; none when `address` holds as many as one address may (no one's place is taken then).
  private func strangerToEvict(for address: String) -> Int? {
    let stranger = Stage.authenticated(contact: nil)
    guard entries.values.count(where: { $0.address == address && $0.stage == stranger }) < limits.maxConnectionsPerAddress
    else { return nil }
    return entries.filter { !$0.value.engaged && $0.value.stage == stranger }.keys.min()
  }

  /// Why one more authenticated connection from `address` (from the contact with this device
  /// ID, or a stranger) does not fit, or nil.
  private func roomProblem(for address: String, contact: String?) -> String? {
    var (total, strangers, same) = (0, 0, 0)
    for entry in entries.values {
      guard case .authenticated(let device) = entry.stage else { continue }
      total += 1
      if device == nil { strangers += 1 }
      // A stranger counts every connection from its address, a contact those of its device.
      if contact != nil ? device == contact : entry.address == address { same += 1 }
    }
    if same >= limits.maxConnectionsPerAddress {
      return contact == nil
        ? "\(same) connections from your address are already being served"
        : "\(same) connections of yours are already being served"
    }
    let cap = contact != nil ? limits.maxConnections : limits.maxConnections - limits.contactReserve
    if (contact != nil ? total : strangers) >= cap || total >= limits.maxConnections {
      return "the receiver is serving as many connections as it can"
    }
    return nil
  }
}
