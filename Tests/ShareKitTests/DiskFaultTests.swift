import Foundation
import Glibc
import Testing
import InboxStore
import TLS
import Wire
@testable import ShareKit

/// A receiver whose Documents sit on a full or read-only file system: the items that cannot be
/// written fail with a clear reason, the rest are stored, nothing partial reaches the Inbox,
/// staging is left empty, and the receiver keeps serving.
///
/// These run as root and use real mounts (a small tmpfs), because permission bits do not stop
/// root from writing.
@Suite struct DiskFaultTests {
  @Test func anItemLargerThanTheFreeSpaceIsRefusedBeforeAnyByteMoves() throws {
    let mount = try ScratchMount(options: "size=2m")
    defer { mount.unmount() }
    let a = try TestHome(name: "alice")
    let b = try TestHome(name: "bob", documents: mount.point)
    let receiver = try RunningReceiver(home: b, configuration: ReceiverConfiguration(host: "127.0.0.1", reserveBytes: 512 << 10))
    defer { receiver.receiver.stop() }
    let items = try OutgoingItem.files([a.file("big.bin", randomBytes(3 << 20)).path, a.file("small.txt", Array("fits\n".utf8)).path])
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(report.answers.first { $0.id == 0 }?.accepted == false)
    #expect(report.items.first { $0.id == 0 }?.reason?.contains("not enough free space") == true)
    #expect(report.items.first { $0.id == 1 }?.status == .stored)
    #expect(b.inboxNames() == ["small.txt"])
    #expect(b.stagingNames().isEmpty)
  }

  @Test func aFullDiskFailsTheItemThatDoesNotFitStoresTheNextAndLeavesNothingPartial() throws {
    let mount = try ScratchMount(options: "size=2m")
    defer { mount.unmount() }
    let a = try TestHome(name: "alice")
    let b = try TestHome(name: "bob", documents: mount.point)
    // No reserve: this test is about the disk filling up mid-transfer, after the space check.
    let receiver = try RunningReceiver(home: b, configuration: ReceiverConfiguration(host: "127.0.0.1", reserveBytes: 0))
    defer { receiver.receiver.stop() }

    // The big one first, from a pipe: its size is unknown, so no free-space check can refuse it
    // up front and the disk fills mid-transfer. The small one fits only if the big one's partial
    // file was discarded.
    let small = Array("small enough\n".utf8)
    let readEnd = try feedPipe(randomBytes(4 << 20))
    defer { close(readEnd) }
    var catalog = ItemCatalog()
    catalog.add(stream: readEnd, name: "big.bin")
    try catalog.add(path: a.file("small.txt", small).path)
    let report = try Sender(device: a.device).send(catalog.items, to: receiver.endpoint)

    let big = try #require(report.items.first { $0.id == 0 })
    #expect(big.status == .failed)
    // The sender learns why, and nothing of the receiver's paths (they reveal its home folder).
    #expect(big.reason == "not stored: the receiver's disk is full", "\(big.reason ?? "")")
    #expect(report.items.first { $0.id == 1 }?.status == .stored)
    #expect(b.inboxNames() == ["small.txt"])
    #expect(FileManager.default.contents(atPath: b.inbox.appendingPathComponent("small.txt").path) == Data(small))
    #expect(b.stagingNames().isEmpty, "staging: \(b.stagingNames())")
    // The receiver's own log keeps the detail: which disk is full.
    #expect(receiver.waitFor { event in
      if case .failed(_, let item, let reason) = event {
        return item.name == "big.bin" && reason.contains("full") && reason.contains(mount.point.path)
      }
      return false
    }, "\(receiver.recorded)")

    // Still serving, and the freed space is usable.
    let again = try Sender(device: a.device).send(try OutgoingItem.files([a.file("later.txt", [1, 2, 3]).path]), to: receiver.endpoint)
    #expect(again.allStored)
    #expect(b.inboxNames() == ["small.txt", "later.txt"])
  }

  @Test func aReadOnlyFileSystemFailsEveryItemWithAClearReasonAndTheReceiverKeepsServing() throws {
    let mount = try ScratchMount(options: "size=8m")
    defer { mount.unmount() }
    let a = try TestHome(name: "alice")
    let b = try TestHome(name: "bob", documents: mount.point)
    let receiver = try RunningReceiver(home: b, configuration: ReceiverConfiguration(host: "127.0.0.1", reserveBytes: 0))  // creates Inbox, staging and meta first
    defer { receiver.receiver.stop() }
    try mount.remount(readOnly: true)

    let items = try OutgoingItem.files([a.file("big.bin", randomBytes(1 << 20)).path, a.file("small.txt", [7]).path])
    let report = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(report.items.count == 2)
    for item in report.items {
      #expect(item.status == .failed, "\(item)")
      // Path-free for the sender.
      #expect(item.reason == "not stored: the receiver cannot write to its Inbox", "\(item.reason ?? "")")
    }
    // Locally, the log says what is wrong: a read-only file system (not "permission denied").
    for name in ["big.bin", "small.txt"] {
      #expect(receiver.waitFor { event in
        if case .failed(_, let item, let reason) = event {
          return item.name == name && reason.contains("the file system holding \(mount.point.path)")
            && reason.hasSuffix(" is read-only") && !reason.contains("permission denied")
        }
        return false
      }, "\(name): \(receiver.recorded)")
    }
    #expect(b.inboxNames().isEmpty)
    #expect(b.stagingNames().isEmpty)
    #expect(receiver.waitFor { if case .finished(_, 0, 0, 2) = $0 { return true }; return false })

    // Writable again: the same receiver stores the next send.
    try mount.remount(readOnly: false)
    let again = try Sender(device: a.device).send(items, to: receiver.endpoint)
    #expect(again.allStored)
    #expect(b.inboxNames() == ["big.bin", "small.txt"])
  }
}

/// A tmpfs mounted on a fresh temporary folder for one test; `unmount()` (safe to call more than
/// once, and called again when it goes away) detaches it and removes the folder.
private final class ScratchMount {
  let root: URL
  /// The mount point.
  let point: URL
  private var mounted = false

  init(options: String) throws {
    guard geteuid() == 0 else {
      throw MountError("the disk fault tests mount a tmpfs and must run as root (euid is \(geteuid()))")
    }
    root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-disk-\(UUID().uuidString)")
    point = root.appendingPathComponent("Documents")
    try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
    do {
      try ScratchMount.run("mount", "-t", "tmpfs", "-o", "\(options),mode=0755", "tmpfs", point.path)
    } catch {
      try? FileManager.default.removeItem(at: root)
      throw error
    }
    mounted = true
  }

  deinit { unmount() }

  func remount(readOnly: Bool) throws {
    try ScratchMount.run("mount", "-o", readOnly ? "remount,ro" : "remount,rw", point.path)
  }

  func unmount() {
    if mounted {
      // Lazy as a fallback: a descriptor still open somewhere must not leave the mount behind.
      if (try? ScratchMount.run("umount", point.path)) == nil {
        try? ScratchMount.run("umount", "-l", point.path)
      }
      mounted = false
    }
    try? FileManager.default.removeItem(at: root)
  }

  /// Runs a command, throwing with its stderr when it fails.
  private static func run(_ arguments: String...) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    let message = errors.fileHandleForReading.readDataToEndOfFile()  // small; ends when it exits
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
      throw MountError("\(arguments.joined(separator: " ")) failed (status \(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
    }
  }
}

private struct MountError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
