import Foundation
import Glibc
import Synchronization
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
      guard let tls = try? loopbackTLS(to: port, context: context, from: address, timeout: .seconds(5)) else {
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
}
