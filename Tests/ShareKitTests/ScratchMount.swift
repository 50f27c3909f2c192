import Foundation
import Glibc

/// A tmpfs mounted on a fresh temporary folder for one test; `unmount()` (safe to call more than
/// once, and called again when it goes away) detaches it and removes the folder.
final class ScratchMount {
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
      throw MountError(
        "\(arguments.joined(separator: " ")) failed (status \(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
    }
  }
}

struct MountError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
