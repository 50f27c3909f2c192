import TextEscaping

/// What can be wrong with bytes a peer sent. Each case reads as one sentence for a person.
package enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
  case truncated
  case unknownFrameKind(UInt8)
  case frameTooLarge(kind: FrameKind, length: Int, limit: Int)
  case malformedEnd(Int)
  case malformedBegin(String)
  case malformedMessage(String)
  case unknownMessage(String)
  case unexpected(expected: String, got: String)
  case invalidAsk(String)
  case versionMismatch(ours: Int, theirs: Int)
  case oversize(declared: Int64)
  case identityMismatch

  package var description: String {
    switch self {
    case .truncated: return "the peer sent a truncated frame"
    case .unknownFrameKind(let k): return "the peer sent an unknown frame kind (\(k))"
    case .frameTooLarge(let kind, let length, let limit):
      return "the peer sent a \(kind) frame of \(length) bytes, over the limit of \(limit)"
    case .malformedEnd(let n): return "the peer sent a malformed end frame (\(n) bytes)"
    case .malformedBegin(let why): return "the peer sent a malformed begin frame (\(why))"
    case .malformedMessage(let why): return "the peer sent a malformed message: \(why)"
    case .unknownMessage(let type): return "the peer sent an unknown message type \(Escaping.quoted(type))"
    case .unexpected(let expected, let got): return "expected \(expected) from the peer but got \(got)"
    case .invalidAsk(let why): return "the peer's offer is invalid: \(why)"
    case .oversize(let declared):
      return "the peer sent more bytes than the \(declared) it declared for an item"
    case .identityMismatch:
      return "the peer's Hello names a device ID other than its certificate's"
    case .versionMismatch(let ours, let theirs):
      return theirs > ours
        ? "the peer speaks share protocol \(theirs), this share speaks \(ours): update share here"
        : "the peer speaks share protocol \(theirs), this share speaks \(ours): update share on the peer"
    }
  }
}
