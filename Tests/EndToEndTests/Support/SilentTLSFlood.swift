import Foundation
import Glibc
import Synchronization
import System
import TLS

/// An attacker that holds connections open without ever saying Hello: it connects from several
/// loopback addresses (127.0.0.2, 127.0.0.3, …), finishes real TLS 1.3 handshakes with throwaway
/// certificates, then stays silent. While it runs, a thread per address keeps its share of
/// `connections` open, reconnecting as soon as the receiver drops one, so the flood does not
/// simply wait out a deadline.
final class SilentTLSFlood: @unchecked Sendable {
  let addresses: [String]
  private let stopped = Atomic<Bool>(false)
  private let held = Mutex<[TLSConnection]>([])
  private let done = DispatchGroup()
  /// Handshakes that completed.
  let handshakes = Atomic<Int>(0)
  private let scratch: URL

  /// Starts `connections` silent connections to 127.0.0.1:`port`, spread over `addresses` source
  /// addresses.
  init(port: UInt16, connections: Int, addresses count: Int) throws {
    // A handshake write to a connection the receiver has already refused must fail, not kill
    // the test process.
    signal(SIGPIPE, SIG_IGN)
    addresses = (0..<count).map { "127.0.0.\(2 + $0)" }
    scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-flood-\(UUID().uuidString)")
    let perAddress = connections / count
    for (index, address) in addresses.enumerated() {
      let identity = try DeviceIdentity.loadOrCreate(in: scratch.appendingPathComponent("\(index)"), commonName: "flood-\(index)")
      let context = try TLSContext(identity: identity, role: .client)
      for _ in 0..<perAddress {
        done.enter()
        let thread = Thread { [self] in
          keepOpen(from: address, to: port, context: context)
          done.leave()
        }
        thread.start()
      }
    }
  }

  deinit { try? FileManager.default.removeItem(at: scratch) }

  /// Stops reconnecting and closes every connection.
  func stop() {
    stopped.store(true, ordering: .sequentiallyConsistent)
    held.withLock { $0.forEach { $0.close() } }
    _ = done.wait(timeout: .now() + 20)
    held.withLock { $0.forEach { $0.close() } }
  }

  /// One connection slot: connect, handshake, wait silently until the receiver hangs up, again.
  private func keepOpen(from address: String, to port: UInt16, context: TLSContext) {
    while !stopped.load(ordering: .sequentiallyConsistent) {
      guard let socket = try? connect(from: address, to: port),
        let tls = try? TLSConnection.connect(socket, context: context, timeout: .seconds(5))
      else {
        usleep(50_000)
        continue
      }
      handshakes.add(1, ordering: .relaxed)
      held.withLock { $0.append(tls) }
      // Silent: read only to notice the receiver hanging up (a Failure it sends is ignored).
      var byte = [UInt8](repeating: 0, count: 256)
      while !stopped.load(ordering: .sequentiallyConsistent) {
        let count = byte.withUnsafeMutableBytes { try? tls.read(into: $0) }
        if count == nil || count == 0 { break }
      }
      tls.close()
      held.withLock { $0.removeAll { $0 === tls } }
    }
  }

  /// A TCP connection from `address` to 127.0.0.1:`port`.
  private func connect(from address: String, to port: UInt16) throws -> Socket {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
    func ipv4(_ text: String, _ port: UInt16) -> sockaddr_in {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      inet_pton(AF_INET, text, &address.sin_addr)
      return address
    }
    var source = ipv4(address, 0)
    var target = ipv4("127.0.0.1", port)
    let length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &source) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    let connected =
      bound == 0
      && withUnsafePointer(to: &target) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
      } == 0
    guard connected else {
      let code = errno
      Glibc.close(fd)
      throw HarnessError("connect from \(address): errno \(code)")
    }
    return try Socket(adopting: fd)
  }
}
