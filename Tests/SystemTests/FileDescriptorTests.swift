import Foundation
import Glibc
import System
import Testing
import TextEscaping

@Suite struct FileDescriptorTests {
  /// Bytes that show any loss, duplication or reordering.
  static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 251) } }

  @Test func writeAllDeliversEverythingThroughPartialWrites() throws {
    // A blocking pipe write interrupted by a signal after moving some bytes returns the partial
    // count: writeAll must carry on from there, losing and repeating nothing.
    Interruptions.install()
    let (readEnd, writeEnd) = try FileDescriptor.pipe()
    defer { try? readEnd.close() }
    let bytes = Self.pattern(4 << 20)
    let handle = ThreadHandle()
    let writer = Background { () throws -> Void in
      handle.publish()
      defer { try? writeEnd.close() }
      try writeEnd.writeAll(bytes)
    }
    let thread = try handle.wait()
    var received: [UInt8] = []
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 << 10, alignment: 16)
    defer { chunk.deallocate() }
    let before = Interruptions.count
    while true {
      if !writer.isFinished { Interruptions.interrupt(thread) }
      let count = try readEnd.read(into: chunk)
      if count == 0 { break }
      received.append(contentsOf: chunk[0..<count])
    }
    try writer.wait()
    #expect(Interruptions.count > before)
    #expect(received.count == bytes.count)
    #expect(received == bytes)
  }

  /// Runs `body` with a new file of `pattern(1000)` open for reading.
  private func withPatternFile(_ body: (FileDescriptor) throws -> Void) throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/data"
    try writeDurably(Self.pattern(1000), to: path)
    let file = try FileDescriptor.open(path, .readOnly)
    defer { try? file.close() }
    try body(file)
  }

  @Test func readAllStopsAtTheLimitOrTheEnd() throws {
    try withPatternFile { file throws in
      #expect(try file.readAll(upTo: 10) == Self.pattern(10))
      try file.seek(offset: 0, from: .start)
      #expect(try file.readAll(upTo: 5000, chunk: 7) == Self.pattern(1000))
      try file.seek(offset: 0, from: .start)
      #expect(try file.readAll(upTo: 1000) == Self.pattern(1000))
    }
  }

  @Test func readAllAtAnOffsetFillsTheBufferOrSaysTheFileEnded() throws {
    try withPatternFile { file throws in
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 300, alignment: 8)
      defer { buffer.deallocate() }
      #expect(try file.readAll(fromAbsoluteOffset: 700, into: buffer))
      #expect(Array(buffer) == Array(Self.pattern(1000)[700..<1000]))
      #expect(try !file.readAll(fromAbsoluteOffset: 701, into: buffer))
      #expect(Array(buffer[0..<299]) == Array(Self.pattern(1000)[701..<1000]))
      #expect(try file.seek(offset: 0, from: .current) == 0)
    }
  }

  @Test func positionedIOLeavesTheOffsetAlone() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = try FileDescriptor.open(
      directory.path + "/data", .readWrite, options: [.create, .exclusiveCreate],
      permissions: .ownerReadWrite)
    defer { try? file.close() }
    try file.writeAll(Array("hello world".utf8))
    let written = try Array("W".utf8).withUnsafeBytes { try file.write(toAbsoluteOffset: 6, $0) }
    #expect(written == 1)
    #expect(try file.seek(offset: 0, from: .current) == 11)
    var buffer = [UInt8](repeating: 0, count: 5)
    let count = try buffer.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: 6, into: $0) }
    #expect(count == 5)
    #expect(String(decoding: buffer, as: UTF8.self) == "World")
    let status = try file.status()
    #expect(status.kind == .regular)
    #expect(status.size == 11)
  }

  @Test func exclusiveCreateRefusesAnExistingFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.path + "/data"
    try FileDescriptor.open(path, .writeOnly, options: [.create], permissions: .ownerReadWrite)
      .close()
    #expect(throws: Errno.fileExists) {
      try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate])
    }
    #expect(throws: Errno.noSuchFileOrDirectory) {
      try FileDescriptor.open(directory.path + "/missing", .readOnly)
    }
  }

  @Test func makeDirectoriesCreatesParentsAndRefusesAFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let deep = directory.path + "/a/b/c"
    try FileSystem.makeDirectories(
      deep, permissions: .ownerReadWriteExecute, parentPermissions: FilePermissions(rawValue: 0o755))
    try FileSystem.makeDirectories(deep, permissions: .ownerReadWriteExecute)
    #expect(try FileSystem.status(deep).kind == .directory)
    #expect(try FileSystem.status(deep).permissions == .ownerReadWriteExecute)
    try writeDurably([1], to: directory.path + "/file")
    #expect(throws: Errno.notDirectory) {
      try FileSystem.makeDirectories(directory.path + "/file", permissions: .ownerReadWriteExecute)
    }
  }

  @Test func renameNoReplaceNeverOverwrites() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try writeDurably(Array("old".utf8), to: directory.path + "/target")
    try writeDurably(Array("new".utf8), to: directory.path + "/source")
    #expect(throws: Errno.fileExists) {
      try FileSystem.renameNoReplace(directory.path + "/source", to: directory.path + "/target")
    }
    #expect(FileManager.default.contents(atPath: directory.path + "/target") == Data("old".utf8))
    try FileSystem.renameNoReplace(directory.path + "/source", to: directory.path + "/fresh")
    #expect(try directory.names() == ["fresh", "target"])
  }
}

/// Paths are taken byte for byte: a name that is not UTF-8 is listed, opened and read as it is
/// (review 27: such a file could not be sent).
@Suite struct RawFileNameTests {
  @Test func aNameThatIsNotUTF8IsListedOpenedAndLinkedToByItsBytes() throws {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let raw: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)
    let cPath = Array(folder.path.utf8) + [UInt8(ascii: "/")] + raw + [0]
    let fd = cPath.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, O_CREAT | O_WRONLY, 0o600) }
    }
    #expect(fd >= 0)
    _ = Glibc.write(fd, "latin1", 6)
    close(fd)
    let names = try FileSystem.entryNames(of: folder.path)
    #expect(names.count == 1)
    let name = try #require(names.first)
    #expect(FileNameText.bytes(of: name) == raw)
    let path = folder.path + "/" + name
    #expect(try FileSystem.status(path).size == 6)
    let file = try FileDescriptor.open(path, .readOnly)
    defer { try? file.close() }
    #expect(try file.readAll(upTo: 100) == Array("latin1".utf8))
    try FileSystem.isReadable(path)
    let link = folder.path + "/link"
    #expect(symlink(FileNameText.bytes(of: name).map { CChar(bitPattern: $0) } + [0], link) == 0)
    #expect(try FileSystem.linkTarget(link) == name)
    #expect(try FileSystem.entryNames(of: folder.path).sorted() == [name, "link"].sorted())
    try FileSystem.remove(path)
    #expect(try FileSystem.entryNames(of: folder.path) == ["link"])
  }
}
