import Dispatch
import Foundation
import InboxStore
import Synchronization
import TLS
import UniformTypes
import Wire

/// One incoming connection, from the peer's Hello to the Receipt. Runs on its own thread and
/// owns its connection, its buffer and its staging files; nothing in it is shared.
final class ReceiveSession {
  private let connection: FramedConnection
  private let context: SessionContext
  private let policy: ReceivePolicy
  private let address: String
  private let port: UInt16
  private var peer: PeerInfo?
  private var device: Device { context.device }
  private var store: InboxStore { context.store }
  private var emit: @Sendable (ReceiverEvent) -> Void { context.emit }
  /// This session's row in the transfer table, once bytes are expected.
  private var transfer: Int?
  /// Resume keys this session holds, released when it ends.
  private var heldResumeKeys: [String] = []
  /// Few items: each is flushed with its own fdatasync, which costs well under a millisecond,
  /// whereas one syncfs would also wait for whatever else on the disk is dirty.
  private var syncEachItem = false
  static let syncEachUpTo = 16

  /// Items whose bytes are complete and verified, waiting to be made durable together.
  private var pending: [(offer: ItemOffer, placement: InboxStore.Placement, entries: (stored: Int, refused: Int)?)] = []
  /// Content verdicts of small items, computed on a queue of their own while the next items
  /// arrive (libmagic is most of a small item's cost); awaited before a batch is placed.
  private let sniffQueue = DispatchQueue(label: "share.sniff")
  private let sniffGroup = DispatchGroup()
  private let sniffed = SniffResults()
  private var pendingBytes: Int64 = 0
  private var pendingNeedsSync = false
  private var receipts: [Int: ItemReceipt] = [:]
  private var counts = (stored: 0, refused: 0, failed: 0)

