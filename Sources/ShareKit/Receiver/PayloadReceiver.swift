import Foundation
import InboxStore
import TLS
import TextEscaping
import UniformTypes
import Wire

/// What the receiver expects of one payload: an item's bytes, or one folder entry's.
struct Payload {
  var item: Int
  /// The folder entry, for an entry's bytes.
  var entry: Int? = nil
  /// The size the sender declared; nil when unknown (a stream).
  var declared: Int64?
  /// The name and kind its content is judged under.
  var name: String
  var kind: Wire.ItemKind
  /// A resumable file's staging record, and the bytes it already holds.
  var resume: ResumeRecord? = nil
  var offset: Int64 = 0
  /// Whether its batch may finish it: a small file's content verdict (judged on the sniff
  /// queue), a large file's last writes (confirmed when the batch is handed off).
  var mayDefer: Bool = false

  /// Written with O_DIRECT where the file system allows it, through the session's writer
  /// (`PayloadSink`). From 2 MiB (a photo): on this project's VMs a buffered write's copy into
  /// fresh page-cache pages was 60% of the receiver's CPU for 500 photos of 3 MB (bench/README.md,
  /// round eight).
  var isLarge: Bool { (declared ?? 0) >= Payload.largeBytes }
  static let largeBytes: Int64 = 2 << 20
  /// Long enough to receive that libmagic's pages are released once it is judged (they would
  /// otherwise stay resident all along a 2 GiB transfer; for a photo they are needed again soon).
  var releasesMagicPages: Bool { (declared ?? 0) >= Payload.releaseMagicBytes }
  static let releaseMagicBytes: Int64 = 8 << 20
}

/// How a payload ended.
enum PayloadOutcome {
  /// Its bytes are staged and verified; `deferredHead` is the whole item, not judged yet (a small
  /// file): judge it before placing. `writes`: the writer may still be writing its last bytes
  /// (a large file): `finish()` it, and see that it wrote them, before the file is finished.
  case complete(
    StagingFile, size: Int64, digest: Digest, type: TypeIdentifier?, deferredHead: [UInt8]? = nil, writes: PayloadSink? = nil)
  /// Refused on its content; nothing kept.
  case refused(String, type: TypeIdentifier?)
  /// Why, for the sender, and the local detail (with paths) for this machine's log; nothing kept.
  case failed(String, type: TypeIdentifier?, detail: String? = nil)
}

/// What every payload of a session shares: the connection, its receive buffer, the Inbox, the
/// policy, and where progress is counted.
struct PayloadChannel {
  let connection: FramedConnection
  /// The session's receive buffer (`ReceiveSession.bufferSize`, 4 KiB-aligned), reused by every payload.
  let buffer: UnsafeMutableRawBufferPointer
  /// The session's pipeline for large payloads.
  let writer: SessionWriter
  let store: InboxStore
  let policy: ReceivePolicy
  /// Asked before every write to staging.
  let reserve: DiskReserve
  let progress: (Int64) -> Void
}

/// Receives one payload into a staging file, as a state machine: bytes are written while the
/// payload is wanted (`writing`); once its fate is decided — refused on its first bytes, a write
/// failed, a resumed prefix did not match, no staging could be made — its staging is removed at
/// once and the rest of its bytes are read and dropped (`doomed`); its end frame makes it
/// `complete`. Each event (bytes, content verdict, write result, end, interruption) is one
/// switch over the state.
///
/// Throws only when the connection can no longer be trusted to stay in step; `receive` then
/// keeps a resumable item's staged bytes for the next try, or removes them.
final class PayloadReceiver {
  enum State {
    /// Bytes go to the staging file through the sink.
    case writing(StagingFile, PayloadSink)
    /// Nothing of it is kept; its bytes are drained.
    case doomed(Doom)
    /// Its end frame arrived; the outcome is out.
    case complete
  }

  /// Why a payload is doomed.
  struct Doom {
    /// For the sender: never a path on this machine.
    var reason: String
    /// A refusal on its content (else a failure).
    var refused = false
    /// For this machine's log.
    var detail: String? = nil
  }

  private var state: State
  private let payload: Payload
  private let channel: PayloadChannel
  private let hasher: SHA256Hasher
  private var content: ContentHead
  /// Bytes of the payload so far, a resumed prefix included.
  private var received: Int64

