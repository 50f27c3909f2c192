import Foundation
import Glibc
import System
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
    let socket =
      try source.map { try RawPeer.connect(port: port, from: $0) }
      ?? Socket.connect(host: "127.0.0.1", port: port, timeout: .seconds(5))
    let tls = try TLSConnection.connect(socket, context: context, timeout: .seconds(10))
    try tls.setIdleTimeout(.seconds(20))
    super.init(tls)
  }

  /// Sends Hello (by default a truthful one) and returns the receiver's answer to it.
  @discardableResult
  func hello(name: String = "mallory", id: String? = nil) throws -> Message {
    try send(.hello(Hello(name: name, id: id ?? identity.fingerprint.hex)))
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

  /// A TCP connection to 127.0.0.1:`port` bound to the source address `source`.
  private static func connect(port: UInt16, from source: String) throws -> Socket {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
    func address(_ host: String, _ port: UInt16) -> sockaddr_in {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      inet_pton(AF_INET, host, &address.sin_addr)
      return address
    }
    var local = address(source, 0)
    var remote = address("127.0.0.1", port)
    let bound = withUnsafePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    let connected =
      bound == 0
      && withUnsafePointer(to: &remote) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      } == 0
    guard connected else {
      let code = errno
      close(fd)
      throw HarnessError("connect from \(source) to port \(port): errno \(code)")
    }
    return try Socket(adopting: fd)
  }
}

extension PlainConnection {
  /// Sends bytes as they are (not as text): garbage before any TLS.
  func send(bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw HarnessError("send: errno \(errno)") }
      offset += n
    }
  }
}
