import CLinux
import Dispatch
import Foundation
import Glibc
import Synchronization
import System
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
    observer(.answered(answer.items))

    // Stream what was accepted, in offer order: each item, or each accepted entry of a folder.
    try tls.setIdleTimeout(connectTimeout)
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
    try connection.flush()

    // The receipt says what is durably stored.
    try tls.setIdleTimeout(receiptTimeout)
    // A Skip may still come for an item already sent whole: nothing to stop any more.
    let receipt = try receive("Receipt", on: connection, lateSkips: true) { message -> Receipt? in
      if case .receipt(let receipt) = message { return receipt }
      return nil
    }
    observer(.receipt(receipt))
    return SendReport(
      endpoint: endpoint, peerName: hello.name, peerFingerprint: fingerprint, answers: answer.items,
      receipt: receipt, abandoned: abandoned)
  }

  /// Connects, runs the TLS handshake and exchanges Hellos. Before anything else is said, the
  /// certificate must be the device its Hello names and, when the endpoint expects one, that
  /// device; the protocol versions must match.
  ///
  /// Each address of the endpoint is tried in turn: one that cannot be reached, or that answers
  /// with another certificate (a spoofed record pointing elsewhere), is passed over for the next.
  /// When none works, the certificate mismatch is reported first: it is the one that matters.
  private func openSession(_ endpoint: Endpoint) throws -> (FramedConnection, Hello) {
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

  /// A `Skip` the receiver sent while this side was streaming (it refused the item on its first
  /// bytes): its reason, or nil when nothing has arrived. Anything else from the receiver now
  /// is a protocol error (or its `Failure`).
  private func receivedSkip(_ connection: FramedConnection, item: Int, entry: Int?) throws -> String? {
    guard connection.tls.hasIncomingData() else { return nil }
    try connection.flush()
    switch try connection.receiveMessage(expecting: "Skip") {
    case .skip(let skip):
      // A late Skip for a payload already sent whole: nothing to stop.
      guard skip.item == item, skip.entry == entry else { return nil }
      return "refused by the receiver while sending: \(skip.reason)"
    case .failure(let f): throw ShareError.peerFailure(code: f.code, message: f.message)
    case let other: throw WireError.unexpected(expected: "Skip", got: "a \(other.typeName) message")
    }
  }

  /// What pairing ended with.
  public struct PairOutcome: Sendable {
    public var peerName: String
    public var peerFingerprint: Fingerprint
    /// The six digits both people compare.
    public var code: String
    public var accepted: Bool
    public var reason: String?
  }

  /// Asks the receiver to make this device a contact. `showCode` is called as soon as the code
  /// is known (both sides derive it from both certificates), before the receiver's owner answers.
  public func pair(
    with endpoint: Endpoint, showCode: (String, String, Fingerprint) -> Void, observer: @escaping (SendEvent) -> Void = { _ in }
  ) throws(ShareError) -> PairOutcome {
    do {
      let (connection, hello) = try openSession(endpoint)
      let tls = connection.tls
      let fingerprint = tls.peerFingerprint
      defer { connection.close() }
      let code = verificationCode(device.fingerprint, fingerprint)
      showCode(code, hello.name, fingerprint)
      try connection.sendNow(.pair(Pair()))
      try tls.setIdleTimeout(answerTimeout)
      let result = try receive("PairResult", on: connection, waits: true, observer: observer) { message -> PairResult? in
        if case .pairResult(let result) = message { return result }
        return nil
      }
      return PairOutcome(peerName: hello.name, peerFingerprint: fingerprint, code: code, accepted: result.accepted, reason: result.reason)
    } catch {
      if cancelled.load(ordering: .sequentiallyConsistent) { throw .cancelled("cancelled") }
      throw ShareError.wrap(error)
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
  private func receive<Value>(
    _ expected: String, on connection: FramedConnection, waits: Bool = false, lateSkips: Bool = false,
    observer: (SendEvent) -> Void = { _ in }, _ pick: (Message) -> Value?
  ) throws -> Value {
    while true {
      let message = try connection.receiveMessage(expecting: expected)
      if let value = pick(message) { return value }
      switch message {
      case .wait(let wait) where waits: observer(.waiting(wait.message))
      case .skip where lateSkips: continue
      case .failure(let f): throw ShareError.peerFailure(code: f.code, message: f.message)
      default: throw WireError.unexpected(expected: expected, got: "a \(message.typeName) message")
      }
    }
  }

  /// Opens the bytes of an item (or of one folder entry) and hands them to `body`.
  /// A source that cannot be opened is a `.failed` source: its payload is abandoned.
  private func withSource(
    _ item: OutgoingItem, entry: Int?, _ body: (ByteSource) throws -> String?
  ) throws -> String? {
    switch item.source {
    case .inline(let bytes):
      return try body(.memory(bytes))
    case .stream(let fd):
      return try body(.descriptor(fd))
    case .spooled(let fd):
      return try body(.positioned(fd))
    case .file(let url):
      return try withFile(url, body)
    case .folder(_, let entries):
      guard let entry, let url = entries[safe: entry] ?? nil else { return try body(.failed("no such entry")) }
      return try withFile(url, body)
    }
  }

  private func withFile(_ url: URL, _ body: (ByteSource) throws -> String?) throws -> String? {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { return try body(.failed("cannot read it: \(String(cString: strerror(errno)))")) }
    defer { close(fd) }
    _ = clinux_fadvise_sequential(fd)
    return try body(.descriptor(fd))
  }

  /// Streams one payload: begin, data frames, end with its digest. With a declared size,
  /// exactly that many bytes are sent; without one, everything up to end of input. Returns why
  /// the payload was abandoned (its end frame then carries no digest), or nil when sent whole.
  private func stream(
    item: Int, entry: Int?, from resumeAt: Int64, declared: Int64?, source: ByteSource,
    over connection: FramedConnection, buffer: UnsafeMutableRawBufferPointer, progress: (Int64) -> Void
  ) throws -> String? {
    let hasher = SHA256Hasher()
    var done: Int64 = 0
    var offset = 0
    // Resuming: the receiver holds the first `resumeAt` bytes; prove ours are the same by their
    // digest, then carry on from there (the digest at the end still covers the whole item).
    if resumeAt > 0, case .descriptor = source {
      let payloadArea = UnsafeMutableRawBufferPointer(rebasing: buffer[FrameHeader.size...])
      while done < resumeAt {
        let n = source.read(into: UnsafeMutableRawBufferPointer(rebasing: payloadArea[0..<Int(min(Int64(payloadArea.count), resumeAt - done))]), at: &offset)
        if n <= 0 { break }
        hasher.update(UnsafeRawBufferPointer(rebasing: payloadArea[0..<n]))
        done += Int64(n)
      }
    }
    if resumeAt > 0 {
      try connection.sendBegin(BeginFrame(item: item, entry: entry, offset: resumeAt, prefixDigest: Digest(bytes: hasher.finalizeCopy())))
      if done < resumeAt {
        try connection.sendEnd(nil)
        return "it shrank since the interrupted attempt"
      }
    } else {
      try connection.sendBegin(BeginFrame(item: item, entry: entry))
    }
    if case .failed(let reason) = source {
      try connection.sendEnd(nil)
      return reason
    }
    if let declared, declared - done >= Sender.pipelineBytes {
      return try streamPipelined(
        item: item, entry: entry, declared: declared, done: done, offset: offset, source: source, hasher: hasher, over: connection, progress: progress)
    }
    let payloadArea = UnsafeMutableRawBufferPointer(rebasing: buffer[FrameHeader.size...])
    while declared.map({ done < $0 }) ?? true {
      let want = Int(min(Int64(payloadArea.count), (declared ?? Int64.max) - done))
      var got = 0
      while got < want {
        let n = source.read(into: UnsafeMutableRawBufferPointer(rebasing: payloadArea[got..<want]), at: &offset)
        if n < 0 {
          try connection.sendEnd(nil)
          return "cannot read it: \(String(cString: strerror(errno)))"
        }
        if n == 0 { break }
        got += n
      }
      if got == 0 && declared == nil { break }
      if got < want && declared != nil {
        try connection.sendEnd(nil)
        return "it shrank while being sent"
      }
      let frame = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(FrameHeader.size + got)])
      hasher.update(UnsafeRawBufferPointer(rebasing: frame[FrameHeader.size...]))
      if let skipped = try receivedSkip(connection, item: item, entry: entry) {
        try connection.sendEnd(nil)
        return skipped
      }
      try connection.sendData(framedIn: frame)
      done += Int64(got)
      progress(Int64(got))
      if got < want { break }  // end of a stream of unknown length
    }
    guard let digest = Digest(bytes: hasher.finalize()) else { fatalError("SHA-256 is 32 bytes") }
    try connection.sendEnd(digest)
    return nil
  }
}

