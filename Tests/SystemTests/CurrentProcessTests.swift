import Foundation
import Glibc
import System
import Testing

/// Serialized: each test maps a file named like a library and unmaps it when done, while a
/// trim trims every library mapping it finds; run side by side, one test's trim could give back
/// the pages at an address another test has just unmapped and something else taken — the race
/// `trimFilePages` avoids in a daemon by trimming only mappings that stay.
@Suite(.serialized) struct CurrentProcessTests {
  /// A file of `pages` pages, each filled with its own index, mapped with `protection`; named
  /// like a shared library unless `library` is false.
  private static func mapFile(
    pages: Int, protection: Int32, in folder: TemporaryDirectory, library: Bool = true
  ) throws -> UnsafeMutableRawPointer {
    let pageSize = Int(getpagesize())
    let size = pages * pageSize
    let bytes = (0..<size).map { UInt8($0 / pageSize) }
    let path = folder.path + (library ? "/libmapped.so.1" : "/mapped.data")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw TestFailure("open: \(Errno.current)") }
    defer { close(descriptor) }
    guard let address = mmap(nil, size, protection, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
      throw TestFailure("mmap: \(Errno.current)")
    }
    return address
  }

  /// A file of /proc, read to its end (its size says 0).
  private static func read(_ path: String) throws -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { throw TestFailure("cannot open \(path)") }
    defer { try? handle.close() }
    return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
  }

  /// The resident and anonymous KiB of the mapping that starts at `address`, from /proc/self/smaps.
  private static func residency(of address: UnsafeMutableRawPointer) throws -> (rss: Int, anonymous: Int) {
    let smaps = try Self.read("/proc/self/smaps")
    let start = String(UInt(bitPattern: address), radix: 16) + "-"
    var inside = false
    var rss: Int? = nil
    for line in smaps.split(separator: "\n") {
      if line.first?.isHexDigit == true, line.contains("-"), line.split(separator: " ").count >= 5 {
        inside = line.hasPrefix(start)
        continue
      }
      guard inside else { continue }
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      if fields.first == "Rss:" { rss = Int(fields[1]) }
      if fields.first == "Anonymous:", let rss, let anonymous = Int(fields[1]) { return (rss, anonymous) }
    }
    throw TestFailure("no mapping at \(start) in /proc/self/smaps")
  }

  @Test func trimmingGivesBackReadOnlyFilePagesWhichComeBackUnchanged() throws {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let pages = 64
    let address = try Self.mapFile(pages: pages, protection: PROT_READ, in: folder)
    defer { munmap(address, pages * Int(getpagesize())) }
    var sum = 0
    for page in 0..<pages { sum += Int(address.load(fromByteOffset: page * Int(getpagesize()), as: UInt8.self)) }
    #expect(sum == (0..<pages).reduce(0, +))
    let before = try Self.residency(of: address)
    #expect(before.rss >= pages * Int(getpagesize()) / 1024)

    #expect(CurrentProcess.trimFilePages() > 0)

    #expect(try Self.residency(of: address).rss == 0)
    for page in 0..<pages {
      #expect(address.load(fromByteOffset: page * Int(getpagesize()) + 7, as: UInt8.self) == UInt8(page))
    }
  }

  @Test func aMappingHoldingPrivateCopiesIsLeftAlone() throws {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let pages = 4
    let address = try Self.mapFile(pages: pages, protection: PROT_READ | PROT_WRITE, in: folder)
    defer { munmap(address, pages * Int(getpagesize())) }
    // A written page of a private file mapping is a private copy; read-only afterwards, like
    // relocated data after RELRO. Giving it back would bring back the file's bytes.
    address.storeBytes(of: 0xAB, toByteOffset: Int(getpagesize()) + 1, as: UInt8.self)
    #expect(mprotect(address, pages * Int(getpagesize()), PROT_READ) == 0)
    #expect(try Self.residency(of: address).anonymous > 0)

    CurrentProcess.trimFilePages()

    #expect(address.load(fromByteOffset: Int(getpagesize()) + 1, as: UInt8.self) == 0xAB)
    #expect(try Self.residency(of: address).anonymous > 0)
  }

  @Test func aMappingOfAnyOtherFileIsLeftAlone() throws {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let pages = 16
    let address = try Self.mapFile(pages: pages, protection: PROT_READ, in: folder, library: false)
    defer { munmap(address, pages * Int(getpagesize())) }
    for page in 0..<pages { _ = address.load(fromByteOffset: page * Int(getpagesize()), as: UInt8.self) }
    let before = try Self.residency(of: address).rss

    CurrentProcess.trimFilePages()

    #expect(before > 0)
    #expect(try Self.residency(of: address).rss == before)
  }
}
