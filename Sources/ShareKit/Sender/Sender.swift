import Dispatch
import Foundation
import Glibc
import Synchronization
import System
import TextEscaping
import TLS
import Wire

/// The sending side of one exchange with one receiver: connect, Hello, Ask, stream the accepted
/// items, read the Receipt. Blocking; run it on its own thread (one per recipient).
///
/// `@unchecked Sendable`: only `cancel()` is called from other threads, and it touches the
/// connection only through the thread-safe `Socket.close()` held in a `Mutex`.
public final class Sender: @unchecked Sendable {
  public let device: Device
  private let context: TLSContext
  private let socket = Mutex<Socket?>(nil)
  let cancelled = Atomic<Bool>(false)

  public var connectTimeout: Duration = .seconds(10)
  /// How long to wait for the receiver's answer (a person may be asked first).
  public var answerTimeout: Duration = .seconds(300)
  /// How long the receiver may take to make everything durable and send its Receipt.
  public var receiptTimeout: Duration = .seconds(300)
  /// Bytes per data frame.
  public static let chunkSize = 1 << 20

  public init(device: Device) throws(ShareError) {
    ignoreSIGPIPE()
    self.device = device
    do {
      context = try TLSContext(identity: device.identity, role: .client)
    } catch {
      throw ShareError.wrap(error)
    }
  }

  /// Aborts the exchange from any thread; `send` then throws `.cancelled`.
  public func cancel() {
    cancelled.store(true, ordering: .sequentiallyConsistent)
    socket.withLock { $0?.close() }
  }

  /// Runs the whole exchange.
  public func send(
    _ items: [OutgoingItem], to endpoint: Endpoint, observer: @escaping (SendEvent) -> Void = { _ in }
  ) throws(ShareError) -> SendReport {
    do {
      return try exchange(items, endpoint: endpoint, observer: observer)
    } catch {
      if cancelled.load(ordering: .sequentiallyConsistent) { throw .cancelled("cancelled") }
      throw ShareError.wrap(error)
    }
  }

  private func exchange(
    _ items: [OutgoingItem], endpoint: Endpoint, observer: (SendEvent) -> Void
  ) throws -> SendReport {
    let (connection, hello) = try openSession(endpoint)
    let tls = connection.tls
    let fingerprint = tls.peerFingerprint
    defer { connection.close() }
    observer(.connected(peerName: hello.name, fingerprint: fingerprint))

    // Offer, then wait for the answer.
    try connection.sendNow(.ask(Ask(items: items.map(\.offer))))
    try tls.setIdleTimeout(answerTimeout)
    let answer = try receive("Answer", on: connection, waits: true, observer: observer) { message -> Answer? in
      if case .answer(let answer) = message { return answer }
      return nil
    }
    let names = Dictionary(items.map { ($0.offer.id, $0.offer.name) }, uniquingKeysWith: { first, _ in first })
    func name(_ id: Int) -> String { names[id] ?? "#\(id)" }
    let verdicts = answer.items.map { ItemVerdict($0, name: name($0.id)) }
    observer(.answered(verdicts))

    // Stream what was accepted, in offer order: each item, or each accepted entry of a folder.
    try tls.setIdleTimeout(connectTimeout)
    let abandoned = try streamAccepted(items, answer: answer, over: connection, observer: observer)
    try connection.flush()

    // The receipt says what is durably stored.
    try tls.setIdleTimeout(receiptTimeout)
    // A Skip may still come for an item already sent whole: nothing to stop any more.
    let receipt = try receive("Receipt", on: connection, lateSkips: true) { message -> Receipt? in
      if case .receipt(let receipt) = message { return receipt }
      return nil
    }
    return SendReport(
      endpoint: endpoint, peerName: hello.name, peerFingerprint: fingerprint, answers: verdicts,
      items: receipt.items.map { ItemOutcome($0, name: name($0.id), abandoned: abandoned[$0.id]) })
  }

