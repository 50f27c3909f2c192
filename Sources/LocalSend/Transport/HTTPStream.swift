import TLS

/// HTTP/1.1 message I/O over a `ByteStream` with one fixed buffer: heads are parsed in place,
/// body bytes are handed out as views into the buffer, so memory per connection is constant
/// whatever the body size. Enforces the durations of `HTTPLimits` as socket timeouts: the
/// keep-alive wait for a request's first byte, the head deadline after it, the idle limit for
/// every other read and write. One thread at a time.
final class HTTPStream {
  let stream: any ByteStream
  let limits: HTTPLimits
  private let buffer: UnsafeMutableRawBufferPointer
  private var start = 0
  private var end = 0
  /// The timeout last given to the stream; nil before the first.
  private var currentTimeout: Duration? = nil

  /// The buffer size: room for the largest head and for large body reads.
  static let bufferSize = 64 * 1024

  init(_ stream: any ByteStream, limits: HTTPLimits) {
    self.stream = stream
    self.limits = limits
    buffer = .allocate(byteCount: max(Self.bufferSize, limits.maxHeadBytes), alignment: 16)
  }

  deinit {
    buffer.deallocate()
  }

  /// Replaces the idle timeout for body reads (a short one while lingering before a close).
  var bodyTimeout: Duration?

  /// Bytes already received but not consumed.
  var hasBufferedBytes: Bool { start < end }

  // MARK: Heads

  /// The next request head; nil when the client closed, or stayed silent for the keep-alive
  /// time, between requests.
  func readRequestHead() throws(ConnectionError) -> HTTPRequestHead? {
    let limits = self.limits
    return try readHead(firstByteTimeout: limits.keepAliveTimeout, idleEndsQuietly: true) {
      (bytes) throws(HTTPError) in try HTTPHeadParser.parseRequest(bytes, limits: limits)
    }
  }

  /// The response head to a request made with `method`.
  func readResponseHead(method: String, timeout: Duration) throws(ConnectionError) -> HTTPResponseHead {
    let limits = self.limits
    let head = try readHead(firstByteTimeout: timeout, idleEndsQuietly: false) {
      (bytes) throws(HTTPError) in
      try HTTPHeadParser.parseResponse(bytes, limits: limits, requestMethod: method)
    }
    guard let head else { throw .http(.truncated) }
    return head
  }

  private func readHead<Head>(
    firstByteTimeout: Duration, idleEndsQuietly: Bool,
    parse: (UnsafeRawBufferPointer) throws(HTTPError) -> (head: Head, length: Int)?
  ) throws(ConnectionError) -> Head? {
    var deadline: ContinuousClock.Instant? = start < end ? .now + limits.headTimeout : nil
    while true {
      if start < end {
        let view = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
        let parsed: (head: Head, length: Int)?
        do { parsed = try parse(view) } catch { throw .http(error) }
        if let parsed {
          start += parsed.length
          return parsed.head
        }
      }
      let timeout: Duration
      if let deadline {
        let left = deadline - .now
        guard left > .zero else { throw .http(.timedOut) }
        timeout = min(left, limits.idleTimeout)
      } else {
        timeout = firstByteTimeout
      }
      let count: Int
      do {
        count = try fill(timeout: timeout)
      } catch .http(.timedOut) where deadline == nil && idleEndsQuietly {
        return nil
      }
      if count == 0 {
        if deadline == nil && idleEndsQuietly { return nil }
        throw .http(.truncated)
      }
      if deadline == nil { deadline = .now + limits.headTimeout }
    }
  }

  // MARK: Bodies

