import Foundation
import Glibc
import System
import Testing

@Suite struct DurableWriteTests {
  @Test func createsTheFileOwnerOnlyWhateverTheUmaskAndLeavesNoTemporaryFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/settings.json"
    try writeDurably(Data("{}".utf8), to: path)
    #expect(FileManager.default.contents(atPath: path) == Data("{}".utf8))
    #expect(try FileSystem.status(path).permissions == .ownerReadWrite)
    #expect(try directory.names() == ["settings.json"])
    try writeDurably([7], to: directory.path + "/public", permissions: FilePermissions(rawValue: 0o644))
    #expect(try FileSystem.status(directory.path + "/public").permissions.rawValue == 0o644)
  }

  @Test func replacesTheFileWholeByRenamingANewOneOverIt() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/store"
    try writeDurably(Array("first version".utf8), to: path)
    // A reader that opened the old file keeps seeing it whole: the new bytes are a new inode.
    let reader = try FileDescriptor.open(path, .readOnly)
    defer { try? reader.close() }
    let oldInode = try reader.status().inode
    try writeDurably(Array("second".utf8), to: path)
    #expect(try reader.readAll(upTo: 100) == Array("first version".utf8))
    #expect(try FileSystem.status(path).inode != oldInode)
    #expect(FileManager.default.contents(atPath: path) == Data("second".utf8))
    #expect(try directory.names() == ["store"])
  }

  @Test func aFailedWriteLeavesTheTargetAndNoTemporaryFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    // A non-empty folder cannot be renamed over: the last step fails.
    let path = directory.path + "/occupied"
    try FileSystem.makeDirectory(path, permissions: .ownerReadWriteExecute)
    try writeDurably([1], to: path + "/inside")
    #expect(throws: Errno.isDirectory) { try writeDurably([1, 2, 3], to: path) }
    #expect(try directory.names() == ["occupied"])
    #expect(throws: Errno.noSuchFileOrDirectory) {
      try writeDurably([1], to: directory.path + "/missing/file")
    }
  }

  @Test func withoutReplacingAnExistingFileIsKept() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/identity.key"
    try writeDurably(Array("mine".utf8), to: path, replacing: false)
    #expect(throws: Errno.fileExists) {
      try writeDurably(Array("theirs".utf8), to: path, replacing: false)
    }
    #expect(FileManager.default.contents(atPath: path) == Data("mine".utf8))
    #expect(try directory.names() == ["identity.key"])
  }
}
