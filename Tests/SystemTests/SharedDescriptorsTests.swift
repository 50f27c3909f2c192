import Glibc
import Testing

@testable import System

/// A descriptor closed while in use is released only when the last use ends, and only once.
@Suite struct SharedDescriptorsTests {
  /// Whether `fd` is still the file whose inode was `inode` (tests run in parallel: a closed
  /// number may already name another test's file).
  static func isOpen(_ fd: Int32, _ inode: UInt64) -> Bool {
    var status = stat()
    return fstat(fd, &status) == 0 && UInt64(status.st_ino) == inode
  }

  static func inode(_ fd: Int32) -> UInt64 {
    var status = stat()
    _ = fstat(fd, &status)
    return UInt64(status.st_ino)
  }

  @Test func closingWhileInUseInterruptsAtOnceAndReleasesAfterTheLastUse() throws {
    var ends: [Int32] = [-1, -1]
    #expect(pipe(&ends) == 0)
    defer { Glibc.close(ends[1]) }
    let pipeInode = Self.inode(ends[0])
    let shared = SharedDescriptors([ends[0]])
    let first = try #require(shared.acquire())
    #expect(try #require(shared.acquire()) == first)
    var interrupted = 0
    shared.close { _ in interrupted += 1 }
    shared.close { _ in interrupted += 1 }
    #expect(interrupted == 1, "close interrupts once")
    #expect(shared.isClosed && shared.acquire() == nil && shared.current == nil, "no new use after close")
    shared.release()
    #expect(Self.isOpen(ends[0], pipeInode), "released while a use was still under way")
    shared.release()
    #expect(!Self.isOpen(ends[0], pipeInode), "not released after the last use")
  }

  @Test func closingWhenUnusedReleasesAtOnce() {
    var ends: [Int32] = [-1, -1]
    #expect(pipe(&ends) == 0)
    let pipeInode = Self.inode(ends[0])
    let shared = SharedDescriptors([ends[0], ends[1]])
    #expect(shared.current == [ends[0], ends[1]])
    shared.close { _ in }
    #expect(!Self.isOpen(ends[0], pipeInode) && !Self.isOpen(ends[1], pipeInode))
  }
}
