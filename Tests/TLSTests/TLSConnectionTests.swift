import Foundation
import Glibc
import System
import TLS
import Testing

@Suite struct TLSConnectionTests {
  @Test func mutualTLSGivesEachSideThePeersFingerprintOverTLS13() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer {
      server.close()
      client.close()
    }
    #expect(server.peerFingerprint == peers.client.fingerprint)
    #expect(client.peerFingerprint == peers.server.fingerprint)
    #expect(server.peerCommonName == "client-device")
    #expect(client.peerCommonName == "server-device")
    #expect(server.protocolVersion == "TLSv1.3")
    #expect(client.protocolVersion == "TLSv1.3")
    #expect(client.negotiatedCipher == "TLS_AES_128_GCM_SHA256")
    #expect(server.negotiatedCipher == client.negotiatedCipher)
  }

  @Test func smallMessagesFlowBothWaysAndCleanShutdownReadsAsEOF() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer {
      server.close()
      client.close()
    }
    try client.write(Array("hello".utf8))
    var buffer = [UInt8](repeating: 0, count: 5)
    try buffer.withUnsafeMutableBytes { try server.readExactly(into: $0) }
    #expect(buffer == Array("hello".utf8))
    try server.write(Array("world".utf8))
    try buffer.withUnsafeMutableBytes { try client.readExactly(into: $0) }
    #expect(buffer == Array("world".utf8))

    server.shutdown()
    var more = [UInt8](repeating: 0, count: 16)
    let n = try more.withUnsafeMutableBytes { try client.read(into: $0) }
    #expect(n == 0)
  }

  @Test func sixtyFourMiBStreamArrivesByteIdentical() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer {
      server.close()
      client.close()
    }
    let total = 64 << 20
    let pool = pseudoRandomBytes(count: (4 << 20) + 4099, seed: 42)
    let receiver = Background { () throws -> (Int, [UInt8]) in
      let hasher = SHA256Hasher()
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
      defer { buffer.deallocate() }
      var received = 0
      while true {
        let n = try server.read(into: buffer)
        if n == 0 { break }
        hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        received += n
      }
      return (received, hasher.finalize())
    }
    let hasher = SHA256Hasher()
    var sent = 0
    var chunk = 0
    // Odd sizes and offsets so record boundaries never line up with the caller's buffers.
    while sent < total {
      let size = min(total - sent, (1 << 20) + (chunk % 7) * 4093)
      let offset = (chunk * 131_071) % (pool.count - size)
      try pool[offset..<offset + size].withUnsafeBytes { raw in
        hasher.update(raw)
        try client.write(raw)
      }
      sent += size
      chunk += 1
    }
    client.shutdown()
    let (received, digest) = try receiver.wait()
    #expect(received == total)
    #expect(digest == hasher.finalize())
  }

  @Test func clientLimitedToTLS12IsRefused() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (listener, outcome) = try peers.serveOnce()
    defer { listener.close() }
    let client = try run(
      "/usr/bin/openssl",
      [
        "s_client", "-connect", "127.0.0.1:\(listener.port)", "-tls1_2",
        "-cert", peers.client.certificateURL.path, "-key", peers.client.keyURL.path,
      ])
    #expect(client.status != 0)
    #expect {
      try outcome.wait()
    } throws: { error in
      guard let error = error as? TLSError, case .unsupportedProtocol = error else { return false }
      return true
    }
  }

  @Test func clientWithoutCertificateIsRefused() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (listener, outcome) = try peers.serveOnce()
    defer { listener.close() }
    try run("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(listener.port)", "-tls1_3"])
    #expect {
      try outcome.wait()
    } throws: { error in
      guard let error = error as? TLSError, case .noPeerCertificate = error else { return false }
      return true
    }
  }

  @Test func opensslClientWithCertificateIsAcceptedAndIdentified() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (listener, outcome) = try peers.serveOnce()
    defer { listener.close() }
    let client = try run(
      "/usr/bin/openssl",
      [
        "s_client", "-connect", "127.0.0.1:\(listener.port)",
        "-cert", peers.client.certificateURL.path, "-key", peers.client.keyURL.path,
      ])
    let stdout = String(decoding: client.stdout, as: UTF8.self)
    #expect(stdout.contains("TLSv1.3"))
    let connection = try outcome.wait()
    #expect(connection.peerFingerprint == peers.client.fingerprint)
    connection.close()
  }

  @Test func plainTextClientGetsANotTLSError() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (listener, outcome) = try peers.serveOnce()
    defer { listener.close() }
    let socket = try Socket.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
    defer { socket.close() }
    let request = Array("GET / HTTP/1.0\r\n\r\n".utf8)
    #expect(Glibc.write(socket.fileDescriptor, request, request.count) == request.count)
    do {
      _ = try outcome.wait()
      Issue.record("plain HTTP was accepted as TLS")
    } catch let error as TLSError {
      guard case .notTLS(let detail) = error else {
        Issue.record("unexpected error \(error): \(error.detail)")
        return
      }
      #expect(detail.contains("http request"))
      #expect(error.description.contains("did not speak TLS"))
    }
  }

  @Test func silentClientMakesAcceptTimeOut() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (listener, outcome) = try peers.serveOnce(timeout: .milliseconds(300))
    defer { listener.close() }
    let socket = try Socket.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
    defer { socket.close() }
    #expect {
      try outcome.wait()
    } throws: { error in
      guard let error = error as? TLSError, case .timedOut = error else { return false }
      return true
    }
  }

  @Test func clientTalkingToAPlainTCPServerGetsANotTLSError() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let listener = try TCPListener(host: "127.0.0.1", port: 0)
    defer { listener.close() }
    let server = Background { () throws -> Void in
      let socket = try listener.accept()
      let reply = Array("HTTP/1.0 400 Bad Request\r\n\r\n".utf8)
      _ = Glibc.write(socket.fileDescriptor, reply, reply.count)
      usleep(200_000)
      socket.close()
    }
    let socket = try Socket.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
    #expect {
      try TLSConnection.connect(socket, context: peers.clientContext, timeout: .seconds(5))
    } throws: { error in
      guard let error = error as? TLSError, case .notTLS = error else { return false }
      return true
    }
    try server.wait()
  }

  @Test func peerClosingMidReadIsConnectionClosed() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer { client.close() }
    try server.write([UInt8](repeating: 7, count: 100))
    server.close()  // no close_notify: a truncation, not a clean end
    var buffer = [UInt8](repeating: 0, count: 200)
    #expect {
      try buffer.withUnsafeMutableBytes { try client.readExactly(into: $0) }
    } throws: { error in
      guard let error = error as? TLSError, case .connectionClosed = error else { return false }
      return true
    }
  }

  @Test func cleanCloseBeforeAllBytesIsConnectionClosedForReadExactly() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer { client.close() }
    try server.write([UInt8](repeating: 7, count: 100))
    server.shutdown()
    server.close()
    var buffer = [UInt8](repeating: 0, count: 200)
    #expect {
      try buffer.withUnsafeMutableBytes { try client.readExactly(into: $0) }
    } throws: { error in
      guard let error = error as? TLSError, case .connectionClosed(let detail) = error else {
        return false
      }
      return detail.contains("100 of 200")
    }
  }

  @Test func closeFromAnotherThreadAbortsABlockedRead() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer { server.close() }
    let reader = Background { () throws -> Int in
      var buffer = [UInt8](repeating: 0, count: 64)
      return try buffer.withUnsafeMutableBytes { try client.read(into: $0) }
    }
    usleep(100_000)
    client.close()
    #expect {
      try reader.wait()
    } throws: { error in
      guard let error = error as? TLSError, case .connectionClosed = error else { return false }
      return true
    }
  }

  @Test func idleTimeoutMakesABlockedReadTimeOutAndTheFailureSticks() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer {
      server.close()
      client.close()
    }
    try client.setIdleTimeout(.milliseconds(200))
    var buffer = [UInt8](repeating: 0, count: 64)
    #expect {
      try buffer.withUnsafeMutableBytes { try client.read(into: $0) }
    } throws: { error in
      guard let error = error as? TLSError, case .timedOut = error else { return false }
      return true
    }
    // The failure sticks: data arriving later is not read from a connection in doubt.
    try server.write(Array("late".utf8))
    #expect {
      try buffer.withUnsafeMutableBytes { try client.read(into: $0) }
    } throws: { error in
      guard let error = error as? TLSError, case .timedOut = error else { return false }
      return true
    }
    #expect(throws: TLSError.self) { try client.write(Array("x".utf8)) }
  }

  @Test func writingToAVanishedPeerIsConnectionClosed() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer { client.close() }
    server.close()
    let chunk = [UInt8](repeating: 1, count: 1 << 20)
    #expect {
      // The first writes may land in socket buffers; keep writing until the reset shows.
      for _ in 0..<64 { try client.write(chunk) }
    } throws: { error in
      guard let error = error as? TLSError, case .connectionClosed = error else { return false }
      return true
    }
  }

  @Test func tlsWorksOverIPv6Loopback() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair(host: "::1")
    defer {
      server.close()
      client.close()
    }
    #expect(server.peerAddress == "::1")
    #expect(client.peerFingerprint == peers.server.fingerprint)
    try client.write(Array("over v6".utf8))
    var buffer = [UInt8](repeating: 0, count: 7)
    try buffer.withUnsafeMutableBytes { try server.readExactly(into: $0) }
    #expect(buffer == Array("over v6".utf8))
  }

  @Test func pinnedFingerprintIsCheckedByConnect() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair(expectedPeer: peers.server.fingerprint)
    #expect(client.peerFingerprint == peers.server.fingerprint)
    server.close()
    client.close()

    let error = try #require(
      thrownError { () throws -> Void in
        _ = try peers.connectedPair(expectedPeer: peers.client.fingerprint)
      })
    guard let tlsError = error as? TLSError, case .peerMismatch(let expected, let actual) = tlsError
    else {
      Issue.record("unexpected error \(error)")
      return
    }
    #expect(expected == peers.client.fingerprint)
    #expect(actual == peers.server.fingerprint)
  }

  @Test func acceptingWithAClientContextIsAConfigurationError() throws {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let listener = try TCPListener(host: "127.0.0.1", port: 0)
    defer { listener.close() }
    let accepted = Background { try listener.accept() }
    let client = try Socket.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
    defer { client.close() }
    let socket = try accepted.wait()
    let error = try #require(
      thrownError { () throws(TLSError) in
        try TLSConnection.accept(socket, context: peers.clientContext, timeout: .seconds(1))
      })
    guard case .configuration = error else {
      Issue.record("unexpected error \(error)")
      return
    }
    #expect(socket.fileDescriptor == -1)
  }
}
