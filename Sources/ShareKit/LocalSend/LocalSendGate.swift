import Foundation
import InboxStore
import LocalSend
import Synchronization
import TLS
import TextEscaping
import Wire

/// What the LocalSend receiver shares with share's own: the Inbox, the disk reserve, the
/// gatekeeper, the current policy, and where events go.
struct LocalSendContext: Sendable {
  let store: InboxStore
  let reserve: DiskReserve
  let gatekeeper: Gatekeeper
  /// The policy in force now (the daemon replaces it on reload).
  let policy: @Sendable () -> ReceivePolicy
  let emit: @Sendable (ReceiverEvent) -> Void
  /// Where `share status` sees transfers in flight (the daemon's, shared with share's receiver).
  var transfers = TransferTable()
  /// What large asks and offers hold now (shared with share's receiver).
  var askBudget = AskBudget()
  /// LocalSend connections open now, told as they end (for giving memory back at none).
  var connectionsChanged: @Sendable (Int) -> Void = { _ in }
}

/// The daemon's `LocalSendDelegate`: every offered file goes through the same gate as a share
/// ask. The receive mode and contacts (`Gatekeeper.admit`), the one policy (`AskDecision`: name,
/// size, type by name, free space), the person's consent for a stranger (`share requests`,
/// `share accept N`), then each accepted file's bytes through `LocalSendUpload` (type by
/// content, reserve, durable no-replace placement). Refusals go back as 403 with the reason.
///
/// Methods run on the LocalSend server's connection threads; the sessions' plans live in a
/// `Mutex`.
final class LocalSendGate: LocalSendDelegate {
  private struct Session {
    var sender: LocalSendSender
    var policy: ReceivePolicy
    /// The accepted files' plans, by LocalSend file ID.
    var plans: [String: ItemPlan]
    /// Its row in the transfer table.
    var transfer: Int
    /// Files refused by name when offered, and by content as they arrived.
    var refusedByName: Int
    var refusedByContent = 0
  }

  private let context: LocalSendContext
  private let sessions = Mutex<[String: Session]>([:])
  private let registered: @Sendable (RemoteSender) -> Void
  private let note: @Sendable (String) -> Void

  /// `registered`: a device that registered with this one (for `share peers`); `note`: a line
  /// for the daemon's log.
  init(
    context: LocalSendContext, note: @escaping @Sendable (String) -> Void = { _ in },
    registered: @escaping @Sendable (RemoteSender) -> Void = { _ in }
  ) {
    self.context = context
    self.note = note
    self.registered = registered
  }

  func localSend(registered sender: RemoteSender) { registered(sender) }

  func localSend(wrongPins failures: Int, fromAddresses addresses: Int) {
    note(
      "LocalSend: \(failures) wrong PINs within a minute from \(addresses) address\(addresses == 1 ? "" : "es"): "
        + "every PIN is refused for a minute (someone may be guessing it)")
  }

  /// The receive mode before a stranger's offer is read, and a large offer's share of the ask
  /// budget while it is read and decided (a contact's from the contacts' budget).
  func localSend(mayOffer address: String, certificate: LocalSendFingerprint?, length: Int) -> OfferAdmission {
    let gatekeeper = context.gatekeeper
    let proven = certificate.flatMap { Fingerprint(bytes: $0.bytes) }
    let contact = proven.flatMap { gatekeeper.trust.trusts($0) ? $0 : nil }
    if let refusal = gatekeeper.admit(contact ?? LocalSendSender.stranger()) {
      // Logged as a refusal after reading the offer was (its alias unread: the certificate's ID).
      let peer = PeerInfo(
        fingerprint: proven ?? LocalSendSender.stranger(), name: PeerText("LocalSend sender"), address: address, port: 0,
        verified: proven != nil)
      context.emit(.connectionFailed(address: address, peer: peer, error: .refusedHere(message: refusal.message)))
      return .refuse(refusal.message)
    }
    // A sender whose ask budget is spent (`localSend(decide:)`) waits before its offer is read.
    if let spent = gatekeeper.budgetSpent(contact ?? proven ?? LocalSendSender.stranger(), address: address) {
      return .busy(spent.message)
    }
    guard length > SessionContext.smallAsk else { return .proceed(release: {}) }
    let budget = context.askBudget
    guard budget.reserve(length, stranger: contact == nil) else {
      return .busy("other large offers are being decided; try again in a moment")
    }
    return .proceed { budget.release(length, stranger: contact == nil) }
  }

  func localSend(connections active: Int) { context.connectionsChanged(active) }

  func localSend(isContact certificate: LocalSendFingerprint) -> Bool {
    Fingerprint(bytes: certificate.bytes).map(context.gatekeeper.trust.trusts) ?? false
  }

