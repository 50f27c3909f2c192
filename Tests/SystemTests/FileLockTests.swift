import Foundation
import Glibc
import System
import Testing

@Suite struct FileLockTests {
  /// Runs `flock -n PATH true` (util-linux), a separate process asking for the lock without
  /// waiting; returns whether it got it.
  static func anotherProcessCanLock(_ path: String, shared: Bool = false) throws -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
    process.arguments = (shared ? ["-s"] : []) + ["-n", path, "true"]
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  @Test func anExclusiveLockExcludesAnotherOpenUntilUnlocked() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/contacts.lock"
    let lock = try FileLock(path: path)
    #expect(try FileLock.attempt(path: path) == nil)
    #expect(try FileLock.attempt(path: path, kind: .shared) == nil)
    lock.unlock()
    #expect(try FileLock.attempt(path: path) != nil)
    #expect(try FileSystem.status(path).permissions == .ownerReadWrite)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock")))
  func anExclusiveLockExcludesAnotherProcess() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/contacts.lock"
    var lock: FileLock? = try FileLock(path: path)
    #expect(lock != nil)
    #expect(try !Self.anotherProcessCanLock(path))
    lock = nil  // deinit releases it
    #expect(try Self.anotherProcessCanLock(path))
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock")))
  func sharedLocksExcludeOnlyWriters() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/contacts.lock"
    let lock = try FileLock(path: path, kind: .shared)
    defer { lock.unlock() }
    #expect(try FileLock.attempt(path: path, kind: .shared) != nil)
    #expect(try Self.anotherProcessCanLock(path, shared: true))
    #expect(try !Self.anotherProcessCanLock(path))
  }

  @Test func aWaitingLockerGetsTheLockWhenItIsReleased() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/contacts.lock"
    let first = try FileLock(path: path)
    let waiter = Background { () throws -> Bool in
      let second = try FileLock(path: path)
      defer { second.unlock() }
      return true
    }
    usleep(100_000)
    #expect(!waiter.isFinished)
    first.unlock()
    #expect(try waiter.wait())
  }
}
