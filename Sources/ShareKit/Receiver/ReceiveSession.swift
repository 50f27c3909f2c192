import Foundation
import InboxStore
import TLS
import TextEscaping
import Wire

/// One incoming connection, in sequence: Hello both ways, the Ask (or a request to pair), the
/// Answer from the `AskDecision` and the owner's consent, the payloads of the accepted items
/// (`ItemReceiver`), the Receipt. Runs on its own thread and owns its connection, its buffer and
/// its staging files; nothing in it is shared.
final class ReceiveSession {
  private let connection: FramedConnection
  private let context: SessionContext
  private let policy: ReceivePolicy
  private let address: String
  private let port: UInt16
  private var peer: PeerInfo?
  /// Once bytes are expected: the accepted items' receiver.
  private var items: ItemReceiver?
  /// This session's row in the transfer table, once bytes are expected.
  private var transfer: Int?
  /// Resume keys this session holds, released when it ends.
  private var heldResumeKeys: [String] = []
  /// This session's share of the strangers' or the contacts' Ask budget (`SessionContext`),
  /// released when it ends.
  private var reservedAskBytes = (bytes: 0, stranger: false)
  private var emit: @Sendable (ReceiverEvent) -> Void { context.emit }
  /// Called once the Ask (or a request to pair) came whole: the connection is at work, and no
  /// longer one a stranger's newcomer may take the place of (`Admission.engaged`).
  var engaged: () -> Void = {}

  /// The receive buffer: allocated once per connection, independent of item sizes. Items
  /// under `Payload.largeBytes` gather here and go to disk 256 KiB at a time (larger ones use
  /// the session writer's buffers): 1 MiB cost the daemon 50 MiB with 50 senders at once, for
  /// no speed a smaller write loses.
  private let buffer: UnsafeMutableRawBufferPointer
  static let bufferSize = 256 << 10
  /// The pipeline of the session's large items: its three 512 KiB buffers are made at the first
  /// and kept until the session ends (1.5 MiB more for a session that receives a photo or a
  /// larger file; the 50 senders of 1 MiB items never make them).
  private let writer = SessionWriter()

  init(connection: FramedConnection, address: String, port: UInt16, context: SessionContext, policy: ReceivePolicy) {
    self.connection = connection
    self.address = address
    self.port = port
    self.context = context
    self.policy = policy
    buffer = .allocate(byteCount: ReceiveSession.bufferSize, alignment: 4096)
  }

  deinit {
    buffer.deallocate()
    if let transfer { context.transfers.end(transfer) }
    context.releaseResumeKeys(heldResumeKeys)
    context.releaseAsk(reservedAskBytes.bytes, stranger: reservedAskBytes.stranger)
  }

  /// Runs the exchange. Whatever happens, verified items are placed before this returns.
  func run() {
    do {
      try exchange()
      connection.close()
    } catch let answered as Answered {
      emit(.connectionFailed(address: address, peer: peer, error: .refusedHere(message: answered.refusal.message)))
      connection.close()
    } catch let refusal as Refusal {
      emit(.connectionFailed(address: address, peer: peer, error: .refusedHere(message: refusal.message)))
      connection.fail(code: refusal.code, message: refusal.message)
    } catch {
      items?.commit()
      let failure = ShareError.wrap(error)
      emit(.connectionFailed(address: address, peer: peer, error: failure))
      switch error {
      case let wire as WireError:
        connection.fail(code: wire.isVersionMismatch ? "version" : "protocol", message: wire.description)
      default:
        connection.close()
      }
    }
  }

  /// A refusal already sent to the peer: the connection only closes.
  private struct Answered: Error {
    let refusal: Refusal
  }

  /// How many plans are received before their storage is let go.
  static let planTurn = 256

