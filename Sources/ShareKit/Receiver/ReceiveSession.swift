import Foundation
import InboxStore
import TLS
import Wire

/// One incoming connection, from the peer's Hello to the Receipt. Runs on its own thread and
/// owns its connection, its buffer and its staging files; nothing in it is shared.
final class ReceiveSession {
  private let connection: FramedConnection
  private let device: Device
  private let store: InboxStore
  private let policy: ReceivePolicy
  private let emit: @Sendable (ReceiverEvent) -> Void
  private let address: String
  private let port: UInt16
  private var peer: PeerInfo?

  /// Items whose bytes are complete and verified, waiting to be made durable together.
  private var pending: [(offer: ItemOffer, placement: InboxStore.Placement)] = []
  private var pendingBytes: Int64 = 0
  private var pendingNeedsSync = false
  private var receipts: [Int: ItemReceipt] = [:]
  private var counts = (stored: 0, refused: 0, failed: 0)

  /// The receive buffer: large, allocated once per connection, independent of item sizes.
  private let buffer: UnsafeMutableRawBufferPointer
  static let bufferSize = 1 << 20
  /// Items at least this large are synced on their own as they finish.
  static let syncAloneBytes: Int64 = 8 << 20
  /// A batch is made durable once it holds this many items or bytes.
  static let batchItems = 2048
  static let batchBytes: Int64 = 64 << 20

  init(
    connection: FramedConnection, address: String, port: UInt16, device: Device, store: InboxStore,
    policy: ReceivePolicy, emit: @escaping @Sendable (ReceiverEvent) -> Void
  ) {
    self.connection = connection
    self.address = address
    self.port = port
    self.device = device
    self.store = store
    self.policy = policy
    self.emit = emit
    buffer = .allocate(byteCount: ReceiveSession.bufferSize, alignment: 4096)
  }

  deinit { buffer.deallocate() }

