import Foundation
import Glibc
import Synchronization
import System
import TLS
import Testing

/// A fresh directory under the system temp dir, removed by `remove()`.
struct TemporaryDirectory {
  let url: URL

  init() throws {
    let base = FileManager.default.temporaryDirectory
    url = base.appendingPathComponent("tls-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}

struct TestFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Runs `body` on a dedicated thread (as the product runs each connection) and hands back its
/// result.
final class Background<T: Sendable>: Sendable {
  private let result = Mutex<Result<T, any Error>?>(nil)
  private let done = DispatchSemaphore(value: 0)

  init(_ body: @escaping @Sendable () throws -> T) {
    Thread.detachNewThread { [self] in
      let outcome = Result { try body() }
      result.withLock { $0 = outcome }
      done.signal()
    }
  }

  /// Waits for the thread; a generous guard turns a hang into a failure instead of a stuck run.
  func wait() throws -> T {
    if done.wait(timeout: .now() + 120) == .timedOut {
      throw TestFailure("background thread did not finish")
    }
    guard let outcome = result.withLock({ $0 }) else { throw TestFailure("no result") }
    return try outcome.get()
  }
}

/// A server and a client identity with their contexts, in a fresh temporary directory.
struct Peers {
  let directory: TemporaryDirectory
  let server: DeviceIdentity
  let client: DeviceIdentity
  let serverContext: TLSContext
  let clientContext: TLSContext

  init() throws {
    // SIGPIPE must be ignored by any process using TLSConnection; the test runner is one.
    signal(SIGPIPE, SIG_IGN)
    directory = try TemporaryDirectory()
    server = try DeviceIdentity.loadOrCreate(
      in: directory.url.appendingPathComponent("server"), commonName: "server-device")
    client = try DeviceIdentity.loadOrCreate(
      in: directory.url.appendingPathComponent("client"), commonName: "client-device")
    serverContext = try TLSContext(identity: server, role: .server)
    clientContext = try TLSContext(identity: client, role: .client)
  }

  /// A connected pair over loopback: the server side accepted on a background thread.
  func connectedPair(host: String = "127.0.0.1", expectedPeer: Fingerprint? = nil) throws -> (
    server: TLSConnection, client: TLSConnection
  ) {
    let listener = try TCPListener(host: host, port: 0)
    defer { listener.close() }
    let serverContext = self.serverContext
    let server = Background { () throws -> TLSConnection in
      let socket = try listener.accept()
      return try TLSConnection.accept(socket, context: serverContext, timeout: .seconds(10))
    }
    let socket = try Socket.connect(host: host, port: listener.port, timeout: .seconds(10))
    let client = try TLSConnection.connect(
      socket, context: clientContext, timeout: .seconds(10), expectedPeer: expectedPeer)
    return (try server.wait(), client)
  }

  /// Starts a listener and a background thread that accepts one connection and runs the server
  /// handshake with `timeout`; returns the listener and the pending outcome.
  func serveOnce(timeout: Duration = .seconds(10)) throws -> (
    listener: TCPListener, outcome: Background<TLSConnection>
  ) {
    let listener = try TCPListener(host: "127.0.0.1", port: 0)
    let serverContext = self.serverContext
    let outcome = Background { () throws -> TLSConnection in
      let socket = try listener.accept()
      return try TLSConnection.accept(socket, context: serverContext, timeout: timeout)
    }
    return (listener, outcome)
  }
}

/// Runs a program to completion; returns its status and output.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> (
  status: Int32, stdout: Data, stderr: String
) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = FileHandle.nullDevice
  try process.run()
  // Drain both pipes concurrently so a chatty program cannot block on a full pipe.
  let stderrReader = Background { err.fileHandleForReading.readDataToEndOfFile() }
  let stdout = out.fileHandleForReading.readDataToEndOfFile()
  let stderr = try stderrReader.wait()
  process.waitUntilExit()
  return (process.terminationStatus, stdout, String(decoding: stderr, as: UTF8.self))
}

/// Deterministic pseudo-random bytes (xorshift64*), so a transfer has no repeating pattern.
func pseudoRandomBytes(count: Int, seed: UInt64) -> [UInt8] {
  var state = seed | 1
  var bytes = [UInt8](repeating: 0, count: count)
  for i in 0..<count {
    if i % 8 == 0 {
      state ^= state >> 12
      state ^= state << 25
      state ^= state >> 27
    }
    bytes[i] = UInt8(truncatingIfNeeded: (state &* 0x2545_F491_4F6C_DD1D) >> (8 * UInt64(i % 8)))
  }
  return bytes
}

func hex(_ bytes: [UInt8]) -> String {
  bytes.map { String(format: "%02x", $0) }.joined()
}

/// The error `body` throws, or nil if it returns.
func thrownError<T, E: Error>(_ body: () throws(E) -> T) -> E? {
  do {
    _ = try body()
    return nil
  } catch {
    return error
  }
}