  private var connection: FramedConnection { channel.connection }

  /// Receives the payload the sender announces next: its begin frame must match `payload`.
  /// `open` makes its staging file.
  static func receive(
    _ payload: Payload, over channel: PayloadChannel, open: () throws(InboxError) -> StagingFile
  ) throws -> PayloadOutcome {
    let begin = try expectBegin(payload, on: channel.connection)
    let receiver = PayloadReceiver(payload, channel: channel, prefixDigest: begin.prefixDigest, open: open)
    do {
      return try receiver.receiveFrames()
    } catch {
      receiver.interrupted()
      throw error
    }
  }

  private static func expectBegin(_ payload: Payload, on connection: FramedConnection) throws -> BeginFrame {
    let header = try connection.receiveHeader()
    guard header.kind == .begin else {
      throw WireError.unexpected(expected: "the bytes of item \(payload.item)", got: "a \(header.kind) frame")
    }
    let begin = try BeginFrame(decoding: try connection.receivePayload(header.length))
    guard begin.item == payload.item, begin.entry == payload.entry, begin.offset == payload.offset else {
      // The entry too (review 34: "expected item 0 from 0 … got item 0 from 0" for another entry).
      func bytes(_ item: Int, _ entry: Int?, _ offset: Int64) -> String {
        "item \(item)" + (entry.map { " entry \($0)" } ?? "") + " from \(offset)"
      }
      throw WireError.unexpected(
        expected: "the bytes of " + bytes(payload.item, payload.entry, payload.offset), got: bytes(begin.item, begin.entry, begin.offset))
    }
    return begin
  }

  private init(_ payload: Payload, channel: PayloadChannel, prefixDigest: Digest?, open: () throws(InboxError) -> StagingFile) {
    self.payload = payload
    self.channel = channel
    received = payload.offset
    let hasher = SHA256Hasher()
    self.hasher = hasher
    var content = ContentHead(length: channel.policy.sniffLength)
    state = PayloadReceiver.start(payload, channel: channel, prefixDigest: prefixDigest, hasher: hasher, content: &content, open: open)
    self.content = content
    // Doomed from its first frame (a resumed prefix that is not the sender's, no staging): the
    // sender stops now, not after the rest of the item (review 44: 1.39 GB sent to be dropped).
    if case .doomed(let doom) = state { skip(doom.reason) }
  }

  /// The first state: `writing` to a new (or resumed) staging file, or `doomed` when none can be
  /// made or a resumed prefix is not the sender's (then its staging is removed: the next try
  /// starts afresh).
  private static func start(
    _ payload: Payload, channel: PayloadChannel, prefixDigest: Digest?, hasher: SHA256Hasher, content: inout ContentHead,
    open: () throws(InboxError) -> StagingFile
  ) -> State {
    let file: StagingFile
    // A new staging file is a file more on the disk; a resumed one is there already.
    if payload.offset == 0 && payload.resume == nil && !channel.reserve.admitsFile() {
      return .doomed(Doom(reason: channel.reserve.filesReason))
    }
    do {
      file = try open()
    } catch {
      return .doomed(Doom(reason: "not stored: \(error.peerDescription)", detail: "cannot stage it: \(error)"))
    }
    if payload.isLarge, payload.offset == 0 { file.useDirectIO() }
    // A resumed item: the staged prefix must be the sender's, byte for byte, before anything is
    // appended; it also feeds the digest and the content check.
    if payload.offset > 0 {
      let matches = file.readPrefix(payload.offset, chunk: channel.buffer) { bytes in
        hasher.update(bytes)
        _ = content.take(bytes)
      }
      guard matches, let prefixDigest, Digest(bytes: hasher.finalizeCopy()) == prefixDigest else {
        removeStaging(file, of: payload, in: channel.store)
        content.abandon()
        return .doomed(Doom(reason: "its resumed bytes did not match the sender's; send it again"))
      }
    }
    let sink = PayloadSink(
      hasher: hasher, file: file, reserve: channel.reserve, buffer: channel.buffer, writer: payload.isLarge ? channel.writer : nil)
    return .writing(file, sink)
  }

  // MARK: Events