extension Sender {
  /// Items with at least this many bytes left are read and hashed on a second thread while this
  /// one encrypts and sends, so the work spreads over two cores.
  static let pipelineBytes: Int64 = 8 << 20

  /// `stream`'s loop for a large item of known size: a reader thread fills buffers (read and
  /// SHA-256), this thread frames, encrypts and sends them.
  private func streamPipelined(
    item: Int, entry: Int?, declared: Int64, done start: Int64, offset startOffset: Int, source: ByteSource, hasher: SHA256Hasher,
    over connection: FramedConnection, progress: (Int64) -> Void
  ) throws -> String? {
    let pipeline = BufferPipeline(count: 3, size: FrameHeader.size + BufferPipeline.bufferSize)
    let reader = ReaderState(source: source, hasher: hasher)
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
      var done = start
      var offset = startOffset
      defer {
        pipeline.finish()
        finished.signal()
      }
      while done < declared {
        if reader.stopped.load(ordering: .acquiring) { return }
        let index = pipeline.takeFree()
        let area = UnsafeMutableRawBufferPointer(rebasing: pipeline.buffers[index][FrameHeader.size...])
        let want = Int(min(Int64(area.count), declared - done))
        var got = 0
        while got < want {
          let n = reader.source.read(into: UnsafeMutableRawBufferPointer(rebasing: area[got..<want]), at: &offset)
          if n < 0 {
            reader.problem.withLock { $0 = "cannot read it: \(String(cString: strerror(errno)))" }
            pipeline.release(index)
            return
          }
          if n == 0 { break }
          got += n
        }
        if got < want {
          reader.problem.withLock { $0 = "it shrank while being sent" }
          pipeline.release(index)
          return
        }
        reader.hasher.update(UnsafeRawBufferPointer(rebasing: area[0..<got]))
        pipeline.submit(index, length: got)
        done += Int64(got)
      }
    }
    thread.name = "share-reader"
    thread.start()
    do {
      while let (index, length) = pipeline.takeFull() {
        let frame = UnsafeMutableRawBufferPointer(rebasing: pipeline.buffers[index][0..<(FrameHeader.size + length)])
        defer { pipeline.release(index) }
        if let skipped = try receivedSkip(connection, item: item, entry: entry) {
          reader.stopped.store(true, ordering: .releasing)
          reader.problem.withLock { $0 = skipped }
          break
        }
        try connection.sendData(framedIn: frame)
        progress(Int64(length))
      }
      if reader.stopped.load(ordering: .acquiring) {
        while let (index, _) = pipeline.takeFull() { pipeline.release(index) }
      }
    } catch {
      // Unblock and wait for the reader before the buffers go away.
      reader.stopped.store(true, ordering: .releasing)
      while let (index, _) = pipeline.takeFull() { pipeline.release(index) }
      finished.wait()
      throw error
    }
    finished.wait()
    if let problem = reader.problem.withLock({ $0 }) {
      try connection.sendEnd(nil)
      return problem
    }
    guard let digest = Digest(bytes: hasher.finalize()) else { fatalError("SHA-256 is 32 bytes") }
    try connection.sendEnd(digest)
    return nil
  }
}

