import Foundation
import Glibc
import Testing

/// The free space a daemon keeps (`reserve_bytes` in its settings) holds while bytes arrive, not
/// only when an ask is judged: standard input, whose size nobody knows up front, fails when it
/// reaches the reserve, leaves nothing behind, and the daemon goes on serving.
///
/// Runs as root: the receiver's Documents is a small tmpfs mounted for the test.
@Suite struct DiskReserveTests {
  @Test func standardInputThatWouldEatTheReserveFailsCleanlyAndTheDaemonKeepsServing() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let mount = try SmallDisk(at: b.documents, size: "8m")
    defer { mount.unmount() }
    let settings = try JSONSerialization.data(withJSONObject: ["name": "bob", "reserve_bytes": 6 << 20])
    try settings.write(to: b.home.appendingPathComponent("settings.json"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }

    // 4 MiB of text, which the default declarations accept.
    let line = Data("a log line that goes on and on\n".utf8)
    let stream = (0..<((4 << 20) / line.count)).reduce(into: Data()) { data, _ in data += line }
    let sent = try a.run(["--home", a.home.path, "send", "-", "--name", "big.log.txt", "--to", daemon.address], stdin: stream)
    #expect(sent.exited(with: 4), "\(sent)")
    #expect(
      sent.stdoutLines == ["failed   big.log.txt: not stored: not enough free space on the receiver (it keeps 6.0 MiB free)"], "\(sent)")
    #expect(b.inboxNames().isEmpty)
    #expect(b.stagingEntries().isEmpty, "\(b.stagingEntries())")
    // The daemon's log names the disk.
    #expect(daemon.waitForLog("failed to receive big.log.txt from"), "\(daemon.log)")
    #expect(daemon.log.contains("free on the disk holding \(b.inbox.path)"), "\(daemon.log)")

    let small = try a.file("small.txt", "fits\n")
    let again = try a.share("send", small.path, "--to", daemon.address)
    #expect(again.exited(with: 0), "\(again)")
    #expect(b.inboxNames() == ["small.txt"])
  }
}

/// A tmpfs of `size` mounted on `point` for one test.
private struct SmallDisk {
  let point: URL

  init(at point: URL, size: String) throws {
    guard geteuid() == 0 else { throw HarnessError("this test mounts a tmpfs and must run as root (euid is \(geteuid()))") }
    self.point = point
    try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
    guard SmallDisk.run("mount", "-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", point.path) == 0 else {
      throw HarnessError("mount -t tmpfs on \(point.path) failed")
    }
  }

  /// Unmounts (lazily, should a descriptor still be open).
  func unmount() {
    if SmallDisk.run("umount", point.path) != 0 { _ = SmallDisk.run("umount", "-l", point.path) }
  }

  private static func run(_ arguments: String...) -> Int32 {
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