  private func receiveFrames() throws -> PayloadOutcome {
    // A resumed prefix may already hold the whole head.
    if content.isFull { judgeContent() }
    while true {
      let frame = try connection.receiveHeader()
      switch frame.kind {
      case .data:
        try receiveData(frame.length)
      case .end:
        return end(digest: try connection.receivePayload(frame.length))
      case .control:
        let message = try MessageCodec.decode(try connection.receivePayload(frame.length))
        if case .failure(let failure) = message {
          throw ShareError.peerFailure(code: failure.code, message: failure.message)
        }
        throw WireError.unexpected(expected: "the bytes of item \(payload.item)", got: "a \(message.typeName) message")
      case .begin:
        throw WireError.unexpected(expected: "the end of item \(payload.item)", got: "a begin frame")
      }
    }
  }

  /// A data frame: its bytes gather in the sink's buffer and go to disk a full buffer at a time,
  /// whatever sizes the sender's frames have; a doomed payload's go to the session buffer and
  /// are dropped.
  private func receiveData(_ length: Int) throws {
    let limit = payload.declared ?? channel.policy.maxItemBytes
    guard received + Int64(length) <= limit else {
      throw payload.declared == nil
        ? WireError.invalidAsk("an item of unknown size grew past \(formatBytes(limit))")
        : WireError.oversize(declared: limit)
    }
    var remaining = length
    while remaining > 0 {
      let space: UnsafeMutableRawBufferPointer
      switch state {
      case .writing(_, let sink): space = sink.space
      case .doomed, .complete: space = channel.buffer
      }
      let piece = UnsafeMutableRawBufferPointer(rebasing: space[0..<min(remaining, space.count)])
      try connection.receive(into: piece)
      remaining -= piece.count
      received += Int64(piece.count)
      channel.progress(Int64(piece.count))
      if content.take(UnsafeRawBufferPointer(piece)) { judgeContent() }
      if case .writing(_, let sink) = state, let failure = sink.commit(piece.count) { stopWriting(failure) }
    }
  }

  /// The first bytes are in: the type rules judge them; a refusal dooms the payload and tells
  /// the sender to stop (the rest would only be drained).
  private func judgeContent() {
    let verdict = content.judge(payload, policy: channel.policy)
    // A long item will take a while: libmagic's database need not stay resident meanwhile.
    if payload.releasesMagicPages { channel.policy.types?.sniffer.releaseDatabasePages() }
    guard let verdict, !verdict.accepted, case .writing = state else { return }
    doom(Doom(reason: verdict.reason, refused: true))
    skip(verdict.reason)
  }

  /// Tells the sender to stop sending this payload and end it empty; whatever it has in flight
  /// is drained. (A Skip that arrives after the payload ended is ignored.)
  private func skip(_ reason: String) {
    try? connection.sendNow(.skip(Skip(item: payload.item, entry: payload.entry, reason: PeerText(reason))))
  }

  /// The end frame: the outcome, from the state and, for bytes still wanted, the declared size
  /// and the digest (absent when the sender abandoned the payload).
  private func end(digest digestBytes: [UInt8]) -> PayloadOutcome {
    // A small item is all in its head: its content verdict can wait for the batch (computed on
    // the sniff queue meanwhile); anything larger was judged on its first bytes.
    let deferred = payload.mayDefer && content.isPending && Int64(content.head.count) == received && received > 0
    if content.isPending && !deferred { judgeContent() }
    // A large file's last writes may end while the next item arrives (its batch confirms them).
    var background = false
    if case .writing(_, let sink) = state {
      // A package is read back once complete: its writes must be done first.
      background = payload.mayDefer && sink.isPipelined && !content.needsWhole
      if let failure = background ? sink.finishInBackground() : sink.finish() { stopWriting(failure) }
    }
    switch state {
    case .complete:
      preconditionFailure("a payload ends once")
    case .doomed(let doom):
      state = .complete
      return doom.refused ? .refused(doom.reason, type: content.type) : .failed(doom.reason, type: content.type, detail: doom.detail)
    case .writing(let file, let sink):
      state = .complete
      guard let digest = Digest(bytes: digestBytes) else { return discarding(file, sink, ItemReceipt.senderGaveUp) }
      if let declared = payload.declared, received != declared {
        return discarding(file, sink, "the sender sent \(received) of the \(declared) bytes it declared")
      }
      if hasher.finalize() != digest.bytes {
        return discarding(file, sink, "its bytes do not match their SHA-256; nothing was kept")
      }
      if let verdict = content.judgeWhole(payload, size: received, file: file.url, policy: channel.policy), !verdict.accepted {
        _ = sink.finish()
        PayloadReceiver.removeStaging(file, of: payload, in: channel.store)
        return .refused(verdict.reason, type: verdict.type)
      }
      return .complete(
        file, size: received, digest: digest, type: content.type, deferredHead: deferred ? content.head : nil,
        writes: background ? sink : nil)
    }
  }

