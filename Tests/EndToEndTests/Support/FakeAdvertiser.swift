import Foundation
import Glibc

/// A DNS-SD record anyone on the link could publish: `_share._tcp` under `name`, with a TXT
/// record of our choosing, published on the shared loopback Avahi with `avahi-publish` (Debian
/// package avahi-utils) for as long as this object lives.
final class FakeAdvertiser {
  let name: String
  private let process: ChildProcess

  init(name: String, port: UInt16, txt: [String]) throws {
    let candidates = ["/usr/bin/avahi-publish", "/bin/avahi-publish"]
    guard let tool = candidates.first(where: { access($0, X_OK) == 0 }) else {
      throw HarnessError("this test needs avahi-publish (Debian package avahi-utils)")
    }
    self.name = name
    process = try ChildProcess(
      executable: URL(fileURLWithPath: tool), arguments: ["-s", name, "_share._tcp", String(port)] + txt,
      environment: ProcessInfo.processInfo.environment)
    let published = process.waitFor(timeout: .seconds(20)) { stdout, stderr, exited in
      exited || String(decoding: stdout + stderr, as: UTF8.self).contains("Established under name")
    }
    guard published, process.isRunning else {
      throw HarnessError("avahi-publish did not publish \(name):\n\(process.wait(timeout: .seconds(1)))")
    }
  }

  deinit {
    process.signal(SIGTERM)
    _ = process.wait(timeout: .seconds(5))
  }
}
