import Foundation
import Glibc
import InboxStore
import Synchronization
import System
import TLS
import Wire

@testable import ShareKit

/// A share home in a temporary folder, removed at the end.
final class TestHome: Sendable {
  let root: URL
  let device: Device

  init(name: String = "peer-\(UInt16.random(in: 0...UInt16.max))", documents: URL? = nil) throws {
    root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-kit-\(UUID().uuidString)")
    var paths = SharePaths(home: root)
    if let documents { paths.documents = documents }
    device = try Device.load(paths: paths, name: name)
  }

  deinit { try? FileManager.default.removeItem(at: root) }

  var inbox: URL { device.paths.inbox }
  var staging: URL { device.paths.documents.appendingPathComponent(".share/staging") }

  func inboxNames() -> Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? [])
  }

  func stagingNames() -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
  }

  /// Writes a file in this home's scratch folder and returns its path.
  func file(_ name: String, _ bytes: [UInt8]) -> URL {
    let url = root.appendingPathComponent("outgoing").appendingPathComponent(name)
    try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: url.path, contents: Data(bytes))
    return url
  }
}

/// A receiver running in this process, recording its events.
final class RunningReceiver: Sendable {
  let home: TestHome
  let receiver: Receiver
  private let recorder = Recorder()

  init(
    home: TestHome, policy: ReceivePolicy = ReceivePolicy(),
    configuration: ReceiverConfiguration = ReceiverConfiguration(host: "127.0.0.1"), gatekeeper: Gatekeeper? = nil
  ) throws {
    self.home = home
    let store = try InboxStore(documents: home.device.paths.documents)
    let recorder = self.recorder
    receiver = try Receiver(
      device: home.device, store: store, policy: policy, configuration: configuration, gatekeeper: gatekeeper,
      events: { recorder.add($0) })
    receiver.start()
  }

  deinit { receiver.stop() }

  var port: UInt16 { receiver.port }
  var endpoint: Endpoint { Endpoint(host: "127.0.0.1", port: port) }
  var recorded: [ReceiverEvent] { recorder.all }

  /// Waits (bounded) until an event matching `predicate` was recorded.
  func waitFor(timeout: Duration = .seconds(10), _ predicate: (ReceiverEvent) -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if recorder.all.contains(where: predicate) { return true }
      usleep(10_000)
    }
    return false
  }
}

final class Recorder: Sendable {
  private let events = Mutex<[ReceiverEvent]>([])
  func add(_ event: ReceiverEvent) { events.withLock { $0.append(event) } }
  var all: [ReceiverEvent] { events.withLock { $0 } }
}

/// A hand-driven client that can break the protocol on purpose.
final class RawClient {
  let connection: FramedConnection
  let home: TestHome

  init(to port: UInt16, home: TestHome) throws {
    self.home = home
    let context = try TLSContext(identity: home.device.identity, role: .client)
    let socket = try Socket.connect(host: "127.0.0.1", port: port, timeout: .seconds(5))
    let tls = try TLSConnection.connect(socket, context: context, timeout: .seconds(5))
    try tls.setIdleTimeout(.seconds(10))
    connection = FramedConnection(tls)
  }

  /// Hello both ways; returns the receiver's.
  @discardableResult
  func hello(version: Int = protocolVersion, id: String? = nil) throws -> Message {
    try connection.sendNow(.hello(Hello(version: version, name: PeerText(home.device.name), id: id ?? home.device.fingerprint.hex)))
    return try connection.receiveMessage(expecting: "Hello")
  }

  func ask(_ items: [ItemOffer]) throws -> Answer {
    try connection.sendNow(.ask(Ask(items: items)))
    guard case .answer(let answer) = try connection.receiveMessage(expecting: "Answer") else {
      throw WireError.unexpected(expected: "Answer", got: "other")
    }
    return answer
  }

  /// Sends an item's frames (data frames of at most 1 MiB) with full control over what is claimed.
  func sendItem(id: Int, bytes: [UInt8], digestOf digestBytes: [UInt8]? = nil, abandon: Bool = false) throws {
    try connection.sendBegin(BeginFrame(item: id))
    for start in stride(from: 0, to: bytes.count, by: 1 << 20) {
      var framed = [UInt8](repeating: 0, count: FrameHeader.size) + bytes[start..<min(start + (1 << 20), bytes.count)]
      try framed.withUnsafeMutableBytes { try connection.sendData(framedIn: $0) }
    }
    try connection.sendEnd(abandon ? nil : Digest(bytes: SHA256Hasher.hash(digestBytes ?? bytes)))
    try connection.flush()
  }

  func receive() throws -> Message { try connection.receiveMessage(expecting: "a message") }

  func receipt() throws -> Receipt {
    guard case .receipt(let receipt) = try receive() else { throw WireError.unexpected(expected: "Receipt", got: "other") }
    return receipt
  }

  /// The Receipt, after any `Skip`s the receiver sent meanwhile (returned too).
  func receiptAfterSkips() throws -> (receipt: Receipt, skips: [Skip]) {
    var skips: [Skip] = []
    while true {
      switch try receive() {
      case .receipt(let receipt): return (receipt, skips)
      case .skip(let skip): skips.append(skip)
      case let other: throw WireError.unexpected(expected: "Receipt", got: "a \(other.typeName) message")
      }
    }
  }
}

extension Process {
  /// Runs a command and returns its exit status.
  @discardableResult
  static func run(_ arguments: String...) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return -1 }
    process.waitUntilExit()
    return process.terminationStatus
  }
}

func randomBytes(_ count: Int) -> [UInt8] {
  var generator = SystemRandomNumberGenerator()
  var bytes = [UInt8](repeating: 0, count: count)
  for i in stride(from: 0, to: count, by: 8) {
    var word = generator.next()
    for j in i..<min(i + 8, count) {
      bytes[j] = UInt8(truncatingIfNeeded: word)
      word >>= 8
    }
  }
  return bytes
}

/// A pipe whose other end a thread fills with `bytes` and then closes: a stream of unknown
/// length, as standard input is. Returns the end to read.
func feedPipe(_ bytes: [UInt8]) throws -> Int32 {
  var fds: [Int32] = [0, 0]
  guard pipe(&fds) == 0 else { throw ShareError.configuration("pipe failed") }
  let writeEnd = fds[1]
  Thread {
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = write(writeEnd, raw.baseAddress! + offset, min(65536, raw.count - offset))
        if n <= 0 { break }
        offset += n
      }
    }
    close(writeEnd)
  }.start()
  return fds[0]
}