  /// The connection failed mid-payload: a resumable item keeps what it has (written out and
  /// synced) for the next try; anything else is removed.
  private func interrupted() {
    guard case .writing(let file, let sink) = state else { return }
    state = .complete
    if payload.resume == nil { sink.drop() }
    _ = sink.finish()
    if let resume = payload.resume {
      channel.store.keepForResume(file, record: resume)
    } else {
      file.discard()
    }
  }

  // MARK: Dooming

  /// Stops writing, waits for the writer, and removes the staging: nothing of it stays.
  private func doom(_ doom: Doom) {
    if case .writing(let file, let sink) = state {
      sink.drop()
      _ = sink.finish()
      PayloadReceiver.removeStaging(file, of: payload, in: channel.store)
    }
    state = .doomed(doom)
  }

  /// The sink stopped writing: a write failed, or its bytes reached the disk reserve. The
  /// sender is told to stop (an item of unknown size could go on for a long time; review 44: a
  /// full disk let 47.7 MiB more come to be drained); what it has in flight is drained.
  private func stopWriting(_ failure: PayloadSink.Failure) {
    let (reason, detail) = failure.reasons(inbox: channel.store.inbox)
    doom(Doom(reason: reason, detail: detail))
    skip(reason)
  }

  /// Removes a complete payload's staging once `sink`'s writer is done with the file.
  private func discarding(_ file: StagingFile, _ sink: PayloadSink, _ reason: String) -> PayloadOutcome {
    _ = sink.finish()
    PayloadReceiver.removeStaging(file, of: payload, in: channel.store)
    return .failed(reason, type: content.type)
  }

  private static func removeStaging(_ file: StagingFile, of payload: Payload, in store: InboxStore) {
    file.discard()
    if let resume = payload.resume { store.discardResumable(resume) }
  }
}

/// A payload's first bytes, gathered for the type rules' content verdict.
struct ContentHead {
  private(set) var head: [UInt8] = []
  private let length: Int
  /// Whether the verdict is still to come (no type rules: never).
  private(set) var isPending: Bool
  /// The type the content verdict decided.
  private(set) var type: TypeIdentifier? = nil
  /// Whether the verdict on the head let in a package that goes on past it: it is judged again
  /// once complete (`judgeWhole`).
  private(set) var needsWhole = false

  init(length: Int) {
    self.length = length
    isPending = length > 0
  }

  var isFull: Bool { isPending && head.count >= length }

  /// Keeps what the head still lacks of `bytes`; true when the head is now full.
  mutating func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard isPending, head.count < length else { return false }
    head.append(contentsOf: bytes.prefix(length - head.count))
    return head.count >= length
  }

  /// No verdict will be made (the bytes seen are not the item's).
  mutating func abandon() { isPending = false }

  /// The type rules' verdict on the head (once).
  mutating func judge(_ payload: Payload, policy: ReceivePolicy) -> Verdict? {
    isPending = false
    let verdict = policy.judgeContent(name: payload.name, kind: payload.kind, head: head, size: payload.declared)
    type = verdict?.type
    needsWhole =
      verdict?.accepted == true && payload.kind == .file && head.count >= length && head.withUnsafeBytes(ContentClassifier.needsWhole)
    return verdict
  }

  /// The type rules' verdict on the complete item at `file` (`size` bytes), for a package the
  /// head's verdict let in (`needsWhole`): a ZIP's central directory, an OLE2 file's directory
  /// and FAT, wherever they lie; nil for anything else. Its writes must all be done.
  mutating func judgeWhole(_ payload: Payload, size: Int64, file: URL, policy: ReceivePolicy) -> Verdict? {
    guard needsWhole else { return nil }
    needsWhole = false
    let verdict = ItemBytes.reading(path: file.path) { whole in
      policy.judgeContent(name: payload.name, kind: payload.kind, head: head, size: size, whole: whole)
    }
    type = verdict?.type ?? type
    return verdict
  }
}
