import Foundation
import System
import Testing

@testable import UniformTypes

/// The cut database kept in a file: written by the first process that needs it, read by the
/// next ones, rebuilt when damaged or cut from another database, and never needed (memory
/// serves) when the folder cannot be written. The answers are the same in every case.
@Suite struct CutMagicFileTests {
  static let heads: [(String, [UInt8])] = [
    ("png", SampleBytes.png), ("pdf", SampleBytes.pdf), ("zip", SampleBytes.plainZip), ("deb", SampleBytes.deb),
    ("random", SampleBytes.random(count: 4096, seed: 0xC0FFEE)),
  ]

  /// What a sniffer says of every head, with the cut database first.
  static func answers(_ sniffer: ContentSniffer) throws -> [MagicResult] {
    try heads.map { try sniffer.sniff($0.1) }
  }

  static func folder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  @Test func theFirstSnifferWritesTheFileAndTheNextReadsItWithTheSameAnswers() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("cache/magic-mime.cut").path
    let expected = try Self.answers(try ContentSniffer(cutFirst: false))

    #expect(try Self.answers(try ContentSniffer(cutFile: path)) == expected)
    let written = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(written.prefix(16) == Data(CutMagicFile.signature), "no cut database written at \(path)")
    let modified = try FileSystem.status(path).modificationNanoseconds

    usleep(20_000)
    #expect(try Self.answers(try ContentSniffer(cutFile: path)) == expected)
    #expect(try FileSystem.status(path).modificationNanoseconds == modified, "a good file was written again")
  }

  /// Found by an outside review: the 20 MB cache was written whatever the disk had left.
  @Test func theFileIsNotWrittenWhereItWouldEatIntoTheFreeSpaceKept() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("cache/magic-mime.cut").path
    let file = CutMagicFile(path: path, source: CutMagicFile.Source(inode: 1, size: 2, modified: 3))
    let whole = UnsafeMutableRawBufferPointer.allocate(byteCount: CutMagicFile.headerSize + 4096, alignment: 16)
    defer { whole.deallocate() }
    whole.initializeMemory(as: UInt8.self, repeating: 0)
    // Other suites remove their files while this one runs (CI saw 4 KiB freed between the two
    // readings): asking for a gigabyte more than is free now stays more than will be free then.
    let free = try FileSystem.availableBytes(at: folder.path) + (1 << 30)
    #expect(!file.store(whole, keepingFree: free), "stored though it would leave less than asked")
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(file.store(whole, keepingFree: 0))
    #expect(FileManager.default.fileExists(atPath: path))
  }

  @Test(arguments: ["damaged", "truncated", "another database", "another regex limit"])
  func aFileThatCannotBeTrustedIsRebuiltAndReplaced(_ flaw: String) throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("magic-mime.cut").path
    let expected = try Self.answers(try ContentSniffer(cutFirst: false))
    _ = try Self.answers(try ContentSniffer(cutFile: path))
    let good = try Data(contentsOf: URL(fileURLWithPath: path))

    var bad = good
    switch flaw {
    case "damaged": bad[bad.count / 2] ^= 0xFF
    case "truncated": bad = bad.prefix(bad.count - 4096)
    case "another database": bad[32] ^= 0x01  // the full database's inode, as the header records it
    default: bad[56] ^= 0x01  // libmagic's regex limit it was cut for
    }
    try bad.write(to: URL(fileURLWithPath: path))

    #expect(try Self.answers(try ContentSniffer(cutFile: path)) == expected)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == good, "the \(flaw) file was not replaced by a good one")
  }

  @Test func aFolderThatCannotBeWrittenLeavesTheCutDatabaseInMemory() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    // A regular file where the folder should be: nothing can be created under it, even by root.
    let blocked = folder.appendingPathComponent("not-a-folder")
    try Data("x".utf8).write(to: blocked)
    let path = blocked.appendingPathComponent("magic-mime.cut").path
    #expect(try Self.answers(try ContentSniffer(cutFile: path)) == (try Self.answers(try ContentSniffer(cutFirst: false))))
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  @Test func releasingTheDatabasePagesGivesBackTheCutFilesToo() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("magic-mime.cut").path
    let sniffer = try ContentSniffer(cutFile: path)
    _ = try sniffer.sniff(SampleBytes.random(count: 4096, seed: 7))
    #expect(try Self.residentKiB(of: path) > 0, "the cut database was not read from its file")
    sniffer.releaseDatabasePages()
    #expect(try Self.residentKiB(of: path) == 0)
    // And it comes back on the next sniff, with the same answer.
    #expect(try sniffer.sniff(Self.heads[0].1) == (try ContentSniffer(cutFirst: false).sniff(Self.heads[0].1)))
  }

  @Test func aGoodFileIsCheckedWithoutMakingItResident() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("magic-mime.cut").path
    _ = try Self.answers(try ContentSniffer(cutFile: path))
    let database = try #require(MappedFile.map("/usr/share/misc/magic.mgc"))
    defer { database.unmap() }
    let status = database.status
    let file = CutMagicFile(
      path: path, source: .init(inode: status.inode, size: UInt64(status.size), modified: status.modificationNanoseconds))
    // The whole file (cut and guarded databases, pieces, ~20 MB) is read to check it, but through the
    // file: its mapping holds no page until libmagic reads one.
    let (mapped, databases) = try #require(file.map(), "a good file was not taken")
    #expect(databases.count > 3 && databases.first?.lowerBound == CutMagicFile.headerSize && databases.last?.upperBound == mapped.length)
    defer { mapped.unmap() }
    #expect(mapped.length > 8 << 20)
    #expect(try Self.residentKiB(of: path) == 0)
    // And the count sees the mapping: one page read through it is resident.
    #expect(mapped.bytes[mapped.length / 2] == mapped.bytes[mapped.length / 2])
    #expect(try Self.residentKiB(of: path) > 0)
  }

  /// This process's resident pages of its mappings of `path`, from /proc/self/smaps (read to
  /// its end: a single read of a /proc file stops at a page).
  static func residentKiB(of path: String) throws -> Int {
    var inMapping = false
    var total = 0
    let smaps = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps")).readToEnd() ?? Data()
    for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
        inMapping = fields.count >= 6 && fields[5...].joined(separator: " ") == path
      } else if inMapping, fields.first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
        total += kib
      }
    }
    return total
  }
}
