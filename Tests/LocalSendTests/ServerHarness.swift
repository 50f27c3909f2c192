import Foundation
import LocalSend
import System
import TLS

/// A LocalSend server on loopback with a folder delegate, plus a client identity that talks to
/// it through `LocalSendClient` or raw bytes over TLS.
struct ServerHarness {
  let directory: TemporaryDirectory
  let inbox: URL
  let delegate: FolderDelegate
  let server: LocalSendServer
  let clientIdentity: DeviceIdentity
  let client: LocalSendClient

  init(
    pin: String? = nil, http: HTTPLimits = .default,
    decision: (@Sendable (IncomingOffer) -> OfferDecision)? = nil
  ) throws {
    directory = try TemporaryDirectory()
    inbox = directory.url.appendingPathComponent("inbox")
    try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
    delegate = FolderDelegate(folder: inbox, decision: decision)
    server = try LocalSendServer(
      identity: try makeIdentity(in: directory, name: "receiver"),
      configuration: LocalSendServerConfiguration(
        host: "127.0.0.1", port: 0, alias: "Secret Banana", deviceModel: "Linux", deviceType: .desktop,
        pin: pin, http: http),
      delegate: delegate)
    server.start()
    clientIdentity = try makeIdentity(in: directory, name: "sender")
    let fingerprint = LocalSendFingerprint(identity: clientIdentity)!
    client = try LocalSendClient(
      identity: clientIdentity,
      device: LocalSendDevice(alias: "Nice Orange", deviceModel: "Samsung", deviceType: .mobile, fingerprint: fingerprint.hex, port: 53317))
  }

  var target: LocalSendTarget { LocalSendTarget(host: "127.0.0.1", port: server.port, check: .expect(server.fingerprint)) }

  func stop() {
    server.stop()
    directory.remove()
  }

  func stored(_ name: String) -> [UInt8]? {
    FileManager.default.contents(atPath: inbox.appendingPathComponent(name).path).map { [UInt8]($0) }
  }

  var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? []).sorted() }

  /// Sends `bytes` over a fresh TLS connection and returns everything the server sent until it
  /// closed (or went quiet for `quiet`).
  func raw(_ bytes: [UInt8], quiet: Duration = .seconds(5), pauseAfter: Int? = nil, pause: Duration = .zero) throws -> String {
    let context = try TLSContext(identity: clientIdentity, role: .client)
    let socket = try Socket.connect(host: "127.0.0.1", port: server.port, timeout: .seconds(5))
    let tls = try TLSConnection.connect(socket, context: context, timeout: .seconds(5))
    defer { tls.close() }
    try tls.setIdleTimeout(quiet)
    if let pauseAfter {
      try tls.write(Array(bytes[..<pauseAfter]))
      Thread.sleep(forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18)
      // The server may have given up on us meanwhile; what it sent is read below.
      try? tls.write(Array(bytes[pauseAfter...]))
    } else {
      try tls.write(bytes)
    }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count: Int
      do {
        count = try buffer.withUnsafeMutableBytes { try tls.read(into: $0) }
      } catch {
        break
      }
      if count == 0 { break }
      received += buffer[0..<count]
    }
    return String(decoding: received, as: UTF8.self)
  }

  func raw(_ text: String, quiet: Duration = .seconds(5)) throws -> String {
    try raw(Array(text.utf8), quiet: quiet)
  }

  /// Starts a session for `files` through the client; its ID and tokens.
  func session(_ files: [FileOffer]) throws -> PrepareUploadResponse {
    guard case .session(let response) = try client.prepareUpload(files, to: target) else { throw TestFailure("no session") }
    return response
  }
}

/// The status code of the first response in `text`.
func status(_ text: String) -> Int? {
  let parts = text.split(separator: " ", maxSplits: 2)
  return parts.count >= 2 ? Int(parts[1]) : nil
}

/// Every status code in `text` (pipelined responses, interim 100).
func statuses(_ text: String) -> [Int] {
  text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
}

/// The body of the last response in `text`.
func body(_ text: String) -> String {
  text.components(separatedBy: "\r\n\r\n").last ?? ""
}