/// What the reader thread of a pipelined send owns or reports.
///
/// `@unchecked Sendable`: `source` and `hasher` are used only by the reader thread until it has
/// signalled that it finished; `problem` and `stopped` are synchronised.
private final class ReaderState: @unchecked Sendable {
  let source: ByteSource
  let hasher: SHA256Hasher
  let problem = Mutex<String?>(nil)
  let stopped = Atomic<Bool>(false)
  init(source: ByteSource, hasher: SHA256Hasher) {
    self.source = source
    self.hasher = hasher
  }
}

/// Where a payload's bytes are read from.
enum ByteSource {
  case memory([UInt8])
  case descriptor(Int32)
  /// A file read with pread from offset 0, so several senders can share one descriptor.
  case positioned(Int32)
  case failed(String)

  /// Reads up to `buffer.count` bytes; 0 at the end, -1 on error (errno set).
  func read(into buffer: UnsafeMutableRawBufferPointer, at offset: inout Int) -> Int {
    switch self {
    case .memory(let bytes):
      let count = min(buffer.count, bytes.count - offset)
      guard count > 0 else { return 0 }
      bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
      offset += count
      return count
    case .descriptor(let fd):
      while true {
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n < 0 && errno == EINTR { continue }
        return n
      }
    case .positioned(let fd):
      while true {
        let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
        if n < 0 && errno == EINTR { continue }
        if n > 0 { offset += n }
        return n
      }
    case .failed:
      return -1
    }
  }
}