  private func exchange() throws {
    guard let peer = try greet() else { return }
    guard let ask = try receiveAsk(from: peer) else { return }
    let book = ReceiptBook(peer: peer, offered: ask.items.map(\.id), emit: emit)
    // The plans only: the Ask (the Receipt needs none of it) and the decision's copies of the
    // offers go before the bytes come. In turns, each let go once received: 5,000 plans are
    // 1.5 MB (304 bytes each, and their strings), which stayed to the Receipt, where the
    // receiving daemon's memory peaks (massif).
    let plans = try answer(consume ask, from: peer, book: book).accepted
    let items = ItemReceiver(channel: channel, peer: peer, book: book, itemCount: plans.count, emit: emit)
    self.items = items
    var turns = stride(from: 0, to: plans.count, by: Self.planTurn).map { Array(plans[$0..<min($0 + Self.planTurn, plans.count)]) }
    _ = consume plans
    for turn in turns.indices {
      for plan in turns[turn] { try items.receive(plan) }
      turns[turn] = []
    }
    items.commit()
    try connection.sendNow(.receipt(book.receipt()))
    emit(.finished(peer, stored: book.counts.stored, refused: book.counts.refused, failed: book.counts.failed))
  }

  /// The Ask, within the budget of large asks (a stranger's smaller); nil when the peer asked
  /// to pair instead, which is then answered.
  private func receiveAsk(from peer: PeerInfo) throws -> Ask? {
    let stranger = context.gatekeeper.map { !$0.trust.trusts(peer.fingerprint) && peer.fingerprint != context.device.fingerprint } ?? false
    let message = try connection.receiveMessage(expecting: "Ask") { length in
      // Answered first, then read through and dropped: a sender still writing it hears why
      // (review 44: a stranger's 40,000 files ended in "the connection was closed"), and a
      // peer that declares it and sends nothing hears at once.
      if stranger, length > SessionContext.strangerAskLimit {
        let refusal = Refusal(
          code: "too-large",
          message:
            "an offer from a device this one does not know may be at most \(SessionContext.strangerAskLimit >> 20) MiB, and this one is \(Double(length * 10 >> 20) / 10) MiB: send fewer items at once, or pair first ('share pair')"
        )
        try? connection.sendNow(.failure(Failure(code: refusal.code, message: PeerText(refusal.message))))
        throw Answered(refusal: refusal)
      }
      guard length > SessionContext.smallAsk else { return }
      guard context.reserveAsk(length, stranger: stranger) else {
        let others = stranger ? "other large asks are waiting for an answer" : "other large asks are being received"
        throw Refusal(code: "busy", message: "\(others); try again in a moment")
      }
      reservedAskBytes = (length, stranger)
    }
    engaged()
    switch message {
    case .ask(let offered): return offered
    case .pair(let pair):
      try PairingRequest(connection: connection, context: context, peer: peer, exchange: pair.exchange).answer()
      return nil
    case let other: throw WireError.unexpected(expected: "Ask", got: "a \(other.typeName) message")
    }
  }

  /// Hello both ways: the peer's must speak this version and name the certificate it presented,
  /// and the gatekeeper must admit it. Nil when the peer closed the connection cleanly before saying anything (it only checked
  /// this device's certificate, as `share peers` does): nothing to log.
  private func greet() throws -> PeerInfo? {
    // A Hello is a name, an ID and a summary: a few hundred bytes, read before anything is proven.
    guard let first = try connection.receiveFirstMessage(expecting: "Hello", maxBytes: Hello.maxBytes) else { return nil }
    guard case .hello(let hello) = first else {
      throw WireError.unexpected(expected: "Hello", got: "another message")
    }
    let fingerprint = connection.tls.peerFingerprint
    var peer = PeerInfo(fingerprint: fingerprint, name: hello.name, address: address, port: port)
    if let identified = context.gatekeeper?.identify(fingerprint, calling: hello.name) {
      (peer.contactName, peer.posedAs) = identified
    }
    self.peer = peer
    guard hello.version == protocolVersion else {
      throw WireError.versionMismatch(ours: protocolVersion, theirs: hello.version)
    }
    guard Fingerprint(hex: hello.id) == fingerprint else { throw WireError.identityMismatch }
    if let refusal = context.gatekeeper?.admit(fingerprint) ?? context.gatekeeper?.budgetSpent(fingerprint, address: address) {
      throw refusal
    }
    emit(.connected(peer))
    let device = context.device
    try connection.sendNow(.hello(Hello(name: PeerText(device.name), id: device.fingerprint.hex, accepts: policy.summary)))
    return peer
  }

