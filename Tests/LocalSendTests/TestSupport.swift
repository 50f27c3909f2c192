import Foundation
import Glibc
import LocalSend
import Synchronization
import TLS
import Testing

struct TestFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// A fresh directory under the system temp dir, removed by `remove()`.
struct TemporaryDirectory {
  let url: URL
  var path: String { url.path }

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("localsend-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func remove() { try? FileManager.default.removeItem(at: url) }

  func file(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = url.appendingPathComponent(name).path
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw TestFailure("cannot write \(path)") }
    return path
  }
}

/// Runs `body` on a thread of its own and hands back its result.
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

  func wait(seconds: Int = 120) throws -> T {
    if done.wait(timeout: .now() + .seconds(seconds)) == .timedOut { throw TestFailure("background work did not finish") }
    guard let outcome = result.withLock({ $0 }) else { throw TestFailure("no result") }
    return try outcome.get()
  }
}

/// A device identity in a temporary home.
func makeIdentity(in directory: TemporaryDirectory, name: String) throws -> DeviceIdentity {
  try DeviceIdentity.loadOrCreate(in: directory.url.appendingPathComponent(name), commonName: name)
}

/// The DER bytes inside a PEM certificate.
func der(ofPEM pem: String) -> [UInt8] {
  let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
  return [UInt8](Data(base64Encoded: body) ?? Data())
}

func sha256Hex(_ bytes: [UInt8]) -> String {
  SHA256Hasher.hash(bytes).map { String(format: "%02x", $0) }.joined()
}

/// Deterministic pseudo-random bytes.
func pseudoRandomBytes(count: Int, seed: UInt64) -> [UInt8] {
  var state = seed | 1
  return (0..<count).map { _ in
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return UInt8(truncatingIfNeeded: state)
  }
}

/// A JPEG-looking photo and an ELF executable named `.png`.
enum Samples {
  static let photo: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + pseudoRandomBytes(count: 200_000, seed: 7)
  static let elf: [UInt8] = [0x7F] + Array("ELF".utf8) + [2, 1, 1, 0] + pseudoRandomBytes(count: 5000, seed: 9)
}

/// Runs a program to completion with `environment` added; returns status and output.
@discardableResult
func run(
  _ executable: String, _ arguments: [String], environment: [String: String] = [:], inherit: Bool = true
) throws -> (status: Int32, stdout: String, stderr: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  process.environment = inherit ? ProcessInfo.processInfo.environment.merging(environment) { _, new in new } : environment
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = FileHandle.nullDevice
  try process.run()
  let stderrReader = Background { err.fileHandleForReading.readDataToEndOfFile() }
  let stdout = out.fileHandleForReading.readDataToEndOfFile()
  let stderr = try stderrReader.wait()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

/// The repository root (for scripts).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `bytes.withUnsafeBytes` keeping the parser's typed error.
func withBytes<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(HTTPError) -> T) throws(HTTPError) -> T {
  let result: Result<T, HTTPError> = bytes.withUnsafeBytes { raw in
    do throws(HTTPError) { return .success(try body(raw)) } catch { return .failure(error) }
  }
  return try result.get()
}
