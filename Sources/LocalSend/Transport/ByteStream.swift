import TLS

/// A blocking, ordered byte stream: what HTTP runs over. `TLSConnection` is the one used in
/// the product; the abstraction lets the HTTP layer be driven by tests and the fuzzer too.
protocol ByteStream: AnyObject {
  /// Reads at least one byte, or returns 0 at the end of the stream.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int
  /// Writes every byte.
  func write(_ buffer: UnsafeRawBufferPointer) throws(TLSError)
  /// How long one read or write may block; nil forever.
  func setIdleTimeout(_ duration: Duration?) throws(TLSError)
}

extension TLSConnection: ByteStream {}

/// What ends an HTTP exchange early.
enum ConnectionError: Error {
  /// The peer's message breaks HTTP or a limit (answerable with `status`).
  case http(HTTPError)
  /// The transport failed (reset, TLS alert, local close).
  case transport(TLSError)
}

/// The progress of reading one message body.
enum BodyProgress: Sendable {
  case length(remaining: Int64)
  case chunked(ChunkedDecoder)
  case untilClose
  case done

  init(_ framing: BodyFraming, limit: Int64) {
    switch framing {
    case .none: self = .done
    case .length(let length): self = length == 0 ? .done : .length(remaining: length)
    case .chunked: self = .chunked(ChunkedDecoder(limit: limit))
    case .untilClose: self = .untilClose
    }
  }

  var isDone: Bool {
    if case .done = self { return true }
    return false
  }
}
