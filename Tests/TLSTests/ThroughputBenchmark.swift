import Foundation
import Glibc
import TLS
import Testing

/// A benchmark, not a test: prints loopback TLS throughput. Runs only when asked:
///
///     TLS_BENCH=1 swift test -c release --filter ThroughputBenchmark
///
/// `TLS_BENCH_MIB` sets the stream size (default 1024 MiB); buffers are 1 MiB on both sides.
/// It checks only that every byte arrived; the figures are for reading, not for asserting.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TLS_BENCH"] != nil))
struct ThroughputBenchmark {
  let mebibytes = Int(ProcessInfo.processInfo.environment["TLS_BENCH_MIB"] ?? "") ?? 1024

  /// Streams `mebibytes` MiB from client to server and returns MB/s (10^6 bytes per second).
  func measure(hashOnReceive: Bool, hashOnSend: Bool) throws -> (mbps: Double, cpuPerGiB: Double) {
    let peers = try Peers()
    defer { peers.directory.remove() }
    let (server, client) = try peers.connectedPair()
    defer {
      server.close()
      client.close()
    }
    let total = mebibytes << 20
    let receiver = Background { () throws -> Int in
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
      defer { buffer.deallocate() }
      let hasher = SHA256Hasher()
      var received = 0
      while true {
        let n = try server.read(into: buffer)
        if n == 0 { break }
        if hashOnReceive { hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n])) }
        received += n
      }
      _ = hasher.finalize()
      return received
    }
    let chunk = pseudoRandomBytes(count: 1 << 20, seed: 1)
    let hasher = SHA256Hasher()
    let start = ContinuousClock.now
    let cpuStart = processCPUSeconds()
    try chunk.withUnsafeBytes { raw in
      for _ in 0..<mebibytes {
        if hashOnSend { hasher.update(raw) }
        try client.write(raw)
      }
    }
    client.shutdown()
    let received = try receiver.wait()
    let elapsed = ContinuousClock.now - start
    let cpu = processCPUSeconds() - cpuStart
    #expect(received == total)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (Double(total) / seconds / 1e6, cpu / Double(mebibytes) * 1024)
  }

  /// User + system CPU time of the whole process so far (`getrusage(RUSAGE_SELF)`).
  func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }

  @Test func loopbackStreamThroughput() throws {
    let plain = try measure(hashOnReceive: false, hashOnSend: false)
    let hashed = try measure(hashOnReceive: true, hashOnSend: true)
    func format(_ r: (mbps: Double, cpuPerGiB: Double)) -> String {
      "\(Int(r.mbps)) MB/s (\(String(format: "%.2f", r.cpuPerGiB)) CPU-s/GiB, both ends)"
    }
    print(
      "TLS loopback, \(mebibytes) MiB, 1 MiB buffers: \(format(plain));"
        + " with SHA-256 on both sides: \(format(hashed))")
  }
}
