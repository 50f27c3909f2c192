import CLinux
import Foundation
import Glibc
import Synchronization
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
  private let cancelled = Atomic<Bool>(false)

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
    let tcp = try Socket.connect(host: endpoint.host, port: endpoint.port, timeout: connectTimeout)
    socket.withLock { $0 = tcp }
    if cancelled.load(ordering: .sequentiallyConsistent) { tcp.close() }
    let tls = try TLSConnection.connect(tcp, context: context, timeout: connectTimeout)
    let connection = FramedConnection(tls)
    defer { connection.close() }

    // Hello, both ways; the certificate must be the device it claims and the one expected.
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
    observer(.connected(peerName: hello.name, fingerprint: fingerprint))

    // Offer, then wait for the answer.
    try connection.sendNow(.ask(Ask(items: items.map(\.offer))))
    try tls.setIdleTimeout(answerTimeout)
    let answer: Answer
    switch try connection.receiveMessage(expecting: "Answer") {
    case .answer(let a): answer = a
    case .failure(let f): throw ShareError.peerFailure(code: f.code, message: f.message)
    case let other: throw WireError.unexpected(expected: "Answer", got: "a \(other.typeName) message")
    }
    observer(.answered(answer.items))

    // Stream what was accepted, in offer order.
    try tls.setIdleTimeout(connectTimeout)
    let verdicts = Dictionary(answer.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let accepted = items.filter { verdicts[$0.offer.id]?.accepted == true }
    let total = accepted.reduce(Int64(0)) { $0 + ($1.offer.size ?? 0) }
    var sent: Int64 = 0
    var abandoned: [Int: String] = [:]
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FrameHeader.size + Sender.chunkSize, alignment: 4096)
    defer { buffer.deallocate() }
    for item in accepted {
      if let problem = try stream(item, over: connection, buffer: buffer, progress: { bytes in
        sent += bytes
        observer(.progress(sent: sent, total: total))
      }) {
        abandoned[item.offer.id] = problem
      }
    }
    try connection.flush()

    // The receipt says what is durably stored.
    try tls.setIdleTimeout(receiptTimeout)
    let receipt: Receipt
    switch try connection.receiveMessage(expecting: "Receipt") {
    case .receipt(let r): receipt = r
    case .failure(let f): throw ShareError.peerFailure(code: f.code, message: f.message)
    case let other: throw WireError.unexpected(expected: "Receipt", got: "a \(other.typeName) message")
    }
    observer(.receipt(receipt))
    return SendReport(
      endpoint: endpoint, peerName: hello.name, peerFingerprint: fingerprint, answers: answer.items,
      receipt: receipt, abandoned: abandoned)
  }

  private func expectHello(_ connection: FramedConnection) throws -> Hello {
    switch try connection.receiveMessage(expecting: "Hello") {
    case .hello(let hello): return hello
    case .failure(let f): throw ShareError.peerFailure(code: f.code, message: f.message)
    case let other: throw WireError.unexpected(expected: "Hello", got: "a \(other.typeName) message")
    }
  }

  /// Streams one item: begin, data frames, end with its digest. Returns why the item was
  /// abandoned (its end frame then carries no digest), or nil when it was sent whole.
  private func stream(
    _ item: OutgoingItem, over connection: FramedConnection, buffer: UnsafeMutableRawBufferPointer,
    progress: (Int64) -> Void
  ) throws -> String? {
    try connection.sendBegin(BeginFrame(item: item.offer.id))
    let hasher = SHA256Hasher()
    switch item.source {
    case .inline(let bytes):
      var offset = 0
      repeat {
        let count = min(bytes.count - offset, Sender.chunkSize)
        let frame = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(FrameHeader.size + count)])
        if count > 0 {
          let chunk = UnsafeMutableRawBufferPointer(rebasing: frame[FrameHeader.size...])
          bytes.withUnsafeBytes { source in
            chunk.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)]))
          }
          hasher.update(UnsafeRawBufferPointer(rebasing: frame[FrameHeader.size...]))
          try connection.sendData(framedIn: frame)
        }
        offset += count
        progress(Int64(count))
      } while offset < bytes.count
    case .file(let url):
      let fd = open(url.path, O_RDONLY | O_CLOEXEC)
      guard fd >= 0 else {
        let reason = String(cString: strerror(errno))
        try connection.sendEnd(nil)
        return "cannot read it: \(reason)"
      }
      defer { close(fd) }
      _ = clinux_fadvise_sequential(fd)
      let declared = item.offer.size ?? 0
      var done: Int64 = 0
      while done < declared {
        let want = Int(min(Int64(Sender.chunkSize), declared - done))
        let payload = buffer.baseAddress!.advanced(by: FrameHeader.size)
        var got = 0
        while got < want {
          let n = read(fd, payload + got, want - got)
          if n < 0 && errno == EINTR { continue }
          if n <= 0 {
            let reason = n == 0 ? "it shrank while being sent" : String(cString: strerror(errno))
            try connection.sendEnd(nil)
            return reason
          }
          got += n
        }
        let frame = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(FrameHeader.size + got)])
        hasher.update(UnsafeRawBufferPointer(rebasing: frame[FrameHeader.size...]))
        try connection.sendData(framedIn: frame)
        done += Int64(got)
        progress(Int64(got))
      }
    }
    guard let digest = Digest(bytes: hasher.finalize()) else { fatalError("SHA-256 is 32 bytes") }
    try connection.sendEnd(digest)
    return nil
  }
}