  /// Runs the exchange. Whatever happens, verified items are placed before this returns.
  func run() {
    do {
      try exchange()
      connection.close()
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
    emit(.connected(peer))
    try connection.sendNow(
      .hello(Hello(name: device.name, id: device.fingerprint.hex, accepts: policy.summary)))

    // The offer and the answer.
    guard case .ask(let ask) = try connection.receiveMessage(expecting: "Ask") else {
      throw WireError.unexpected(expected: "Ask", got: "another message")
    }
    try ask.validate(limits: connection.limits)
    var answers: [ItemAnswer] = []
    var accepted: [(ItemOffer, String)] = []
    var askTotal: Int64 = 0
    for offer in ask.items {
      var verdict = policy.judge(offer)
      if verdict.accepted, let size = offer.size {
        askTotal += size
        if askTotal > policy.maxAskBytes {
          verdict = .rejected("the offer is over this receiver's limit of \(formatBytes(policy.maxAskBytes)) per send")
        }
      }
      answers.append(ItemAnswer(id: offer.id, accepted: verdict.accepted, reason: verdict.reason, type: verdict.type, offset: verdict.accepted ? 0 : nil))
      if verdict.accepted, let name = verdict.storedName {
        accepted.append((offer, name))
      } else {
        receipts[offer.id] = ItemReceipt(id: offer.id, status: .rejected, reason: verdict.reason, type: verdict.type)
        counts.refused += 1
        emit(.refused(peer, item: offer, reason: verdict.reason))
      }
    }
    emit(.asked(peer, items: ask.items, answers: answers))
    try connection.sendNow(.answer(Answer(items: answers)))

    // The bytes of each accepted item, in order.
    for (offer, name) in accepted {
      try receive(offer, storedName: name, peer: peer)
      if pending.count >= ReceiveSession.batchItems || pendingBytes >= ReceiveSession.batchBytes {
        commitPending()
      }
    }
    commitPending()

    let ordered = ask.items.compactMap { receipts[$0.id] }
    try connection.sendNow(.receipt(Receipt(items: ordered)))
    emit(.finished(peer, stored: counts.stored, refused: counts.refused, failed: counts.failed))
  }

  /// Receives one item's payload into staging; a verified item joins the pending batch.
  /// Throws only when the connection can no longer be trusted to stay in step.
  private func receive(_ offer: ItemOffer, storedName: String, peer: PeerInfo) throws {
    let header = try connection.receiveHeader()
    guard header.kind == .begin else {
      throw WireError.unexpected(expected: "the bytes of item \(offer.id)", got: "a \(header.kind) frame")
    }
    let begin = try BeginFrame(decoding: try connection.receivePayload(header.length))
    guard begin.item == offer.id, begin.entry == nil, begin.offset == 0 else {
      throw WireError.unexpected(expected: "the bytes of item \(offer.id)", got: "item \(begin.item)")
    }

    var problem: String? = nil  // set once the item is doomed; its bytes are then drained
    var refusedByContent = false
    var decidedType: String? = nil
    var staging: StagingFile? = nil
    do {
      staging = try store.createStagingFile()
    } catch {
      problem = "the receiver cannot stage it: \(error)"
    }
    var handedOff = false  // true once the staged file belongs to the pending batch
    defer { if !handedOff { staging?.discard() } }

    let hasher = SHA256Hasher()
    let sniffLength = policy.sniffLength
    var head: [UInt8] = []
    var judged = sniffLength == 0
    var received: Int64 = 0
    let limit = offer.size ?? policy.maxItemBytes

    func judgeHead() {
      judged = true
      let verdict = policy.judgeContent(name: storedName, kind: offer.kind, head: head, size: offer.size)
      decidedType = verdict.type
      if !verdict.accepted, problem == nil {
        problem = verdict.reason
        refusedByContent = true
        staging?.discard()
        staging = nil
      }
    }

    while true {
      let frame = try connection.receiveHeader()
      switch frame.kind {
      case .data:
        guard received + Int64(frame.length) <= limit else {
          throw offer.size == nil
            ? WireError.invalidAsk("an item of unknown size grew past \(formatBytes(limit))")
            : WireError.oversize(declared: limit)
        }
        var remaining = frame.length
        while remaining > 0 {
          let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(remaining, buffer.count)])
          try connection.receive(into: piece)
          remaining -= piece.count
          received += Int64(piece.count)
          let bytes = UnsafeRawBufferPointer(piece)
          hasher.update(bytes)
          if !judged {
            head.append(contentsOf: bytes.prefix(sniffLength - head.count))
            if head.count >= sniffLength { judgeHead() }
          }
          if problem == nil, let file = staging {
            do {
              try file.write(bytes)
            } catch {
              problem = "the receiver could not write it: \(error)"
            }
          }
        }
      case .end:
        let digestBytes = try connection.receivePayload(frame.length)
        if !judged { judgeHead() }
        guard let digest = Digest(bytes: digestBytes) else {
          finish(offer, peer: peer, outcome: .failed(problem ?? "the sender cancelled it"), type: decidedType)
          return
        }
        if let problem {
          finish(offer, peer: peer, outcome: refusedByContent ? .rejected(problem) : .failed(problem), type: decidedType)
          return
        }
        if let size = offer.size, received != size {
          problem = "the sender sent \(received) of the \(size) bytes it declared"
        } else if hasher.finalize() != digest.bytes {
          problem = "its bytes do not match their SHA-256; nothing was kept"
        }
        if let problem {
          finish(offer, peer: peer, outcome: .failed(problem), type: decidedType)
          return
        }
        guard let file = staging else { return }
        do {
          let syncNow = received >= ReceiveSession.syncAloneBytes
          let identity = try file.finish(sync: syncNow)
          if !syncNow { pendingNeedsSync = true }
          let metadata = ItemMetadata(
            originalName: offer.name, kind: offer.kind.rawValue, senderName: peer.name,
            senderId: peer.fingerprint.hex, receivedAt: Date(), size: received, sha256: digest.hex,
            type: decidedType)
          pending.append((offer, InboxStore.Placement(staged: file.url, name: storedName, identity: identity, metadata: metadata)))
          pendingBytes += received
          handedOff = true
        } catch {
          finish(offer, peer: peer, outcome: .failed("the receiver could not store it: \(error)"), type: decidedType)
        }
        return
      case .control:
        let message = try MessageCodec.decode(try connection.receivePayload(frame.length))
        if case .failure(let failure) = message {
          throw ShareError.peerFailure(code: failure.code, message: failure.message)
        }
        throw WireError.unexpected(expected: "the bytes of item \(offer.id)", got: "a \(message.typeName) message")
      case .begin:
        throw WireError.unexpected(expected: "the end of item \(offer.id)", got: "a begin frame")
      }
    }
  }

  private enum Outcome {
    case rejected(String)
    case failed(String)
  }

  private func finish(_ offer: ItemOffer, peer: PeerInfo, outcome: Outcome, type: String?) {
    switch outcome {
    case .rejected(let reason):
      receipts[offer.id] = ItemReceipt(id: offer.id, status: .rejected, reason: reason, type: type)
      counts.refused += 1
      emit(.refused(peer, item: offer, reason: reason))
    case .failed(let reason):
      receipts[offer.id] = ItemReceipt(id: offer.id, status: .failed, reason: reason, type: type)
      counts.failed += 1
      emit(.failed(peer, item: offer, reason: reason))
    }
  }

  /// Makes the pending batch durable and places it in the Inbox.
  private func commitPending() {
    guard !pending.isEmpty, let peer else { return }
    let batch = pending
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
    for ((offer, placement), result) in zip(batch, results) {
      switch result {
      case .success(let name):
        receipts[offer.id] = ItemReceipt(
          id: offer.id, status: .stored, storedAs: name, type: placement.metadata.type,
          size: placement.metadata.size, sha256: placement.metadata.sha256.flatMap(Digest.init(hex:)))
        counts.stored += 1
        emit(.stored(peer, item: offer, storedAs: name, size: placement.metadata.size, type: placement.metadata.type))
      case .failure(let error):
        unlink(placement.staged.path)
        finish(offer, peer: peer, outcome: .failed("the receiver could not store it: \(error)"), type: placement.metadata.type)
      }
    }
  }
}

extension WireError {
  var isVersionMismatch: Bool {
    if case .versionMismatch = self { return true }
    return false
  }
}