  /// The next piece of a body, as a view into the buffer valid until the next call; nil once
  /// the body is complete. Throws `.truncated` if the stream ends early.
  func nextBodyBytes(_ progress: inout BodyProgress) throws(ConnectionError) -> UnsafeRawBufferPointer? {
    while true {
      switch progress {
      case .done:
        return nil
      case .length(let remaining):
        if start == end, try fill(timeout: bodyTimeout ?? limits.idleTimeout) == 0 { throw .http(.truncated) }
        let take = Int(min(remaining, Int64(end - start)))
        defer { start += take }
        progress = remaining == Int64(take) ? .done : .length(remaining: remaining - Int64(take))
        return UnsafeRawBufferPointer(rebasing: buffer[start..<start + take])
      case .untilClose:
        if start == end, try fill(timeout: bodyTimeout ?? limits.idleTimeout) == 0 {
          progress = .done
          return nil
        }
        defer { start = end }
        return UnsafeRawBufferPointer(rebasing: buffer[start..<end])
      case .chunked(var decoder):
        if decoder.isComplete {
          progress = .done
          return nil
        }
        if start == end, try fill(timeout: bodyTimeout ?? limits.idleTimeout) == 0 { throw .http(.truncated) }
        let base = start
        let step: (consumed: Int, data: Range<Int>?)
        do {
          step = try decoder.step(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
        } catch {
          throw .http(error)
        }
        start += step.consumed
        progress = .chunked(decoder)
        if let data = step.data, !data.isEmpty {
          return UnsafeRawBufferPointer(rebasing: buffer[base + data.lowerBound..<base + data.upperBound])
        }
      }
    }
  }

  /// A whole (small) body; `.bodyTooLarge` past `limit`, `.timedOut` past `deadline` however
  /// steadily its bytes trickle in.
  func readBody(_ framing: BodyFraming, limit: Int, deadline: ContinuousClock.Instant? = nil) throws(ConnectionError) -> [UInt8] {
    if case .length(let length) = framing, length > Int64(limit) {
      throw .http(.bodyTooLarge(limit: Int64(limit)))
    }
    var progress = BodyProgress(framing, limit: Int64(limit))
    var body: [UInt8] = []
    let idle = bodyTimeout
    defer { bodyTimeout = idle }
    while true {
      if let deadline {
        let left = deadline - .now
        guard left > .zero else { throw .http(.timedOut) }
        bodyTimeout = min(left, idle ?? limits.idleTimeout)
      }
      guard let piece = try nextBodyBytes(&progress) else { return body }
      guard body.count + piece.count <= limit else { throw .http(.bodyTooLarge(limit: Int64(limit))) }
      body.append(contentsOf: piece)
    }
  }

  /// Reads and drops up to `limit` body bytes; true if the body ended within them.
  func discard(_ progress: inout BodyProgress, limit: Int64) -> Bool {
    var dropped: Int64 = 0
    while dropped <= limit {
      guard let piece = try? nextBodyBytes(&progress) else { return progress.isDone }
      dropped += Int64(piece.count)
    }
    return false
  }

  // MARK: Writing

  func write(_ bytes: [UInt8]) throws(ConnectionError) {
    var failure: TLSError? = nil
    bytes.withUnsafeBytes { raw in
      do throws(TLSError) { try write(raw) } catch { failure = error }
    }
    if let failure { throw .transport(failure) }
  }

  func write(_ raw: UnsafeRawBufferPointer) throws(TLSError) {
    try setTimeout(limits.idleTimeout)
    try stream.write(raw)
  }

  // MARK: Reading

  /// Reads more bytes after `end`, first making room; 0 at the end of the stream (a close
  /// without TLS close_notify counts as the end: HTTP/1.0 servers close that way).
  private func fill(timeout: Duration) throws(ConnectionError) -> Int {
    if start == end {
      start = 0
      end = 0
    } else if end == buffer.count {
      buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: end - start)
      end -= start
      start = 0
    }
    do {
      try setTimeout(timeout)
      let count = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
      end += count
      return count
    } catch .timedOut {
      throw .http(.timedOut)
    } catch .connectionClosed {
      return 0
    } catch {
      throw .transport(error)
    }
  }

  private func setTimeout(_ timeout: Duration) throws(TLSError) {
    guard currentTimeout != timeout else { return }
    try stream.setIdleTimeout(timeout)
    currentTimeout = timeout
  }
}
