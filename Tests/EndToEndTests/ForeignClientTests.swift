import Foundation
import Glibc
import Testing

/// Programs that are not share peers connect to the daemon: it logs the failure and keeps serving.
@Suite struct ForeignClientTests {
  @Test func aPlainTCPClientIsLoggedAsAFailedConnectionAndTheDaemonKeepsServing() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }

    let connection = try PlainConnection(port: daemon.port)
    try connection.send("GET / HTTP/1.0\r\n\r\n")
    let reply = connection.readToEnd()
    #expect(reply != nil, "the daemon kept a plain TCP connection open")
    #expect(reply.map { !String(decoding: $0, as: UTF8.self).contains("HTTP/") } ?? true, "the daemon answered in HTTP")
    #expect(daemon.waitForLog("connection from 127.0.0.1 failed"), "\(daemon.log)")
    #expect(daemon.log.contains("TLS"), "the log does not say the peer did not speak TLS:\n\(daemon.log)")

    #expect(daemon.isRunning)
    let sent = try a.share("send", try a.file("after.txt", "ok").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(b.inboxNames() == ["after.txt"])
  }

  @Test func aTLSClientWithoutACertificateIsLoggedAsAFailedConnectionAndTheDaemonKeepsServing() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let candidates: [String] = ["/usr/bin/openssl", "/bin/openssl"]
    guard let openssl = candidates.first(where: { access($0, X_OK) == 0 }) else {
      Issue.record("this test needs the openssl command (Debian package 'openssl')")
      return
    }

    let client = try ChildProcess(
      executable: URL(fileURLWithPath: openssl),
      arguments: ["s_client", "-connect", daemon.address, "-tls1_3"],
      environment: ProcessInfo.processInfo.environment
    ).wait(timeout: .seconds(30))
    #expect(!client.timedOut, "\(client)")
    #expect(daemon.waitForLog("connection from 127.0.0.1 failed"), "\(daemon.log)")
    #expect(daemon.log.contains("certificate"), "the log does not say the certificate was missing:\n\(daemon.log)")
    #expect(b.inboxNames().isEmpty)

    #expect(daemon.isRunning)
    let sent = try a.share("send", try a.file("after.txt", "ok").path, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(b.inboxNames() == ["after.txt"])
  }
}