  /// Decides on the Ask, asks the owner when the gatekeeper wants it, claims the staging of
  /// resumable items, and sends the Answer. Refusals go into `book` as they are made.
  private func answer(_ ask: Ask, from peer: PeerInfo, book: ReceiptBook) throws -> AskDecision {
    // Counted before it is validated: an invalid Ask costs its decoding and validation too
    // (review 34: 137 invalid 4 MB Asks in 20 s, none counted).
    let cost = ask.items.reduce(0) { $0 + 1 + ($1.entries?.count ?? 0) }
    if let refusal = context.gatekeeper?.beforeJudging(peer.fingerprint, address: address, cost: cost) { throw refusal }
    let valid = try ask.validate(limits: connection.limits)
    let (senderId, store) = (peer.fingerprint.hex, context.store)
    var decision = AskDecision(valid, policy: policy, space: context.reserve.space) { offer in
      AskDecision.resumeRecord(offer, senderId: senderId).map { store.resumableOffset(for: $0, discarding: false) } ?? 0
    }
    book.refusedAll(decision.refused.map { ($0.offer, $0.refusal.reason, $0.type) })
    if decision.acceptedCount > 0, let refusal = consent(to: decision, from: peer) {
      book.refusedAll(decision.decline(refusal.message).map { ($0.offer, refusal.message, $0.type) })
    }
    for (id, record) in decision.resumable(senderId: peer.fingerprint.hex) where context.holdResumeKey(record.stem) {
      heldResumeKeys.append(record.stem)
      decision.resume(id, record: record, offset: context.store.resumableOffset(for: record))
    }
    let answer = decision.answer
    emit(.asked(peer, items: ask.items, answers: answer.items))
    try connection.sendNow(.answer(answer))
    if decision.acceptedCount > 0 {
      transfer = context.transfers.begin(
        peerName: peer.name, contactName: peer.contactName, peerId: peer.fingerprint.hex, items: decision.acceptedCount,
        bytes: decision.expectedBytes, sizeUnknown: decision.hasUnknownSize)
    }
    return decision
  }

  /// The owner's consent through the gatekeeper (the sender is told it waits, and its leaving
  /// withdraws the ask), or why not.
  private func consent(to decision: AskDecision, from peer: PeerInfo) -> Refusal? {
    guard let gatekeeper = context.gatekeeper else { return nil }
    let connection = self.connection
    // While the ask waits, the connection is watched: a sender that goes away withdraws it.
    var watch: PeerWatch? = nil
    defer { watch?.stop() }
    return gatekeeper.consent(
      peerName: peer.name, peer: peer.fingerprint, address: address, items: decision.askedItems(types: policy.types),
      offered: decision.items.map(\.offer)
    ) { ask, senderLeft in
      let seconds = Int(gatekeeper.askTimeout / .seconds(1))
      try? connection.sendNow(
        .wait(Wait(message: PeerText("waiting for the receiver's owner to accept (ask \(ask.id))"), timeout: seconds)))
      watch = PeerWatch(connection.tls, departed: senderLeft)
    }
  }

  /// Where payloads come from and go: this connection and buffer, the Inbox, the transfer row.
  private var channel: PayloadChannel {
    let transfers = context.transfers
    let transfer = self.transfer
    return PayloadChannel(
      connection: connection, buffer: buffer, writer: writer, store: context.store, policy: policy, reserve: context.reserve,
      progress: { bytes in if let transfer { transfers.add(transfer, bytes: bytes) } })
  }
}

extension WireError {
  var isVersionMismatch: Bool {
    if case .versionMismatch = self { return true }
    return false
  }
}
