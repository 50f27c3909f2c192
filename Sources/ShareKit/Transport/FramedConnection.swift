import TLS
import Wire

/// A TLS connection that speaks share frames.
///
/// Small frames are gathered in an output buffer and written together (one TLS record for a
/// begin, a small file's data and its end), so thousands of small items cost few records and
/// system calls; `flush()` writes them before any wait for the peer. Thread-confined: the one
/// thread that runs a session owns it; `abort()` may be called from any thread.
final class FramedConnection {
  let tls: TLSConnection
  /// The caps on what comes in; a sender widens the control cap for the Receipt
  /// (`Sender.receiptLimit`).
  var limits: WireLimits
  /// Frames queued to go out in one write, up to `outputLimit`: it grows only as far as a
  /// side queues (a sender's small files, a receiver's few messages), not reserved up front
  /// (256 KiB on each of 50 connections at once is 12 MiB).
  private var output: [UInt8] = []
  private let outputLimit = 256 << 10
  private var headerBuffer = [UInt8](repeating: 0, count: FrameHeader.size)

  init(_ tls: TLSConnection, limits: WireLimits = .default) {
    self.tls = tls
    self.limits = limits
  }

  // MARK: Sending

  /// Queues a control message.
  func send(_ message: Message) throws {
    try queue(MessageCodec.frame(message))
  }

  /// Queues a control message and writes everything queued.
  func sendNow(_ message: Message) throws {
    try send(message)
    try flush()
  }

  /// Queues a `begin` frame.
  func sendBegin(_ begin: BeginFrame) throws {
    let payload = begin.encoded
    try queue(FrameHeader(kind: .begin, length: payload.count).encoded + payload)
  }

  /// Sends one data frame whose payload is `buffer[FrameHeader.size...]`; the first five bytes
  /// of `buffer` are overwritten with the header, so a large chunk goes out in one write.
  func sendData(framedIn buffer: UnsafeMutableRawBufferPointer) throws {
    let payload = buffer.count - FrameHeader.size
    precondition(payload >= 0 && payload <= limits.maxChunkBytes, "data frame out of bounds")
    FrameHeader(kind: .data, length: payload).encode(into: buffer)
    if buffer.count <= 64 << 10 && output.count + buffer.count <= outputLimit {
      output.append(contentsOf: buffer)
      return
    }
    try flush()
    try tls.write(UnsafeRawBufferPointer(buffer))
  }

  /// Queues an `end` frame: the item's digest, or nil to abandon the item.
  func sendEnd(_ digest: Digest?) throws {
    let payload = digest?.bytes ?? []
    try queue(FrameHeader(kind: .end, length: payload.count).encoded + payload)
  }

  /// Writes everything queued.
  func flush() throws {
    guard !output.isEmpty else { return }
    try output.withUnsafeBytes { try tls.write($0) }
    output.removeAll(keepingCapacity: true)
  }

  /// Queues `bytes`; a frame larger than the buffer (an Ask or Receipt of thousands of items)
  /// goes out at once, unbuffered, so the buffer never grows to its size.
  private func queue(_ bytes: [UInt8]) throws {
    if output.count + bytes.count > outputLimit { try flush() }
    if bytes.count > outputLimit { return try bytes.withUnsafeBytes { try tls.write($0) } }
    output.append(contentsOf: bytes)
  }

  // MARK: Receiving

  /// Reads the next frame header.
  func receiveHeader() throws -> FrameHeader {
    try headerBuffer.withUnsafeMutableBytes { try tls.readExactly(into: $0) }
    return try FrameHeader(decoding: headerBuffer, limits: limits)
  }

  /// Reads a payload of `count` bytes into a new array, which grows as the bytes arrive (64 KiB,
  /// then doubling): a header that declares 16 MiB and sends one byte costs 64 KiB, not 16 MiB
  /// reserved and zeroed before anything came (review 15: 32 unauthenticated connections of six
  /// bytes each held half a gigabyte).
  func receivePayload(_ count: Int) throws -> [UInt8] {
    var payload: [UInt8] = []
    while payload.count < count {
      let start = payload.count
      payload.append(contentsOf: repeatElement(0, count: min(count - start, max(start, 64 << 10))))
      try payload.withUnsafeMutableBytes { try tls.readExactly(into: UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }
    return payload
  }

  /// Reads payload bytes into `buffer`, all of them.
  func receive(into buffer: UnsafeMutableRawBufferPointer) throws {
    if buffer.count > 0 { try tls.readExactly(into: buffer) }
  }

  /// Reads the next frame, which must be a control message of at most `maxBytes` (the wire's
  /// limit for control frames when nil).
  /// `admit` is told the message's length before its bytes are read, and may refuse it: the
  /// bytes are then read and dropped, 64 KiB at a time, so that the sender, still writing them,
  /// reads the refusal rather than a connection reset.
  func receiveMessage(expecting expected: String, maxBytes: Int? = nil, admit: (Int) throws -> Void = { _ in }) throws -> Message {
    try message(after: receiveHeader(), expecting: expected, maxBytes: maxBytes, admit: admit)
  }

  /// The peer's first message, as `receiveMessage`; nil when the peer closed the connection
  /// cleanly (close_notify) before sending a byte: a peer that only checked the certificate
  /// (`share peers`, `PeerProof`).
  func receiveFirstMessage(expecting expected: String, maxBytes: Int) throws -> Message? {
    let first = try headerBuffer.withUnsafeMutableBytes { try tls.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<1])) }
    guard first > 0 else { return nil }
    try headerBuffer.withUnsafeMutableBytes { try tls.readExactly(into: UnsafeMutableRawBufferPointer(rebasing: $0[1...])) }
    return try message(after: FrameHeader(decoding: headerBuffer, limits: limits), expecting: expected, maxBytes: maxBytes)
  }

  private func message(
    after header: FrameHeader, expecting expected: String, maxBytes: Int?, admit: (Int) throws -> Void = { _ in }
  ) throws -> Message {
    guard header.kind == .control else {
      throw WireError.unexpected(expected: expected, got: "a \(header.kind) frame")
    }
    if let maxBytes, header.length > maxBytes {
      throw WireError.frameTooLarge(kind: .control, length: header.length, limit: maxBytes)
    }
    do {
      try admit(header.length)
    } catch {
      try discardPayload(header.length)
      throw error
    }
    return try MessageCodec.decode(try receivePayload(header.length))
  }

  /// Reads `count` bytes and keeps none of them.
  private func discardPayload(_ count: Int) throws {
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    defer { scratch.deallocate() }
    var left = count
    while left > 0 {
      let chunk = min(left, scratch.count)
      try tls.readExactly(into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<chunk]))
      left -= chunk
    }
  }

  /// Sends a `Failure` and closes, best effort: the peer may already be gone.
  func fail(code: String, message: String) {
    try? sendNow(.failure(Failure(code: code, message: PeerText(message))))
    close()
  }

  /// Sends close_notify (best effort) and closes.
  func close() {
    tls.shutdown()
    tls.close()
  }

  /// Aborts a blocked read or write from another thread.
  func abort() { tls.close() }
}