  /// Streams the accepted items in offer order (each item, or each accepted entry of a folder),
  /// reporting progress; returns the items given up on while sending, with why.
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
      let resumeAt = item.offer.kind == .file ? max(0, min(verdict.offset ?? 0, item.offer.size ?? 0)) : 0
      for payload in item.payloads(for: verdict) {
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

  /// Connects, runs the TLS handshake and exchanges Hellos. Before anything else is said, the
  /// certificate must be the device its Hello names and, when the endpoint expects one, that
  /// device; the protocol versions must match.
  ///
  /// Each address of the endpoint is tried in turn: one that cannot be reached, or that answers
  /// with another certificate (a spoofed record pointing elsewhere), is passed over for the next.
  /// When none works, the certificate mismatch is reported first: it is the one that matters.
  func openSession(_ endpoint: Endpoint) throws -> (FramedConnection, Hello) {
    var firstError: (any Error)? = nil
    var mismatch: (any Error)? = nil
    for (host, port) in [(endpoint.host, endpoint.port)] + endpoint.alternatives {
      if cancelled.load(ordering: .sequentiallyConsistent) { break }
      do {
        return try openSession(host: host, port: port, endpoint: endpoint)
      } catch {
        if case ShareError.identityMismatch = error, mismatch == nil { mismatch = error }
        if firstError == nil { firstError = error }
      }
    }
    throw mismatch ?? firstError ?? ShareError.transport("no address to connect to", detail: "empty endpoint")
  }

  private func openSession(host: String, port: UInt16, endpoint: Endpoint) throws -> (FramedConnection, Hello) {
    let tcp = try Socket.connect(host: host, port: port, timeout: connectTimeout)
    socket.withLock { $0 = tcp }
    if cancelled.load(ordering: .sequentiallyConsistent) { tcp.close() }
    let tls = try TLSConnection.connect(tcp, context: context, timeout: connectTimeout)
    let connection = FramedConnection(tls)
    do {
      try tls.setIdleTimeout(connectTimeout)
      try connection.sendNow(.hello(Hello(name: device.name, id: device.fingerprint.hex)))
      let hello = try expectHello(connection)
      let fingerprint = tls.peerFingerprint
      guard Fingerprint(hex: hello.id) == fingerprint else { throw WireError.identityMismatch }
      if let expected = endpoint.expectedFingerprint, expected != fingerprint {
        throw ShareError.identityMismatch(expected: expected.hex, actual: fingerprint.hex, peer: endpoint.description)
      }
      guard hello.version == protocolVersion else {
        throw WireError.versionMismatch(ours: protocolVersion, theirs: hello.version)
      }
      return (connection, hello)
    } catch {
      connection.close()
      throw error
    }
  }

  private func expectHello(_ connection: FramedConnection) throws -> Hello {
    try receive("Hello", on: connection) { message -> Hello? in
      if case .hello(let hello) = message { return hello }
      return nil
    }
  }

  /// The next control message `pick` takes. A `Failure` becomes the peer's error; anything else
  /// breaks the protocol, except where the caller allows them: a `Wait` (`waits`: reported to
  /// `observer` while the receiver asks its owner) and a late `Skip` (`lateSkips`: ignored).
  func receive<Value>(
    _ expected: String, on connection: FramedConnection, waits: Bool = false, lateSkips: Bool = false,
    observer: (SendEvent) -> Void = { _ in }, _ pick: (Message) -> Value?
  ) throws -> Value {
    while true {
      let message = try connection.receiveMessage(expecting: expected)
      if let value = pick(message) { return value }
      switch message {
      case .wait(let wait) where waits: observer(.waiting(wait.message))
      case .skip where lateSkips: continue
      case .failure(let f): throw ShareError.peerFailure(code: f.code, message: PeerText(f.message))
      default: throw WireError.unexpected(expected: expected, got: "a \(message.typeName) message")
      }
    }
  }
}