  /// The receive buffer: allocated once per connection, independent of item sizes.
  private let buffer: UnsafeMutableRawBufferPointer
  static let bufferSize = 1 << 20
  /// Items at least this large are written with O_DIRECT where the file system allows it.
  static let directBytes: Int64 = 8 << 20
  /// Items at least this large are synced on their own as they finish.
  static let syncAloneBytes: Int64 = 8 << 20
  /// A batch is made durable once it holds this many items or bytes.
  static let batchItems = 2048
  static let batchBytes: Int64 = 64 << 20

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
  }

  /// Runs the exchange. Whatever happens, verified items are placed before this returns.
  func run() {
    do {
      try exchange()
      connection.close()
    } catch let refusal as Refusal {
      emit(.connectionFailed(address: address, peer: peer, error: .peerFailure(code: refusal.code, message: refusal.message)))
      connection.fail(code: refusal.code, message: refusal.message)
    } catch {
      commitPending()
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

  private func exchange() throws {
    // Hello, both ways.
    guard case .hello(let hello) = try connection.receiveMessage(expecting: "Hello") else {
      throw WireError.unexpected(expected: "Hello", got: "another message")
    }
    let fingerprint = connection.tls.peerFingerprint
    let peer = PeerInfo(fingerprint: fingerprint, name: hello.name, address: address, port: port)
    self.peer = peer
    guard hello.version == protocolVersion else {
      throw WireError.versionMismatch(ours: protocolVersion, theirs: hello.version)
    }
    guard Fingerprint(hex: hello.id) == fingerprint else { throw WireError.identityMismatch }
    if let refusal = context.gatekeeper?.admit(fingerprint) { throw refusal }
    emit(.connected(peer))
    try connection.sendNow(
      .hello(Hello(name: device.name, id: device.fingerprint.hex, accepts: policy.summary)))

    // The offer and the answer (or a request to pair).
    let ask: Ask
    switch try connection.receiveMessage(expecting: "Ask") {
    case .ask(let offered): ask = offered
    case .pair:
      try pair(peer)
      return
    case let other: throw WireError.unexpected(expected: "Ask", got: "a \(other.typeName) message")
    }
    let valid = try ask.validate(limits: connection.limits)
    var decision = AskDecision(valid, policy: policy, space: store.availableBytes().map { AskDecision.Space(free: $0, reserve: context.reserveBytes) })
    for (offer, refusal, type) in decision.refused { record(offer, peer: peer, .rejected(refusal.reason), type: type) }
    if !decision.accepted.isEmpty, let gatekeeper = context.gatekeeper {
      let items = zip(ask.items, decision.answer.items).map { offer, answer in
        AskedItem(name: offer.name, kind: offer.kind.rawValue, size: offer.size, type: answer.type, accepted: answer.accepted, reason: answer.reason)
      }
      let connection = self.connection
      let refusal = gatekeeper.consent(peerName: peer.name, peer: fingerprint, address: address, items: items) { ask in
        let seconds = Int(gatekeeper.askTimeout / .seconds(1))
        try? connection.sendNow(.wait(Wait(message: "waiting for the receiver's owner to accept (ask \(ask.id))", timeout: seconds)))
      }
      if let refusal {
        for plan in decision.decline(refusal.message) { record(plan.offer, peer: peer, .rejected(refusal.message), type: plan.type) }
      }
    }
    for (id, record) in decision.resumable(senderId: fingerprint.hex) where context.holdResumeKey(record.stem) {
      heldResumeKeys.append(record.stem)
      decision.resume(id, record: record, offset: store.resumableOffset(for: record))
    }
    let plans = decision.accepted
    syncEachItem = plans.count <= ReceiveSession.syncEachUpTo
    let answer = decision.answer
    emit(.asked(peer, items: ask.items, answers: answer.items))
    try connection.sendNow(.answer(answer))
    if !plans.isEmpty {
      transfer = context.transfers.begin(peerName: peer.name, peerId: fingerprint.hex, items: plans.count, bytes: decision.expectedBytes)
    }

    // The bytes of each accepted item, in order.
    for plan in plans {
      if plan.offer.kind == .folder {
        try receiveFolder(plan, peer: peer)
      } else {
        try receiveItem(plan, peer: peer)
      }
      if pending.count >= ReceiveSession.batchItems || pendingBytes >= ReceiveSession.batchBytes {
        commitPending()
      }
    }
    commitPending()

    let ordered = ask.items.compactMap { receipts[$0.id] }
    try connection.sendNow(.receipt(Receipt(items: ordered)))
    emit(.finished(peer, stored: counts.stored, refused: counts.refused, failed: counts.failed))
  }

  // MARK: Pairing

  /// A request to become a contact: the owner compares the code and accepts or declines it.
  private func pair(_ peer: PeerInfo) throws {
    guard let gatekeeper = context.gatekeeper else {
      try connection.sendNow(.pairResult(PairResult(accepted: false, reason: "this receiver does not pair")))
      return
    }
    let code = verificationCode(device.fingerprint, peer.fingerprint)
    let connection = self.connection
    let refusal = gatekeeper.consent(
      peerName: peer.name, peer: peer.fingerprint, address: address, items: [], pairingCode: code
    ) { ask in
      let seconds = Int(gatekeeper.askTimeout / .seconds(1))
      try? connection.sendNow(.wait(Wait(message: "waiting for the receiver's owner to compare the code (ask \(ask.id))", timeout: seconds)))
    }
    if let refusal {
      try connection.sendNow(.pairResult(PairResult(accepted: false, reason: refusal.message)))
      return
    }
    do {
      try context.trust(TrustedPeer(id: peer.fingerprint, name: peer.name))
    } catch {
      try connection.sendNow(.pairResult(PairResult(accepted: false, reason: "the receiver could not save its contacts")))
      emit(.connectionFailed(address: address, peer: peer, error: error))
      return
    }
    try connection.sendNow(.pairResult(PairResult(accepted: true)))
    emit(.paired(peer))
  }

  // MARK: Receiving bytes

  /// Receives a file, URL or text item into staging; a verified item joins the pending batch.
  private func receiveItem(_ plan: ItemPlan, peer: PeerInfo) throws {
    let offer = plan.offer
    let store = self.store
    let outcome = try receivePayload(
      item: offer.id, entry: nil, declared: offer.size, name: plan.storedName, kind: offer.kind,
      resume: plan.resume, offset: plan.offset, mayDefer: offer.kind == .file,
      open: { () throws(InboxError) in
        if let record = plan.resume { return try store.openResumable(record, offset: plan.offset) }
        return try store.createStagingFile()
      })
    switch outcome {
    case .refused(let reason, let type):
      record(offer, peer: peer, .rejected(reason), type: type)
    case .failed(let reason, let type, let detail):
      record(offer, peer: peer, .failed(reason), type: type, detail: detail)
    case .complete(let file, let size, let digest, let type, let deferredHead):
      if let deferredHead {
        let policy = self.policy
        let sniffed = self.sniffed
        let name = plan.storedName
        sniffGroup.enter()
        sniffQueue.async { [sniffGroup] in
          sniffed.set(offer.id, policy.judgeContent(name: name, kind: .file, head: deferredHead, size: size))
          sniffGroup.leave()
        }
      }
      if let problem = ReceiveSession.checkInline(offer.kind, file: file.url) {
        file.discard()
        record(offer, peer: peer, .failed(problem), type: type)
        return
      }
      do {
        let syncNow = size >= ReceiveSession.syncAloneBytes || syncEachItem
        let identity = try file.finish(sync: syncNow)
        if !syncNow { pendingNeedsSync = true }
        let metadata = ItemMetadata(
          originalName: offer.name, kind: UniformTypes.ItemKind(offer.kind), senderName: peer.name,
          senderId: peer.fingerprint.hex, receivedAt: Date(), size: size, sha256: digest.hex,
          type: type ?? plan.type)
        pending.append((offer, InboxStore.Placement(staged: file.url, name: plan.storedName, identity: identity, metadata: metadata), nil))
        pendingBytes += size
        if let record = plan.resume { store.forgetResumeRecord(record) }
      } catch {
        file.discard()
        record(offer, peer: peer, .failed("not stored: \(error.peerDescription)"), type: type, detail: "\(error)")
      }
    }
  }

  /// Receives a folder: each accepted file entry into a staged tree, which is then sealed
  /// read-only and placed whole.
  private func receiveFolder(_ plan: ItemPlan, peer: PeerInfo) throws {
    let offer = plan.offer
    let entries = offer.entries ?? []
    var refused = plan.refusedEntries
    var stored = 0
    var bytes: Int64 = 0
    var problems: [String] = []
    var folder: StagedFolder? = nil
    do {
      folder = try store.createStagedFolder()
    } catch {
      problems.append("not stored: \(error.peerDescription)")
      emit(.failed(peer, item: offer, reason: "cannot stage it: \(error)"))
    }
    var placed = false
    defer { if !placed { folder?.discard() } }

    for (index, entry) in entries.enumerated() {
      let components: [String]
      switch plan.entries[safe: index] {
      case .file(let path):
        components = path
      case .folder(let path):
        do {
          try folder?.makeFolder(path)
        } catch {
          problems.append("\(entry.path): \(error.peerDescription)")
        }
        continue
      case .refused, nil:
        continue
      }
      let outcome = try receivePayload(
        item: offer.id, entry: index, declared: entry.size, name: components[components.count - 1], kind: .file,
        resume: nil, offset: 0, mayDefer: false,
        open: { () throws(InboxError) in
          guard let folder else { throw InboxError.unexpected("no staging folder") }
          return try folder.createFile(components)
        })
      switch outcome {
      case .complete(let file, let size, _, _, _):
        do {
          _ = try file.finish(sync: false)
          stored += 1
          bytes += size
        } catch {
          file.discard()
          refused += 1
          problems.append("\(entry.path): \(error.peerDescription)")
        }
      case .refused(let reason, _):
        refused += 1
        problems.append("\(entry.path): \(reason)")
      case .failed(let reason, _, _):
        refused += 1
        problems.append("\(entry.path): \(reason)")
      }
    }

    let offeredFiles = entries.filter { $0.kind == .file }.count
    guard let folder, stored > 0 || offeredFiles == 0 else {
      record(offer, peer: peer, .failed(problems.first ?? "none of its files could be stored"), type: plan.type,
             entries: (stored, refused))
      return
    }
    do {
      let identity = try store.seal(folder: folder.url)
      pendingNeedsSync = true
      let metadata = ItemMetadata(
        originalName: offer.name, kind: .folder, senderName: peer.name,
        senderId: peer.fingerprint.hex, receivedAt: Date(), size: bytes, type: plan.type ?? .folder, files: stored)
      pending.append((offer, InboxStore.Placement(staged: folder.url, name: plan.storedName, identity: identity, metadata: metadata), (stored, refused)))
      pendingBytes += bytes
      placed = true
      for problem in problems { emit(.refused(peer, item: offer, reason: problem)) }
    } catch {
      record(offer, peer: peer, .failed("not stored: \(error.peerDescription)"), type: plan.type,
             entries: (0, refused + stored), detail: "\(error)")
    }
  }

  private enum PayloadOutcome {
    /// `deferredHead`: the whole item, not judged yet (a small file): judge it before placing.
    case complete(StagingFile, size: Int64, digest: Digest, type: TypeIdentifier?, deferredHead: [UInt8]? = nil)
    case refused(String, type: TypeIdentifier?)
    /// Why, for the sender, and the local detail (with paths) for this machine's log.
    case failed(String, type: TypeIdentifier?, detail: String? = nil)
  }

  /// Receives one payload (an item's or a folder entry's bytes). Bytes go to the file `open`
  /// creates while the payload is still wanted; once it is doomed (refused by its content, a
  /// write failed) the rest is drained. Throws only when the connection can no longer be
  /// trusted to stay in step; the staged file is then removed.
  private func receivePayload(
    item: Int, entry: Int?, declared: Int64?, name: String, kind: Wire.ItemKind, resume: ResumeRecord?, offset: Int64,
    mayDefer: Bool, open: () throws(InboxError) -> StagingFile
  ) throws -> PayloadOutcome {
    let header = try connection.receiveHeader()
    guard header.kind == .begin else {
      throw WireError.unexpected(expected: "the bytes of item \(item)", got: "a \(header.kind) frame")
    }
    let begin = try BeginFrame(decoding: try connection.receivePayload(header.length))
    guard begin.item == item, begin.entry == entry, begin.offset == offset else {
      throw WireError.unexpected(expected: "the bytes of item \(item) from \(offset)", got: "item \(begin.item) from \(begin.offset)")
    }

    var problem: String? = nil  // for the sender: never a path on this machine
    var detail: String? = nil  // for this machine's log
    var refusedByContent = false
    var decidedType: TypeIdentifier? = nil
    var staging: StagingFile? = nil
    do {
      staging = try open()
    } catch {
      problem = "not stored: \(error.peerDescription)"
      detail = "cannot stage it: \(error)"
    }
    var handedOff = false  // true once the caller owns the staged file
    var interrupted = true  // until the end frame: a thrown error leaves a resumable part
    var sink: PayloadSink? = nil
    defer {
      // The writer finishes first: what it holds is written (worth keeping for a resume) or dropped.
      if problem != nil || resume == nil { sink?.drop() }
      _ = sink?.finish()
      if !handedOff, let file = staging {
        if interrupted, problem == nil, let resume {
          store.keepForResume(file, record: resume)
        } else {
          file.discard()
          if let resume { store.discardResumable(resume) }
        }
      }
    }

    let hasher = SHA256Hasher()
    let sniffLength = policy.sniffLength
    var head: [UInt8] = []
    var judged = sniffLength == 0
    var received: Int64 = 0
    let limit = declared ?? policy.maxItemBytes

    func judgeHead() {
      judged = true
      let verdict = policy.judgeContent(name: name, kind: kind, head: head, size: declared)
      // A large item will take a while: libmagic's database need not stay resident meanwhile.
      if (declared ?? 0) >= ReceiveSession.directBytes { policy.types?.sniffer.releaseDatabasePages() }
      decidedType = verdict?.type
      if let verdict, !verdict.accepted, problem == nil {
        problem = verdict.reason
        refusedByContent = true
        sink?.drop()
        staging?.discard()
        staging = nil
        // Tell the sender to stop: the rest of this item would only be drained.
        try? connection.sendNow(.skip(Skip(item: item, entry: entry, reason: verdict.reason)))
      }
    }

    let large = (declared ?? 0) >= ReceiveSession.directBytes
    if large, offset == 0 { staging?.useDirectIO() }

    // A resumed item: the staged prefix must be the sender's, byte for byte, before anything is
    // appended; it also feeds the digest and the content check.
    if offset > 0, let file = staging {
      let matches = file.readPrefix(offset, chunk: buffer) { bytes in
        hasher.update(bytes)
        if head.count < sniffLength { head.append(contentsOf: bytes.prefix(sniffLength - head.count)) }
      }
      guard matches, let prefix = begin.prefixDigest, Digest(bytes: hasher.finalizeCopy()) == prefix else {
        // Not the same bytes: drop the staged part; this attempt fails, the next starts afresh.
        problem = "its resumed bytes did not match the sender's; send it again"
        staging?.discard()
        staging = nil
        if let resume { store.discardResumable(resume) }
        return try drain(item: item, problem: problem ?? "", type: decidedType)
      }
      received = offset
      if head.count >= sniffLength { judgeHead() }
    }
    let payload = PayloadSink(hasher: hasher, file: staging, buffer: buffer, pipelined: large)
    sink = payload
    func noteWriteError(_ error: InboxError?) {
      guard let error, problem == nil else { return }
      problem = "not stored: \(error.peerDescription)"
      detail = "cannot write it: \(error)"
      payload.drop()
    }

    while true {
      let frame = try connection.receiveHeader()
      switch frame.kind {
      case .data:
        guard received + Int64(frame.length) <= limit else {
          throw declared == nil
            ? WireError.invalidAsk("an item of unknown size grew past \(formatBytes(limit))")
            : WireError.oversize(declared: limit)
        }
        // Bytes gather in the buffer and go to disk a full buffer at a time (aligned, so a large
        // item can be written with O_DIRECT), whatever sizes the sender's frames have.
        var remaining = frame.length
        while remaining > 0 {
          let space = payload.space
          let piece = UnsafeMutableRawBufferPointer(rebasing: space[0..<min(remaining, space.count)])
          try connection.receive(into: piece)
          remaining -= piece.count
          received += Int64(piece.count)
          if let transfer { context.transfers.add(transfer, bytes: Int64(piece.count)) }
          if !judged {
            head.append(contentsOf: UnsafeRawBufferPointer(piece).prefix(sniffLength - head.count))
            if head.count >= sniffLength { judgeHead() }
          }
          noteWriteError(payload.commit(piece.count))
        }
      case .end:
        let digestBytes = try connection.receivePayload(frame.length)
        interrupted = false
        // A small item is all in `head`: its content verdict can wait for the batch (computed
        // on the sniff queue meanwhile); anything larger was judged on its first bytes.
        let deferJudgement = mayDefer && !judged && Int64(head.count) == received && received > 0 && policy.types != nil
        if !judged && !deferJudgement { judgeHead() }
        noteWriteError(payload.finish())
        guard let digest = Digest(bytes: digestBytes) else {
          // Abandoned: after our Skip (refused on content), or the sender's own trouble.
          if refusedByContent, let problem { return .refused(problem, type: decidedType) }
          return .failed(problem ?? "the sender gave up on it", type: decidedType, detail: detail)
        }
        if let problem {
          return refusedByContent ? .refused(problem, type: decidedType) : .failed(problem, type: decidedType, detail: detail)
        }
        if let declared, received != declared {
          return .failed("the sender sent \(received) of the \(declared) bytes it declared", type: decidedType)
        }
        if hasher.finalize() != digest.bytes {
          return .failed("its bytes do not match their SHA-256; nothing was kept", type: decidedType)
        }
        guard let file = staging else { return .failed("the receiver lost its staging file", type: decidedType) }
        handedOff = true
        return .complete(file, size: received, digest: digest, type: decidedType, deferredHead: deferJudgement ? head : nil)
      case .control:
        let message = try MessageCodec.decode(try connection.receivePayload(frame.length))
        if case .failure(let failure) = message {
          throw ShareError.peerFailure(code: failure.code, message: failure.message)
        }
        throw WireError.unexpected(expected: "the bytes of item \(item)", got: "a \(message.typeName) message")
      case .begin:
        throw WireError.unexpected(expected: "the end of item \(item)", got: "a begin frame")
      }
    }
  }

  /// Reads and drops the rest of a payload whose fate is already decided.
  private func drain(item: Int, problem: String, type: TypeIdentifier?) throws -> PayloadOutcome {
    while true {
      let frame = try connection.receiveHeader()
      switch frame.kind {
      case .data:
        var remaining = frame.length
        while remaining > 0 {
          let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(remaining, buffer.count)])
          try connection.receive(into: piece)
          remaining -= piece.count
        }
      case .end:
        _ = try connection.receivePayload(frame.length)
        return .failed(problem, type: type)
      case .control, .begin:
        throw WireError.unexpected(expected: "the end of item \(item)", got: "a \(frame.kind) frame")
      }
    }
  }

  /// A URL item must hold one absolute URL on one line; a text item must be UTF-8.
  /// Returns the problem, or nil when the content is what its kind says.
  static func checkInline(_ kind: Wire.ItemKind, file: URL) -> String? {
    guard kind == .url || kind == .text else { return nil }
    guard let data = FileManager.default.contents(atPath: file.path) else { return "cannot read it back" }
    guard let text = String(data: data, encoding: .utf8) else { return "it is not UTF-8 text" }
    if kind == .url {
      let line = text.hasSuffix("\n") ? String(text.dropLast()) : text
      guard !line.contains("\n"), !line.contains("\r"), let url = URL(string: line), url.scheme != nil else {
        return "it is not one absolute URL"
      }
    }
    return nil
  }

  // MARK: Outcomes

  private enum Outcome {
    case rejected(String)
    case failed(String)
  }

  /// Records an item's fate for the Receipt (`outcome`'s reason, which the sender sees) and
  /// for this machine's log (`detail` when given: it may name local paths).
  private func record(
    _ offer: ItemOffer, peer: PeerInfo, _ outcome: Outcome, type: TypeIdentifier?, entries: (stored: Int, refused: Int)? = nil,
    detail: String? = nil
  ) {
    switch outcome {
    case .rejected(let reason):
      receipts[offer.id] = ItemReceipt(id: offer.id, status: .rejected, reason: reason, type: type?.rawValue,
                                       entriesStored: entries?.stored, entriesRefused: entries?.refused)
      counts.refused += 1
      emit(.refused(peer, item: offer, reason: reason))
    case .failed(let reason):
      receipts[offer.id] = ItemReceipt(id: offer.id, status: .failed, reason: reason, type: type?.rawValue,
                                       entriesStored: entries?.stored, entriesRefused: entries?.refused)
      counts.failed += 1
      emit(.failed(peer, item: offer, reason: detail ?? reason))
    }
  }

  /// Makes the pending batch durable and places it in the Inbox.
  private func commitPending() {
    guard !pending.isEmpty, let peer else { return }
    // Content verdicts still being computed decide what of the batch may enter the Inbox.
    sniffGroup.wait()
    var batch: [(offer: ItemOffer, placement: InboxStore.Placement, entries: (stored: Int, refused: Int)?)] = []
    for var entry in pending {
      if let verdict = sniffed.take(entry.offer.id) {
        guard verdict.accepted else {
          unlink(entry.placement.staged.path)
          record(entry.offer, peer: peer, .rejected(verdict.reason), type: verdict.type)
          continue
        }
        entry.placement.metadata.type = verdict.type
      }
      batch.append(entry)
    }
    pending.removeAll()
    pendingBytes = 0
    var syncError: InboxError? = nil
    if pendingNeedsSync {
      do {
        try store.syncStaging()
      } catch {
        syncError = error
      }
      pendingNeedsSync = false
    }
    let results: [Result<String, InboxError>]
    if let syncError {
      results = batch.map { _ in .failure(syncError) }
    } else {
      results = store.place(batch.map(\.placement))
    }
    for ((offer, placement, entries), result) in zip(batch, results) {
      switch result {
      case .success(let name):
        let refusedEntries = entries?.refused ?? 0
        receipts[offer.id] = ItemReceipt(
          id: offer.id, status: .stored, storedAs: name,
          reason: refusedEntries > 0 ? "\(refusedEntries) of its entries were not stored" : nil,
          type: placement.metadata.type?.rawValue, size: placement.metadata.size,
          sha256: placement.metadata.sha256.flatMap(Digest.init(hex:)),
          entriesStored: entries?.stored, entriesRefused: entries?.refused)
        counts.stored += 1
        emit(.stored(peer, item: offer, storedAs: name, size: placement.metadata.size, type: placement.metadata.type))
      case .failure(let error):
        try? FileManager.default.removeItem(at: placement.staged)
        record(offer, peer: peer, .failed("not stored: \(error.peerDescription)"), type: placement.metadata.type,
               entries: entries, detail: "\(error)")
      }
    }
  }
}

/// Content verdicts computed on the sniff queue, by item ID.
private final class SniffResults: Sendable {
  private let verdicts = Mutex<[Int: Verdict]>([:])
  func set(_ id: Int, _ verdict: Verdict?) { verdicts.withLock { $0[id] = verdict } }
  func take(_ id: Int) -> Verdict? { verdicts.withLock { $0.removeValue(forKey: id) } }
}

extension WireError {
  var isVersionMismatch: Bool {
    if case .versionMismatch = self { return true }
    return false
  }
}
