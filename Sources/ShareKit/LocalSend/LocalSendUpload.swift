import Foundation
import InboxStore
import LocalSend
import TLS
import UniformTypes
import Wire

/// Where one accepted LocalSend file's bytes go: the same path as a share payload's. Bytes are
/// hashed and written to a staging file through a `PayloadSink` (each write admitted by the disk
/// reserve), the first bytes are judged by the type rules (`ContentHead`, the same sniffing as
/// `PayloadReceiver`), and a complete, checked file is made durable and placed read-only in the
/// Inbox, never replacing anything, by a `PlacementBatch`, with its provenance in the metadata.
///
/// LocalSend pushes bytes (`UploadSink`) where share's payloads are pulled from frames, so this
/// is the push-side driver of those parts. Called on one connection thread, in order.
final class LocalSendUpload: UploadSink {
  private enum State {
    case writing(StagingFile, PayloadSink)
    /// Refused or failed; nothing of it is kept.
    case done
  }

  private var state: State
  private let plan: ItemPlan
  private let sender: LocalSendSender
  private let context: LocalSendContext
  private let policy: ReceivePolicy
  private let hasher = SHA256Hasher()
  private var content: ContentHead
  private let buffer: UnsafeMutableRawBufferPointer
  private var received: Int64 = 0
  /// Its session's row in the transfer table.
  private let transfer: Int
  /// Called when its content is refused.
  private let refused: () -> Void

  /// The buffer bytes gather in before they are written.
  static let bufferSize = 256 << 10

  init(
    plan: ItemPlan, sender: LocalSendSender, policy: ReceivePolicy, context: LocalSendContext, transfer: Int,
    refused: @escaping () -> Void
  ) throws(UploadRefusal) {
    self.plan = plan
    self.transfer = transfer
    self.refused = refused
    self.sender = sender
    self.policy = policy
    self.context = context
    content = ContentHead(length: policy.sniffLength)
    buffer = .allocate(byteCount: Self.bufferSize, alignment: 4096)
    let file: StagingFile
    do {
      file = try context.store.createStagingFile()
    } catch {
      buffer.deallocate()
      throw UploadRefusal(.failed, "not stored: \(error.peerDescription)")
    }
    let sink = PayloadSink(hasher: hasher, file: file, reserve: context.reserve, buffer: buffer, writer: nil)
    state = .writing(file, sink)
  }

  deinit {
    abort()
    buffer.deallocate()
  }

  private var payload: Payload {
    Payload(item: plan.offer.id, declared: plan.offer.size, name: plan.storedName, kind: plan.offer.kind)
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws(UploadRefusal) {
    guard case .writing(_, let sink) = state else { throw UploadRefusal(.failed, "not stored") }
    var rest = bytes
    while !rest.isEmpty {
      let space = sink.space
      let count = min(space.count, rest.count)
      space.copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[0..<count]))
      let piece = UnsafeRawBufferPointer(rebasing: space[0..<count])
      rest = UnsafeRawBufferPointer(rebasing: rest[count...])
      received += Int64(count)
      context.transfers.add(transfer, bytes: Int64(count))
      if content.take(piece) { try judgeContent() }
      if let failure = sink.commit(count) { throw refuse(failure) }
    }
  }

  func commit() throws(UploadRefusal) {
    guard case .writing(let file, let sink) = state else { throw UploadRefusal(.failed, "not stored") }
    if let failure = sink.finish() { throw refuse(failure) }
    // A file shorter than the sniff length is judged once all of it is in; a package longer
    // than it, again with all of it there.
    if content.isPending { try judgeContent() }
    if let verdict = content.judgeWhole(payload, size: received, file: file.url, policy: policy), !verdict.accepted {
      try refuse(verdict)
    }
    state = .done
    var metadata = ItemMetadata(
      originalName: plan.offer.name, kind: .file, senderName: sender.alias, senderId: sender.senderId,
      receivedAt: Date(),
      size: received, sha256: Digest(bytes: hasher.finalize())?.hex, type: content.type ?? plan.type)
    metadata.protocol = "localsend"
    metadata.senderVerified = sender.proven
    try place(file, metadata: metadata)
  }

  func abort() {
    guard case .writing(let file, let sink) = state else { return }
    state = .done
    sink.drop()
    _ = sink.finish()
    file.discard()
    // What this attempt brought is not received (review 47: three failed attempts of a file
    // showed 299% in `share status`).
    context.transfers.add(transfer, bytes: -received)
    received = 0
  }

  func failed(_ reason: String) {
    context.emit(.failed(sender.peer, item: plan.offer, reason: reason))
  }

  /// The type rules on the first bytes; a refusal removes the staging and tells the sender why.
  private func judgeContent() throws(UploadRefusal) {
    let verdict = content.judge(payload, policy: policy)
    if payload.releasesMagicPages { policy.types?.sniffer.releaseDatabasePages() }
    guard let verdict, !verdict.accepted else { return }
    try refuse(verdict)
  }

  /// Removes the staging and tells the sender why its content was refused.
  private func refuse(_ verdict: Verdict) throws(UploadRefusal) {
    abort()
    refused()
    context.emit(.refused(sender.peer, item: plan.offer, reason: verdict.reason))
    throw UploadRefusal(.rejected, verdict.reason)
  }

  /// Why writing stopped, as the sender is told; the staging is removed.
  private func refuse(_ failure: PayloadSink.Failure) -> UploadRefusal {
    abort()
    switch failure {
    case .write(let error):
      context.emit(.failed(sender.peer, item: plan.offer, reason: "cannot write it: \(error)"))
      return UploadRefusal(.failed, "not stored: \(error.peerDescription)")
    case .reserve:
      context.emit(.failed(sender.peer, item: plan.offer, reason: context.reserve.reason))
      return UploadRefusal(.insufficientStorage, context.reserve.reason)
    }
  }

  /// Durable, read-only, no-replace placement into the Inbox; what became of it is logged.
  private func place(_ file: StagingFile, metadata: ItemMetadata) throws(UploadRefusal) {
    let book = ReceiptBook(peer: sender.peer, offered: [plan.offer.id], emit: context.emit)
    let batch = PlacementBatch(store: context.store, itemCount: 1)
    do {
      try batch.add(file, offer: plan.offer, name: plan.storedName, metadata: metadata)
    } catch {
      file.discard()
      book.failed(plan.offer, "not stored: \(error.peerDescription)", type: metadata.type, detail: "\(error)")
      throw UploadRefusal(.failed, "not stored: \(error.peerDescription)")
    }
    batch.commit(into: book)
    guard let receipt = book.receipt().items.first, receipt.status != .stored else { return }
    throw UploadRefusal(receipt.status == .rejected ? .rejected : .failed, receipt.reason?.unescaped ?? "not stored")
  }
}
