/// Decodes a `Transfer-Encoding: chunked` body as it arrives, without copying the data.
///
/// Strict: chunk sizes are 1 to 15 hex digits followed by CRLF (no chunk extensions), every
/// chunk's data ends in CRLF, and the last chunk `0 CRLF` must be followed by an empty trailer
/// (CRLF): trailer fields are refused. The sum of the chunk sizes may not pass `limit`.
package struct ChunkedDecoder: Sendable {
  enum State: Sendable, Equatable {
    /// Reading the hex digits of a chunk size.
    case size(value: Int64, digits: Int)
    /// Read CR after the size; LF must follow.
    case sizeLF(value: Int64)
    /// Inside a chunk's data.
    case data(remaining: Int64)
    /// After a chunk's data: CR, then LF.
    case dataCR
    case dataLF
    /// After the last chunk: the trailer must be empty (CR, then LF).
    case trailerCR
    case trailerLF
    case done
  }

  private(set) var state: State = .size(value: 0, digits: 0)
  /// Data bytes decoded so far.
  package private(set) var decoded: Int64 = 0
  /// Most data bytes accepted.
  package let limit: Int64

  package init(limit: Int64) {
    self.limit = limit
  }

  /// Whether the terminating chunk and empty trailer have been read.
  package var isComplete: Bool { state == .done }

  /// One step over `input`: consumes framing bytes until data or the end of `input`.
  /// Returns how many bytes of `input` were consumed and, when it stopped at data, the range
  /// of `input` holding data (inside the consumed bytes). Call again with the rest.
  /// After `isComplete`, consumes nothing: what follows belongs to the next message.
  package mutating func step(_ input: UnsafeRawBufferPointer) throws(HTTPError)
    -> (consumed: Int, data: Range<Int>?)
  {
    var index = 0
    while index < input.count {
      let byte = input[index]
      switch state {
      case .size(let value, let digits):
        if let nibble = ASCII.hexValue(byte) {
          guard digits < 15 else { throw .malformedChunk("chunk size too long") }
          state = .size(value: value << 4 | Int64(nibble), digits: digits + 1)
        } else if byte == ASCII.cr && digits > 0 {
          state = .sizeLF(value: value)
        } else {
          throw .malformedChunk(byte == UInt8(ascii: ";") ? "chunk extensions are not accepted" : "bad chunk size")
        }
        index += 1
      case .sizeLF(let value):
        guard byte == ASCII.lf else { throw .malformedChunk("bare CR after chunk size") }
        index += 1
        if value == 0 {
          state = .trailerCR
        } else {
          guard value <= limit - decoded else { throw .bodyTooLarge(limit: limit) }
          state = .data(remaining: value)
        }
      case .data(let remaining):
        let take = Int(min(remaining, Int64(input.count - index)))
        decoded += Int64(take)
        state = remaining - Int64(take) == 0 ? .dataCR : .data(remaining: remaining - Int64(take))
        return (index + take, index..<index + take)
      case .dataCR, .trailerCR:
        guard byte == ASCII.cr else {
          throw .malformedChunk(state == .dataCR ? "chunk data not followed by CRLF" : "trailer fields are not accepted")
        }
        state = state == .dataCR ? .dataLF : .trailerLF
        index += 1
      case .dataLF, .trailerLF:
        guard byte == ASCII.lf else { throw .malformedChunk("bare CR in chunk framing") }
        state = state == .dataLF ? .size(value: 0, digits: 0) : .done
        index += 1
      case .done:
        return (index, nil)
      }
    }
    return (index, nil)
  }
}
