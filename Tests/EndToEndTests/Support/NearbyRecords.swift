import Foundation
import Glibc

/// A TCP port on 127.0.0.1 that accepts connections and never says a word, where a bogus record
/// points. Counts the connections it accepted and how many the other side closed.
final class SilentPort: Sendable {
  /// What the accepting threads share. `@unchecked Sendable`: every field is touched under `lock`.
  private final class Counts: @unchecked Sendable {
    let lock = NSLock()
    var accepted = 0
    var closedByPeer = 0
    var open: [Int32] = []
    func update(_ body: (Counts) -> Void) {
      lock.lock()
      body(self)
      lock.unlock()
    }
  }

  private let fd: Int32
  private let counts = Counts()
  let port: UInt16

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
    self.fd = fd
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ready = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
        bind(fd, raw, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, raw, &length) == 0
      }
    }
    guard ready else {
      close(fd)
      throw HarnessError("cannot listen on 127.0.0.1: errno \(errno)")
    }
    port = UInt16(bigEndian: address.sin_port)
    let counts = self.counts
    let thread = Thread {
      while true {
        let client = accept(fd, nil, nil)
        if client < 0 { if errno == EINTR { continue } else { return } }
        counts.update {
          $0.accepted += 1
          $0.open.append(client)
        }
        Thread {
          var byte: UInt8 = 0
          while read(client, &byte, 1) > 0 {}  // until the other side closes
          counts.update { $0.closedByPeer += 1 }
        }.start()
      }
    }
    thread.name = "e2e-silent-port"
    thread.start()
  }

  deinit {
    shutdown(fd, Int32(SHUT_RDWR))
    counts.update { counts in counts.open.forEach { shutdown($0, Int32(SHUT_RDWR)) } }
  }

  var accepted: Int { counts.lock.withLock { counts.accepted } }
  var closedByPeer: Int { counts.lock.withLock { counts.closedByPeer } }
}

extension ShareHome {
  /// What `share peers --json` lists now, and the names of those entries (name and aliases).
  func nearbyPeers(timeout: Int = 3) throws -> [[String: Any]] {
    let result = try share("peers", "--json", "--timeout", String(timeout))
    guard result.exited(with: 0) else { throw HarnessError("'share peers' failed:\n\(result)") }
    return try parseJSONLines(result.stdoutText)
  }

  /// Waits (bounded) until `share peers` lists every one of `names`; the listing then.
  func waitToSee(_ names: [String], timeout: Duration = .seconds(30)) throws -> [[String: Any]] {
    let deadline = ContinuousClock.now + timeout
    var listed: [[String: Any]] = []
    while ContinuousClock.now < deadline {
      listed = try nearbyPeers()
      let seen = Set(listed.flatMap { [$0["name"] as? String ?? ""] + ($0["aliases"] as? [String] ?? []) })
      if seen.isSuperset(of: names) { return listed }
    }
    throw HarnessError("share peers never listed all of \(names); last listing:\n\(listed)")
  }
}
