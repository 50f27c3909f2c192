import Foundation
import TLS
import Wire

/// A device identity (Ed25519 key and self-signed certificate) in a temporary folder of its own,
/// removed when it goes away: what an attacker mints by the dozen.
final class ThrowawayIdentity {
  let folder: URL
  let identity: DeviceIdentity

  init(name: String = "mallory") throws {
    folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-raw-\(UUID().uuidString)")
    identity = try DeviceIdentity.loadOrCreate(in: folder, commonName: name)
  }

  deinit { try? FileManager.default.removeItem(at: folder) }

  var id: String { identity.fingerprint.hex }
}

/// Frames on a TLS connection, written and read by hand with Wire's public encoders, so a test
/// can send exactly the bytes a hostile peer would: out of order, malformed or partial.
class FramedTLS {
  let tls: TLSConnection

  init(_ tls: TLSConnection) { self.tls = tls }

  deinit { tls.close() }

  func send(_ message: Message) throws { try tls.write(MessageCodec.frame(message)) }

  func sendFrame(_ kind: FrameKind, _ payload: [UInt8]) throws {
    try tls.write(FrameHeader(kind: kind, length: payload.count).encoded + payload)
  }

  /// Raw bytes inside TLS, framed or not.
  func sendRaw(_ bytes: [UInt8]) throws { try tls.write(bytes) }

  /// One item's bytes as a sender streams them: `begin`, data frames, `end` with the SHA-256 of
  /// `digestOf` (default: the bytes themselves).
  func sendItem(_ item: Int, entry: Int? = nil, bytes: [UInt8], digestOf: [UInt8]? = nil) throws {
    try sendFrame(.begin, BeginFrame(item: item, entry: entry).encoded)
    var offset = 0
    while offset < bytes.count {
      let chunk = Array(bytes[offset..<min(offset + (1 << 20), bytes.count)])
      try sendFrame(.data, chunk)
      offset += chunk.count
    }
    try sendFrame(.end, SHA256Hasher.hash(digestOf ?? bytes))
  }

  /// The next frame; data frames are returned as they come.
  func receiveFrame() throws -> (FrameHeader, [UInt8]) {
    var head = [UInt8](repeating: 0, count: FrameHeader.size)
    try head.withUnsafeMutableBytes { try tls.readExactly(into: $0) }
    let header = try FrameHeader(decoding: head, limits: .default)
    var payload = [UInt8](repeating: 0, count: header.length)
    if header.length > 0 { try payload.withUnsafeMutableBytes { try tls.readExactly(into: $0) } }
    return (header, payload)
  }

  /// The next control message, skipping nothing: anything else is an error.
  func receive() throws -> Message {
    let (header, payload) = try receiveFrame()
    guard header.kind == .control else { throw HarnessError("expected a control message, got a \(header.kind) frame") }
    return try MessageCodec.decode(payload)
  }

  /// Reads until the peer closes; true if it did (cleanly or not) within the idle timeout.
  func waitForClose() -> Bool {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      do {
        if try buffer.withUnsafeMutableBytes({ try tls.read(into: $0) }) == 0 { return true }
      } catch TLSError.timedOut {
        return false
      } catch {
        return true
      }
    }
  }
}

/// A hand-driven share sender over real TLS to a daemon on 127.0.0.1, optionally from another
/// loopback source address (127.0.0.2, ...), as a flood from several hosts would come.
final class RawPeer: FramedTLS {
  let identity: DeviceIdentity

  init(port: UInt16, identity: DeviceIdentity, from source: String? = nil) throws {
    self.identity = identity
    let context = try TLSContext(identity: identity, role: .client)
    let tls = try loopbackTLS(to: port, context: context, from: source, timeout: .seconds(10))
    try tls.setIdleTimeout(.seconds(20))
    super.init(tls)
  }

  /// Sends Hello (by default a truthful one) and returns the receiver's answer to it.
  @discardableResult
  func hello(name: String = "mallory", id: String? = nil) throws -> Message {
    try send(.hello(Hello(name: PeerText(name), id: id ?? identity.fingerprint.hex)))
    return try receive()
  }

  /// Sends an Ask and returns the receiver's Answer (skipping a `Wait`).
  func ask(_ items: [ItemOffer]) throws -> Answer {
    try send(.ask(Ask(items: items)))
    while true {
      switch try receive() {
      case .answer(let answer): return answer
      case .wait: continue
      case let other: throw HarnessError("expected an Answer, got \(other)")
      }
    }
  }

  func receipt() throws -> Receipt {
    guard case .receipt(let receipt) = try receive() else { throw HarnessError("expected a Receipt") }
    return receipt
  }
}
