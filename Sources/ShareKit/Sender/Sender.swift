import Dispatch
import Foundation
import Glibc
import Synchronization
import System
import TLS
import TextEscaping
import Wire

/// The sending side of one exchange with one receiver: connect, Hello, Ask, stream the accepted
/// items, read the Receipt. Blocking; run it on its own thread (one per recipient).
///
/// Nothing the receiver says is believed that cannot be true: its certificate must be the
/// device expected, its answers must be about the items offered (`ReceiverClaims`), and its
/// waits are bounded.
///
/// `@unchecked Sendable`: only `cancel()` is called from other threads, and it touches the
/// connection only through the thread-safe `Socket.close()` and `ConnectionRace.cancel()`,
/// held in `Mutex`es.
package final class Sender: @unchecked Sendable {
  package let device: Device
  let context: TLSContext
  let socket = Mutex<Socket?>(nil)
  let race = Mutex<ConnectionRace?>(nil)
  let cancelled = Atomic<Bool>(false)
  /// Signalled by `cancel()`, to end a pause (the backoff before trying a busy receiver again).
  let wake = DispatchSemaphore(value: 0)

  package var connectTimeout: Duration = .seconds(10)
  /// How long to wait before trying once more a receiver that said it is busy (or closed the
  /// connection before it was set up, as a receiver does when too many are starting at once);
  /// each pause after is twice the one before, up to 4 times this, each shortened or
  /// lengthened by up to a quarter at random, so that senders turned away together do not come
  /// back together.
  package var busyBackoff: Duration = .seconds(1)
  /// How long in all a busy receiver is tried again before the send reports it busy.
  package var busyPatience: Duration = .seconds(30)
  /// How long the receiver may take to answer an offer before it says it is asking its owner.
  package var answerTimeout: Duration = .seconds(60)
  /// The longest this side waits for the receiver's owner after a `Wait`, counted from the
  /// first: the receiver's announced time is believed up to this much.
  package var maximumWait: Duration = .seconds(600)
  /// After the time a receiver announced for its owner, this much more for its reply to arrive.
  package var replyGrace: Duration = .seconds(5)
  /// How long the receiver may take to make everything durable and send its Receipt.
  package var receiptTimeout: Duration = .seconds(300)
  /// Bytes per data frame.
  package static let chunkSize = 1 << 20

  package init(device: Device) throws(ShareError) {
    ignoreSIGPIPE()
    self.device = device
    do {
      context = try TLSContext(identity: device.identity, role: .client)
    } catch {
      throw ShareError.wrap(error)
    }
  }

  /// Aborts the exchange from any thread; `send` then throws `.cancelled`.
  package func cancel() {
    cancelled.store(true, ordering: .sequentiallyConsistent)
    wake.signal()
    race.withLock { $0?.cancel() }
    socket.withLock { $0?.close() }
  }

  var isCancelled: Bool { cancelled.load(ordering: .sequentiallyConsistent) }

  /// Runs the whole exchange.
  /// `sameAs`: asked once the receiver has proved its ID, before anything is offered; it names
  /// another receiver of the same send that proved that ID first (`MultiSend`), and the send
  /// then ends with `.sameReceiver`.
  package func send(
    _ items: [OutgoingItem], to endpoint: Endpoint, sameAs: SameReceiver = SameReceiver { _ in nil },
    observer: @escaping (SendEvent) -> Void = { _ in }
  ) throws(ShareError) -> SendReport {
    do {
      return try exchange(items, endpoint: endpoint, sameAs: sameAs, observer: observer)
    } catch {
      if isCancelled { throw .cancelled("cancelled") }
      throw ShareError.wrap(error)
    }
  }

  private func exchange(
    _ items: [OutgoingItem], endpoint: Endpoint, sameAs: SameReceiver, observer: (SendEvent) -> Void
  ) throws -> SendReport {
    let session = try openSession(endpoint, observer: observer)
    let (connection, hello) = (session.connection, session.hello)
    let tls = connection.tls
    let fingerprint = tls.peerFingerprint
    defer { connection.close() }
    // Review 18: `--to bob-desk --to 127.0.0.1:48002`, one device, stored everything twice.
    if let other = sameAs.claim(fingerprint) { throw ShareError.sameReceiver(as: other) }
    observer(.connected(peerName: hello.name, fingerprint: fingerprint, address: session.candidate.address))
    let receiver = ReceiverClaims(peerName: hello.name, address: session.candidate.address, offers: items.map(\.offer))

    // Offer, then wait for the answer (a person may be asked first).
    try connection.sendNow(.ask(Ask(items: receiver.offers)))
    let answer = try awaitReply("Answer", on: connection, from: receiver, observer: observer) { message -> Answer? in
      if case .answer(let answer) = message { return answer }
      return nil
    }
    try receiver.check(answer)
    let verdicts = answer.items.map { ItemVerdict($0, name: receiver.name(of: $0.id)) }
    observer(.answered(verdicts))

    // Stream what was accepted, in offer order: each item, or each accepted entry of a folder.
    try tls.setIdleTimeout(connectTimeout)
    let abandoned = try streamAccepted(items, answer: answer, over: connection, observer: observer)
    try connection.flush()

    // The receipt says what is durably stored.
    try tls.setIdleTimeout(receiptTimeout)
    connection.limits.maxControlBytes = max(connection.limits.maxControlBytes, Self.receiptLimit(items: items.count))
    // A Skip may still come for an item already sent whole: nothing to stop any more.
    let receipt = try receive("Receipt", on: connection, lateSkips: true) { message -> Receipt? in
      if case .receipt(let receipt) = message { return receipt }
      return nil
    }
    try receiver.check(receipt, after: answer)
    return SendReport(
      endpoint: endpoint, peerName: hello.name, peerFingerprint: fingerprint, address: session.candidate.address,
      advertisedAs: session.candidate.advertisedAs, answers: verdicts,
      items: receipt.items.map { ItemOutcome($0, name: receiver.name(of: $0.id), abandoned: abandoned[$0.id]) })
  }

  /// Streams the accepted items in offer order (each item, or each accepted entry of a folder),
  /// reporting progress; returns the items given up on while sending, with why. The answer has
  /// been checked: every offset is within its item.
  private func streamAccepted(
    _ items: [OutgoingItem], answer: Answer, over connection: FramedConnection, observer: (SendEvent) -> Void
  ) throws -> [Int: String] {
    let verdicts = Dictionary(answer.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let accepted = items.compactMap { item in verdicts[item.offer.id].flatMap { $0.accepted ? (item, $0) : nil } }
    let total = accepted.reduce(Int64(0)) { $0 + $1.0.acceptedBytes(for: $1.1) - ($1.1.offset ?? 0) }
    var sent: Int64 = 0
    var abandoned: [Int: String] = [:]
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FrameHeader.size + Sender.chunkSize, alignment: 4096)
    defer { buffer.deallocate() }
    func progress(_ bytes: Int64) {
      sent += bytes
      observer(.progress(sent: sent, total: total))
    }
    for (item, verdict) in accepted {
      let resumeAt = verdict.offset ?? 0
      for payload in item.payloads(for: verdict) {
        observer(.sending(item.sending(entry: payload.entry, size: payload.size, from: resumeAt)))
        let problem = try withSource(item, entry: payload.entry) { source in
          try stream(
            item: item.offer.id, entry: payload.entry, from: resumeAt, declared: payload.size, source: source,
            over: connection, buffer: buffer, progress: progress)
        }
        if let problem {
          let what = payload.entry.flatMap { item.offer.entries?[safe: $0]?.path }.map { "\($0): " } ?? ""
          abandoned[item.offer.id] = what + problem
        }
      }
    }
    return abandoned
  }

  /// The most a Receipt for `items` items may be: each item's stored name, type, size, digest
  /// and reason, 2 KiB each, and a megabyte for the rest. It grows with the items, as the Ask
  /// does; a Receipt for 100,000 small files was 19.8 MB (review 44), over the 16 MiB any other
  /// control message may be, and a send that stored everything failed.
  static func receiptLimit(items: Int) -> Int { (1 << 20) + items * 2048 }

  /// The next control message `pick` takes. A `Failure` becomes the peer's error; anything else
  /// breaks the protocol, except a late `Skip` where the caller allows it (`lateSkips`: ignored).
  func receive<Value>(
    _ expected: String, on connection: FramedConnection, lateSkips: Bool = false, _ pick: (Message) -> Value?
  ) throws -> Value {
    while true {
      let message = try connection.receiveMessage(expecting: expected)
      if let value = pick(message) { return value }
      switch message {
      case .skip where lateSkips: continue
      case .failure(let f): throw ShareError.peerFailure(code: f.code, message: f.message)
      default: throw WireError.unexpected(expected: expected, got: "a \(message.typeName) message")
      }
    }
  }
}

/// Which other receiver of one send proved a device ID first (`Sender.send`'s `sameAs`): a
/// function in a type of its own, so that a trailing closure is always the observer.
package struct SameReceiver {
  /// Claims `id` for this receiver; the receiver that claimed it first, if another.
  let claim: (Fingerprint) -> PeerText?

  package init(_ claim: @escaping (Fingerprint) -> PeerText?) { self.claim = claim }
}
