import Dispatch
import Foundation
import Synchronization
import TLS
import TextEscaping
import Wire

/// Why a connection or an ask is refused, with the code the peer gets.
package struct Refusal: Error, Sendable, Equatable {
  package var code: String
  package var message: String
}

/// Decides who may ask and whether an ask goes ahead: the receive mode, the contacts, and the
/// person's consent. Sessions call it from their own threads and may block in `consent` until
/// the person answers (`decide`) or the ask times out.
///
/// Ask spam (AirDoS) is bounded: at most `maxPendingPerPeer` asks waiting per peer,
/// `maxPendingPerAddress` per address (a certificate costs nothing, an address more) and
/// `maxPending` in all; an ask identical to one already waiting (same peer, same items) is folded
/// into it, on at most `maxConnectionsPerAsk` connections (review 17: 48 connections folded into
/// one ask held every stranger's slot, none of them evictable while it waited); and over time
/// by `AskRate`. The excess is refused with a reason, without bothering the person.
package final class Gatekeeper: Sendable {
  private struct Entry {
    var ask: PendingAsk
    var key: String
    var decision: Bool? = nil
    /// Declined because nobody answered in time (not by the person).
    var expired = false
    /// Declined because the mode changed to one that refuses it: why (`declineWhatTheModeRefuses`).
    var refusedByMode: String? = nil
    var waiters: [Waiter] = []
    /// Accepted and gone ahead on one of its connections: the others are not needed.
    var taken = false
  }

  private struct State {
    var mode: ModeSetting
    var trust: TrustStore
    /// This device's own ID: its own sends (to its daemon's HOST:PORT, to try it out) are a
    /// contact's, proven by the same key (review 16: they waited for the owner to accept).
    var own: Fingerprint?
    /// This device's own name: a sender calling itself so, or like it, is marked (review 29).
    var ownName: String?
    var entries: [Int: Entry] = [:]
    /// Asks withdrawn because their senders went away, the latest few, so that accepting one
    /// says it is gone rather than that it never was.
    var withdrawn: [PendingAsk] = []
    var nextID = 1
    var closing = false
    var rate = AskRate()
    /// Every Ask received from a peer that may have to ask, counted before it is judged.
    var received = AskRate(
      perPeer: 4 * AskRate.perPeer, perAddress: 4 * AskRate.perAddress, costPerPeer: Gatekeeper.judgedPerPeer,
      costPerAddress: 2 * Gatekeeper.judgedPerPeer)
  }

  private let state: Mutex<State>
  package let askTimeout: Duration
  package let maxPendingPerPeer: Int
  package let maxPending: Int
  /// Asks waiting from one address, whatever IDs they come with.
  package static let maxPendingPerAddress = 4
  /// Connections one waiting ask is held on: the first and a sender's second try.
  package static let maxConnectionsPerAsk = 2
  /// Called when a new ask starts waiting (for a notification).
  private let onPending: @Sendable (PendingAsk) -> Void
  /// Called when an ask is withdrawn because every connection waiting on it went away.
  private let onWithdrawn: @Sendable (PendingAsk) -> Void
  /// How many withdrawn asks `withdrawn(_:)` remembers.
  private static let withdrawnRemembered = 32

  package init(
    mode: ModeSetting, trust: TrustStore, askTimeout: Duration = .seconds(120), maxPendingPerPeer: Int = 2,
    maxPending: Int = 16, onPending: @escaping @Sendable (PendingAsk) -> Void = { _ in },
    onWithdrawn: @escaping @Sendable (PendingAsk) -> Void = { _ in }, own: Fingerprint? = nil, ownName: String? = nil
  ) {
    state = Mutex(State(mode: mode, trust: trust, own: own, ownName: ownName))
    self.askTimeout = askTimeout
    self.maxPendingPerPeer = maxPendingPerPeer
    self.maxPending = maxPending
    self.onPending = onPending
    self.onWithdrawn = onWithdrawn
  }

  // MARK: Mode and contacts

  package var mode: ModeSetting { state.withLock { $0.mode } }

  package func set(mode: ModeSetting) {
    state.withLock { $0.mode = mode }
    declineWhatTheModeRefuses()
  }

  /// Declines the waiting asks the mode in force refuses (review 39: asks waiting when the
  /// owner turned receiving off, or when `everyone --for` ran out, could still be accepted):
  /// every ask in mode off, a stranger's (or a pairing) in mode contacts. Their senders are told.
  private func declineWhatTheModeRefuses() {
    let waiters = state.withLock { state -> [Waiter] in
      let mode = state.mode.effective()
      guard mode != .everyone else { return [] }
      var woken: [Waiter] = []
      for (id, entry) in state.entries where entry.decision == nil {
        let contact = Fingerprint(hex: entry.ask.peerId).map { state.trust.trusts($0) } ?? false
        guard mode == .off || entry.ask.pairingCode != nil || !contact else { continue }
        state.entries[id]?.decision = false
        state.entries[id]?.refusedByMode =
          mode == .off
          ? "the receiver stopped receiving (mode off) while the ask waited"
          : "the receiver takes sends from its contacts only now (mode contacts), and the ask waited from a stranger"
        woken += entry.waiters
      }
      return woken
    }
    waiters.forEach { $0.semaphore.signal() }
  }

  package var trust: TrustStore { state.withLock { $0.trust } }

  package func set(trust: TrustStore) { state.withLock { $0.trust = trust } }

  /// Refuses every new ask and declines the waiting ones (shutdown).
  package func close() {
    let waiting = state.withLock { state -> [Waiter] in
      state.closing = true
      var all: [Waiter] = []
      for (id, entry) in state.entries where entry.decision == nil {
        state.entries[id]?.decision = false
        all += entry.waiters
      }
      return all
    }
    waiting.forEach { $0.semaphore.signal() }
  }

  /// Who a sender that proved `peer` and calls itself `name` is to this home: a contact, by its
  /// own name here; or a stranger, and the contact whose name (or one like it) it uses, if any.
  /// Kept with what it sends, so the Inbox shows who it was rather than what it said (review 15).
  package func identify(_ peer: Fingerprint, calling name: PeerText) -> (contactName: PeerText?, posedAs: PeerText?) {
    state.withLock { $0.trust.identify(peer, calling: name) }
  }

  /// Whether a peer may ask at all, right after its Hello: nil, or the refusal.
  package func admit(_ peer: Fingerprint) -> Refusal? {
    state.withLock { state in
      if state.closing { return Refusal(code: "shutdown", message: "the receiver is shutting down") }
      switch state.mode.effective() {
      case .off:
        return Refusal(code: "refused", message: "the receiver is not receiving (receive mode off)")
      case .contacts where !state.trust.trusts(peer) && peer != state.own:
        return Refusal(
          code: "refused", message: "the receiver accepts only its contacts; ask its owner to trust you or to receive from everyone")
      default:
        return nil
      }
    }
  }

  /// Items and folder entries of a stranger's Asks judged a minute, from one peer (twice that
  /// from one address); the Ask that passes it is judged whole, the next one waits.
  package static let judgedPerPeer = 20_000

  /// Whether an Ask from `peer` at `address`, of `cost` items and entries, may be judged at all:
  /// nil, or why not. A peer that has to ask gets a budget of Asks received a minute, refused
  /// ones included — four times the new asks it may start, and `judgedPerPeer` items (review 31:
  /// an Ask of 60,000 items was judged in full, 2 s of CPU, before `consent` answered "busy";
  /// refused asks were never counted, so two connections kept the daemon's cores busy).
  /// Contacts that need no asking, and this device, are not counted.
  package func beforeJudging(_ peer: Fingerprint, address: String, cost: Int = 1) -> Refusal? {
    state.withLock { state in
      if peer == state.own || state.trust.peer(peer).map({ !$0.ask }) == true { return nil }
      return state.received.admit(peer: peer.hex, address: address, cost: max(1, cost))
    }
  }

  /// Whether `peer` at `address` has spent its budget of Asks already (`beforeJudging`), looked
  /// at right after its Hello without counting: a spent one is refused before its next Ask's
  /// bytes are read (review 31: refused after its Ask was read, a 4 MB Ask decoded and validated
  /// each time still cost the daemon a core).
  package func budgetSpent(_ peer: Fingerprint, address: String) -> Refusal? {
    state.withLock { state in
      if peer == state.own || state.trust.peer(peer).map({ !$0.ask }) == true { return nil }
      return state.received.refusal(peer: peer.hex, address: address)
    }
  }

  /// Whether an ask from `peer` goes ahead. A contact that needs no asking goes ahead at once;
  /// otherwise the ask waits, folded with an identical one, until the person accepts or
  /// declines it, it times out, or its sender goes away. Returns nil to proceed, or why not.
  ///
  /// `willWait` runs once the ask waits, with the ask and a function to call when the sender
  /// goes away (it may be called from any thread): its connection stops waiting at once, and
  /// an ask no connection waits on any more is withdrawn — gone from `pending`, and `decide`
  /// finds nothing to accept.
  /// `verified` is false for a sender that proved no ID (`peer` is then a random one).
  /// `claimedName` is the name the sender gave itself when `peerName` adds to it (a LocalSend
  /// alias shown as "alias (LocalSend)"): the one compared with the contacts' names;
  /// `claimedId` the ID an unverified sender claims, shown with the ask.
  package func consent(
    peerName: PeerText, claimedName: PeerText? = nil, claimedId: String? = nil, peer: Fingerprint, address: String,
    items: @autoclosure () -> [AskedItem], offered: @autoclosure () -> [ItemOffer] = [], pairingCode: String? = nil,
    verified: Bool = true,
    willWait: (PendingAsk, _ senderLeft: @escaping @Sendable () -> Void) -> Void = { _, _ in }
  ) -> Refusal? {
    // A contact that needs no asking goes through without its items listed (5,000 of them
    // were a fifth of a trusted send's ask on the receiver); `register` decides again, under
    // the same lock, for everyone else.
    if pairingCode == nil, state.withLock({ !$0.closing && $0.trust.peer(peer).map { !$0.ask } == true }) { return nil }
    let items = items()
    let waiter = Waiter()
    let id: Int
    let asker = Asker(
      name: peerName, claimedName: claimedName ?? peerName, claimedId: verified ? nil : claimedId, id: peer, address: address,
      verified: verified)
    let key = Self.foldKey(peer, items: items, offered: offered())
    switch register(waiter, asker, items: items, key: key, pairingCode: pairingCode) {
    case .failure(let refusal): return refusal
    case .success(let (entry, new)):
      if entry == 0 { return nil }
      id = entry
      if let new { onPending(new) }
      if let ask = state.withLock({ $0.entries[entry]?.ask }) { willWait(ask) { [weak self] in self?.leave(waiter, from: entry) } }
    }
    // Woken each second to see whether the mode still lets the ask wait (`everyone --for` runs out).
    let deadline = DispatchTime.now() + .nanoseconds(Int(askTimeout / .nanoseconds(1)))
    var timedOut = false
    while waiter.semaphore.wait(timeout: min(deadline, .now() + .seconds(1))) == .timedOut {
      if DispatchTime.now() >= deadline {
        timedOut = true
        break
      }
      declineWhatTheModeRefuses()
    }
    return outcome(of: id, for: waiter, timedOut: timedOut)
  }

  /// Who asks, as its connection knows it.
  private struct Asker {
    var name: PeerText
    /// The name it gave itself (see `consent`), and the ID when it proved none.
    var claimedName: PeerText
    var claimedId: String?
    var id: Fingerprint
    var address: String
    var verified: Bool
  }

  /// One connection waiting on an ask: woken by a decision, by `close()`, or by its sender
  /// leaving (`left`, set under the state's lock); or it times out.
  private final class Waiter: Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    let left = Atomic<Bool>(false)
  }

  /// Adds `waiter` to an identical ask already waiting, or to a new one; returns its ID (0: a
  /// contact that needs no asking) and the new ask, or why it is refused.
  private func register(
    _ waiter: Waiter, _ asker: Asker, items: [AskedItem], key: String, pairingCode: String?
  ) -> Result<(id: Int, new: PendingAsk?), Refusal> {
    let peer = asker.id
    return state.withLock { state -> Result<(id: Int, new: PendingAsk?), Refusal> in
      if state.closing { return .failure(Refusal(code: "shutdown", message: "the receiver is shutting down")) }
      if pairingCode == nil, peer == state.own || state.trust.peer(peer).map({ !$0.ask }) == true { return .success((0, nil)) }
      if let (id, entry) = state.entries.first(where: { $0.value.key == key && $0.value.decision == nil }) {
        guard entry.ask.connections < Self.maxConnectionsPerAsk else {
          return .failure(Refusal(code: "busy", message: "this ask is already waiting for an answer on another connection"))
        }
        state.entries[id]?.waiters.append(waiter)
        state.entries[id]?.ask.connections += 1
        return .success((id, nil))
      }
      let waitingFromPeer = state.entries.values.filter { $0.ask.peerId == peer.hex && $0.decision == nil }.count
      if waitingFromPeer >= maxPendingPerPeer {
        return .failure(Refusal(code: "busy", message: "too many asks from you are already waiting for an answer"))
      }
      let waitingFromAddress = state.entries.values.filter { $0.ask.address == asker.address && $0.decision == nil }.count
      if waitingFromAddress >= Self.maxPendingPerAddress {
        return .failure(Refusal(code: "busy", message: "too many asks from your address are already waiting for an answer"))
      }
      if state.entries.values.filter({ $0.decision == nil }).count >= maxPending {
        return .failure(Refusal(code: "busy", message: "too many asks are waiting for an answer; try again later"))
      }
      if let refusal = state.rate.admit(peer: peer.hex, address: asker.address) { return .failure(refusal) }
      let id = state.nextID
      state.nextID += 1
      let now = Date()
      var ask = PendingAsk(
        id: id, peerName: asker.name, peerId: peer.hex, address: asker.address,
        items: Array(items.prefix(PendingAsk.listedItems)), itemCount: items.count, askedAt: now,
        expiresAt: now.addingTimeInterval(askTimeout / .seconds(1)), connections: 1, pairingCode: pairingCode)
      ask.unverified = asker.verified ? nil : true
      ask.claimedId = asker.claimedId
      let contact = state.trust.contact(sharingNameWith: asker.claimedName, other: peer)
      ask.posedAsId = contact?.id.hex
      ask.posedAs = contact?.name
      if peer != state.own, let ownName = state.ownName, KnownIdentities.looksAlike(asker.claimedName.unescaped, ownName) {
        ask.posesAsThisDevice = PeerText(ownName)
      }
      ask.contactName = asker.verified ? state.trust.peer(peer)?.name : nil
      state.entries[id] = Entry(ask: ask, key: key, waiters: [waiter])
      return .success((id, ask))
    }
  }

  /// `waiter`'s sender went away: it stops waiting, and an ask no connection waits on any more
  /// is withdrawn at once.
  private func leave(_ waiter: Waiter, from id: Int) {
    let withdrawn = state.withLock { state -> PendingAsk? in
      waiter.left.store(true, ordering: .relaxed)
      guard let entry = state.entries[id], entry.decision == nil else { return nil }
      guard entry.waiters.allSatisfy({ $0.left.load(ordering: .relaxed) }) else {
        state.entries[id]?.ask.connections -= 1
        return nil
      }
      state.entries[id] = nil
      state.withdrawn.append(entry.ask)
      if state.withdrawn.count > Self.withdrawnRemembered { state.withdrawn.removeFirst() }
      return entry.ask
    }
    waiter.semaphore.signal()
    if let withdrawn { onWithdrawn(withdrawn) }
  }

  /// What became of an ask for one connection waiting on it.
  private enum Outcome {
    case accepted, alreadyTaken, declined, withdrawn, unanswered
    case refusedByMode(String)
  }

  /// What became of ask `id` for `waiter` once it woke (or timed out); `waiter` stops waiting
  /// on it, and an ask nobody waits on any more goes.
  private func outcome(of id: Int, for waiter: Waiter, timedOut: Bool) -> Refusal? {
    let outcome = state.withLock { state -> Outcome in
      defer {
        state.entries[id]?.waiters.removeAll { $0 === waiter }
        if state.entries[id]?.waiters.isEmpty == true { state.entries[id] = nil }
      }
      if waiter.left.load(ordering: .relaxed) { return .withdrawn }
      switch state.entries[id]?.decision {
      case true?:
        // One consent, one delivery (review 49: one accept of a folded ask stored a note twice).
        if state.entries[id]?.taken == true { return .alreadyTaken }
        state.entries[id]?.taken = true
        return .accepted
      case false?:
        if let why = state.entries[id]?.refusedByMode { return .refusedByMode(why) }
        return state.entries[id]?.expired == true ? .unanswered : .declined
      case nil:
        if timedOut {
          // The ask's time is up for every connection folded into it, with the same reason
          // (review 18: the second was told "declined by the receiver").
          state.entries[id]?.decision = false
          state.entries[id]?.expired = true
          for other in state.entries[id]?.waiters ?? [] where other !== waiter { other.semaphore.signal() }
        }
        return .unanswered
      }
    }
    switch outcome {
    case .accepted: return nil
    case .alreadyTaken: return Refusal(code: "declined", message: "accepted, and received on another connection of yours")
    case .declined:
      return Refusal(
        code: "declined", message: state.withLock { $0.closing } ? "the receiver is shutting down" : "declined by the receiver")
    case .withdrawn:
      return Refusal(code: "declined", message: "withdrawn: the sender went away")
    case .unanswered:
      return Refusal(code: "declined", message: "declined: nobody answered within \(Int(askTimeout / .seconds(1))) seconds")
    case .refusedByMode(let why):
      return Refusal(code: "refused", message: why)
    }
  }

  /// The asks waiting for the person, oldest first.
  package var pending: [PendingAsk] {
    declineWhatTheModeRefuses()
    return state.withLock { $0.entries.values.filter { $0.decision == nil }.map(\.ask).sorted { $0.id < $1.id } }
  }

  /// The ask with ID `id` if it was withdrawn because its sender went away (one of the latest
  /// few): what `share accept` of it is told.
  package func withdrawn(_ id: Int) -> PendingAsk? {
    state.withLock { $0.withdrawn.last { $0.id == id } }
  }

  /// Accepts or declines a waiting ask; nil when there is none with that ID (never was,
  /// decided already, or withdrawn because its sender went away: see `withdrawn(_:)`).
  package func decide(_ id: Int, accept: Bool) -> PendingAsk? {
    // Not one the mode refuses by now, between two of its waiters' looks (review 40).
    declineWhatTheModeRefuses()
    let (ask, waiters) = state.withLock { state -> (PendingAsk?, [Waiter]) in
      guard let entry = state.entries[id], entry.decision == nil else { return (nil, []) }
      state.entries[id]?.decision = accept
      return (entry.ask, entry.waiters)
    }
    waiters.forEach { $0.semaphore.signal() }
    return ask
  }
}
