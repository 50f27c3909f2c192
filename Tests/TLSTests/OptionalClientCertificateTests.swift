import Foundation
import System
import TLS
import Testing

/// A server context made with `clientCertificates: .optional` (for LocalSend, whose clients may
/// present no certificate) still asks for one and reports what came.
@Suite struct OptionalClientCertificateTests {
  /// The DER bytes inside a PEM certificate.
  private func der(ofPEM pem: String) -> [UInt8] {
    let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    return [UInt8](Data(base64Encoded: body) ?? Data())
  }

  @Test func aClientCertificateIsStillReadWhenOptional() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let context = try TLSContext(identity: peers.server, role: .server, clientCertificates: .optional)
    let listener = try TCPListener(host: "127.0.0.1", port: 0)
    defer { listener.close() }
    let server = Background { () throws -> TLSConnection in
      try TLSConnection.accept(try listener.accept(), context: context, timeout: .seconds(10))
    }
    let socket = try Socket.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(10))
    let client = try TLSConnection.connect(socket, context: peers.clientContext, timeout: .seconds(10))
    let accepted = try server.wait()
    defer {
      accepted.close()
      client.close()
    }
    #expect(accepted.peerCertificate?.fingerprint == peers.client.fingerprint)
    #expect(accepted.peerCertificate?.der == der(ofPEM: peers.client.certificatePEM))
    #expect(accepted.peerCommonName == "client-device")
    #expect(client.peerCertificate?.der == der(ofPEM: peers.server.certificatePEM))
  }

  @Test func aClientWithoutCertificateIsServedWhenOptional() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let context = try TLSContext(identity: peers.server, role: .server, clientCertificates: .optional)
    let listener = try TCPListener(host: "127.0.0.1", port: 0)
    defer { listener.close() }
    let server = Background { () throws -> PeerCertificate? in
      let connection = try TLSConnection.accept(
        try listener.accept(), context: context, timeout: .seconds(10))
      defer { connection.close() }
      var buffer = [UInt8](repeating: 0, count: 4096)
      _ = try buffer.withUnsafeMutableBytes { try connection.read(into: $0) }
      try connection.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8))
      connection.shutdown()
      return connection.peerCertificate
    }
    // curl is a real TLS client that presents no certificate.
    let result = try run(
      "/usr/bin/curl", ["-sk", "--tlsv1.3", "--max-time", "20", "https://127.0.0.1:\(listener.port)/"])
    #expect(result.status == 0, "curl: \(result.stderr)")
    #expect(String(decoding: result.stdout, as: UTF8.self) == "ok")
    #expect(try server.wait() == nil)
  }

  @Test func aClientWithoutCertificateIsRefusedWhenRequired() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (listener, outcome) = try peers.serveOnce()
    defer { listener.close() }
    let result = try run(
      "/usr/bin/curl", ["-sk", "--tlsv1.3", "--max-time", "20", "https://127.0.0.1:\(listener.port)/"])
    #expect(result.status != 0)
    #expect(throws: TLSError.self) { try outcome.wait() }
  }
}
