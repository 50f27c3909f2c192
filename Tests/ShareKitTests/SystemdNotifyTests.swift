import Foundation
import ShareKit
import System
import Testing

@Suite struct SystemdNotifyTests {
  /// A datagram socket bound at `address`, as systemd listens, and what it received.
  private func receive(at address: UnixSocketAddress, _ send: () -> Bool) throws -> (sent: Bool, message: String) {
    let socket = try FileDescriptor.unixSocket(.datagram)
    defer { try? socket.close() }
    try socket.bind(to: address)
    let sent = send()
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = try buffer.withUnsafeMutableBytes { try socket.read(into: $0) }
    return (sent, String(decoding: buffer[0..<count], as: UTF8.self))
  }

  @Test func sendsTheStateToTheSocketPathInNotifySocket() throws {
    let path = NSTemporaryDirectory() + "notify-\(UUID().uuidString.prefix(8)).sock"
    defer { try? FileSystem.remove(path) }
    let address = try #require(UnixSocketAddress(path: path))
    let outcome = try receive(at: address) {
      SystemdNotify.send("READY=1\nSTATUS=receiving", environment: ["NOTIFY_SOCKET": path])
    }
    #expect(outcome.sent)
    #expect(outcome.message == "READY=1\nSTATUS=receiving")
  }

  @Test func anAtSignMeansTheAbstractNamespace() throws {
    let name = "share-notify-test-\(UUID().uuidString.prefix(8))"
    let address = try #require(UnixSocketAddress(abstractName: name))
    let outcome = try receive(at: address) {
      SystemdNotify.send("STOPPING=1", environment: ["NOTIFY_SOCKET": "@" + name])
    }
    #expect(outcome.sent)
    #expect(outcome.message == "STOPPING=1")
  }

  @Test func withoutNotifySocketNothingIsSent() {
    #expect(!SystemdNotify.send("READY=1", environment: [:]))
    #expect(!SystemdNotify.send("READY=1", environment: ["NOTIFY_SOCKET": "/nonexistent/\(UUID().uuidString)"]))
    #expect(!SystemdNotify.send("READY=1", environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)]))
  }
}
