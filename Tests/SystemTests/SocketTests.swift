import Foundation
import Glibc
import System
import Testing

@Suite struct SocketTests {
  @Test func connectingToAClosedPortReportsConnectionRefused() throws {
    let listener = try TCPListener(host: "127.0.0.1", port: 0)
    let port = listener.port
    listener.close()
    let error = try #require(
      thrownError { () throws(SocketError) in
        try Socket.connect(host: "127.0.0.1", port: port, timeout: .seconds(5))
      })
    guard case .connect(_, let errorPort, let code) = error else {
      Issue.record("unexpected error \(error)")
      return
    }
    #expect(errorPort == port)
    #expect(code == .connectionRefused)
    #expect(error.description.contains("connection refused"))
  }

  @Test func unresolvableHostIsAResolveError() throws {
    #expect {
      try Socket.connect(host: "no-such-host.invalid", port: 1, timeout: .seconds(5))
    } throws: { error in
      guard let error = error as? SocketError, case .resolve = error else { return false }
      return true
    }
  }

  @Test func closingTheListenerFromAnotherThreadUnblocksAccept() throws {
    let listener = try TCPListener(port: 0)
    let acceptor = Background { () throws -> String in
      do {
        _ = try listener.accept()
        return "accepted"
      } catch SocketError.listenerClosed {
        return "closed"
      }
    }
    // Give the thread time to block in accept(); the outcome is the same if it has not yet.
    usleep(100_000)
    listener.close()
    #expect(try acceptor.wait() == "closed")
    #expect(throws: SocketError.self) { try listener.accept() }
  }

  @Test func bindingAPortInUseSaysSo() throws {
    let first = try TCPListener(host: "127.0.0.1", port: 0)
    defer { first.close() }
    let error = try #require(
      thrownError { () throws(SocketError) in
        try TCPListener(host: "127.0.0.1", port: first.port)
      })
    guard case .bind(_, _, let code) = error else {
      Issue.record("unexpected error \(error)")
      return
    }
    #expect(code == .addressInUse)
    #expect(error.description.contains("already in use"))
  }

  @Test func dualStackListenerAcceptsIPv4AndShowsItAsIPv4() throws {
    let listener = try TCPListener(port: 0)
    defer { listener.close() }
    #expect(listener.port != 0)
    let accepted = Background { try listener.accept() }
    let client = try Socket.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
    defer { client.close() }
    let server = try accepted.wait()
    defer { server.close() }
    #expect(server.peerAddress == "127.0.0.1")
    #expect(server.peerPort != 0)
    #expect(client.peerAddress == "127.0.0.1")
    #expect(client.peerPort == listener.port)
  }

  @Test(arguments: ["::1", "[::1]"])
  func ipv6LoopbackWorks(spelling: String) throws {
    let listener = try TCPListener(host: "::1", port: 0)
    defer { listener.close() }
    let accepted = Background { try listener.accept() }
    let client = try Socket.connect(host: spelling, port: listener.port, timeout: .seconds(5))
    defer { client.close() }
    let server = try accepted.wait()
    defer { server.close() }
    #expect(server.peerAddress == "::1")
    #expect(client.peerAddress == "::1")
  }

  @Test func ipv6LiteralWithNumericZoneConnects() throws {
    // "::1%1": a zone index on a literal (lo is interface 1) must not break resolution.
    let listener = try TCPListener(host: "::1", port: 0)
    defer { listener.close() }
    let accepted = Background { try listener.accept() }
    let client = try Socket.connect(host: "::1%1", port: listener.port, timeout: .seconds(5))
    defer { client.close() }
    let server = try accepted.wait()
    #expect(server.peerAddress == "::1")
    server.close()
  }

  @Test func linkLocalLiteralWithInterfaceNameResolves() throws {
    // Nothing has fe80::1 here, so the connection fails, but not at name resolution.
    let error = try #require(
      thrownError { () throws(SocketError) in
        try Socket.connect(host: "fe80::1%lo", port: 9, timeout: .seconds(1))
      })
    if case .resolve = error { Issue.record("fe80::1%lo did not resolve: \(error)") }
  }

  @Test func closedSocketReportsNoDescriptor() throws {
    let listener = try TCPListener(host: "127.0.0.1", port: 0)
    defer { listener.close() }
    let accepted = Background { try listener.accept() }
    let client = try Socket.connect(host: "localhost", port: listener.port, timeout: .seconds(5))
    let server = try accepted.wait()
    #expect(client.fileDescriptor >= 0)
    client.close()
    client.close()
    #expect(client.fileDescriptor == -1)
    #expect(throws: SocketError.self) { try client.setTimeouts(receive: .seconds(1), send: nil) }
    server.close()
  }
}