  func localSend(decide offer: IncomingOffer, cancellation: OfferCancellation) -> OfferDecision {
    let sender = LocalSendSender(offer.sender)
    let gatekeeper = context.gatekeeper
    if let refusal = gatekeeper.admit(sender.gateID) { return refuse(refusal.message, sender) }
    // Counted before it is judged, as a share sender's Ask (review 34: 20 offers of 4,096
    // refused files on one connection, 82,000 log lines and 10 s of CPU, never counted). An
    // unverified sender's ID is new each time: its address's budget holds it.
    if let refusal = gatekeeper.beforeJudging(sender.gateID, address: sender.address, cost: offer.files.count) {
      return refuse(refusal.message, sender)
    }
    context.emit(.connected(sender.peer))
    let policy = context.policy()
    let ask = LocalSendOfferMapping(offer.files)
    let valid: ValidatedAsk
    do {
      valid = try ask.ask.validate(limits: .default)
    } catch {
      return refuse("invalid offer: \(error)", sender)
    }
    let decision = AskDecision(valid, policy: policy, space: context.reserve.space)
    logRefusals(decision.refused.map { ($0.offer, $0.refusal.reason) }, sender)
    guard decision.acceptedCount > 0 else {
      let reasons = decision.refused.prefix(Self.namedRefusals).map { "\($0.offer.name): \($0.refusal.reason)" }
      let more = decision.refused.count - reasons.count
      return refuse(reasons.joined(separator: "; ") + (more > 0 ? "; and \(more) more" : ""), sender)
    }
    let refusal = gatekeeper.consent(
      peerName: sender.displayName, claimedName: sender.alias, claimedId: sender.claimedFingerprint.unescaped, peer: sender.gateID,
      address: sender.address,
      items: decision.askedItems(types: policy.types), offered: decision.items.map(\.offer),
      verified: sender.proven
    ) {
      _, senderLeft in
      // The sender cancelling, or the server stopping, is its sender going away: the ask is
      // withdrawn (as a share sender's that hangs up), not declined.
      cancellation.onCancel(senderLeft)
    }
    if let refusal { return refuse(refusal.message, sender) }
    var plans: [String: ItemPlan] = [:]
    for plan in decision.accepted { plans[ask.fileID(plan.offer.id)] = plan }
    let transfer = context.transfers.begin(
      peerName: sender.displayName, peerId: sender.gateID.hex, items: plans.count, bytes: decision.expectedBytes)
    sessions.withLock {
      $0[offer.sessionID] = Session(
        sender: sender, policy: policy, plans: plans, transfer: transfer, refusedByName: decision.refused.count)
    }
    return .accept(Set(plans.keys))
  }

  func localSend(open file: AcceptedFile) throws(UploadRefusal) -> any UploadSink {
    guard let session = sessions.withLock({ $0[file.sessionID] }), let plan = session.plans[file.offer.id] else {
      throw UploadRefusal(.failed, "no such file in this session")
    }
    let sessionID = file.sessionID
    return try LocalSendUpload(
      plan: plan, sender: session.sender, policy: session.policy, context: context, transfer: session.transfer
    ) { [weak self] in self?.sessions.withLock { $0[sessionID]?.refusedByContent += 1 } }
  }

  func localSend(sessionEnded sessionID: String, _ end: SessionEnd) {
    guard let session = sessions.withLock({ $0.removeValue(forKey: sessionID) }) else { return }
    context.transfers.end(session.transfer)
    switch end {
    case .finished(let stored, let failed):
      // The server counts a file refused on its content among the failed.
      let refused = session.refusedByName + session.refusedByContent
      context.emit(
        .finished(
          session.sender.peer, stored: stored.count, refused: refused, failed: max(0, failed.count - session.refusedByContent)))
    case .blocked:
      context.emit(
        .connectionFailed(
          address: session.sender.address, peer: session.sender.peer,
          error: .transport(
            "accepted while another LocalSend session was uploading; the sender was told to try again (409)",
            detail: "localsend")))
    case .cancelledBySender, .expired, .serverStopped:
      context.emit(
        .connectionFailed(
          address: session.sender.address, peer: session.sender.peer,
          error: .transport("the LocalSend session ended: \(end)", detail: "localsend")))
    }
  }

  /// Refused files named in the reason an offer is refused with; the rest are counted.
  static let namedRefusals = 10

  /// The offer's refused files for this machine's log, past the first hundred in one line
  /// (review 34: an offer of 4,096 refused files was 4,096 lines).
  private func logRefusals(_ refused: [(offer: ItemOffer, reason: String)], _ sender: LocalSendSender) {
    var log = ItemLogFold(limit: ReceiptBook.loggedRefusals)
    for (offer, reason) in refused where log.admit(.refused, reason: reason) {
      context.emit(.refused(sender.peer, item: offer, reason: reason))
    }
    if let more = log.take().refused { context.emit(.refusedMore(sender.peer, count: more.count, reason: more.first)) }
  }

  private func refuse(_ reason: String, _ sender: LocalSendSender) -> OfferDecision {
    context.emit(
      .connectionFailed(
        address: sender.address, peer: sender.peer, error: .refusedHere(message: reason)))
    return .refuse(reason)
  }
}

/// A LocalSend offer in the terms of share's policy: an `Ask` whose items are the offered files
/// (numbered in the offer's stable order), and the way back from item numbers to file IDs.
struct LocalSendOfferMapping: Sendable {
  let ask: Ask
  private let ids: [String]

  init(_ files: [FileOffer]) {
    ids = files.map(\.id)
    ask = Ask(
      items: files.enumerated().map { index, file in
        ItemOffer(id: index, kind: .file, name: PeerText(file.fileName), size: file.size, type: file.fileType)
      })
  }

  /// The LocalSend file ID of item `id`.
  func fileID(_ id: Int) -> String { ids[id] }
}
