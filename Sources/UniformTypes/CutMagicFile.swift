import System

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The cut database (`MIMEMagicDatabase`) kept in a file, so that it is built once per system
/// database rather than once per process, and its pages are the page cache's: clean and
/// file-backed, given back after a large item (`CutMagicDatabase.releasePages`) and faulted
/// back in from the cache, where a copy built in memory was anonymous memory held for the
/// process's life; and a process that finds the file never reads the whole full database to
/// build it (7 MiB more at its peak).
///
/// The file is a 64-byte header, then the cut database in three parts (`MIMEMagicDatabase.Split`:
/// its ordinary and its named entries, and its rest, which a cut pass asks), the guarded whole
/// database (`MIMEMagicDatabase.guarded`, what a marked answer is asked of), and the whole database's
/// named entries and binary pieces (`MIMEMagicDatabase.BinaryChunks`, what a marked answer for
/// bytes that are not text is asked of), one after the other, as libmagic reads them. The header names
/// this format (`signature`: change it when the cut changes), the payload's length and
/// checksum, and the full database it was cut from (inode, size, modification time) with the
/// regex window of the libmagic it was cut for (its guards depend on it). A file that is not
/// whole, not this format, or cut from another full database or for another libmagic is
/// rebuilt and replaced (written to a temporary file, then renamed over it).
struct CutMagicFile: Sendable {
  static let headerSize = 64
  static let signature = Array("share-magic-cut7".utf8)

  /// The full database a cut came from, as `fstat` saw it, and libmagic's
  /// `MAGIC_PARAM_REGEX_MAX` it was cut for.
  struct Source: Equatable, Sendable {
    var inode: UInt64
    var size: UInt64
    var modified: Int64
    var regexLimit: UInt64 = UInt64(MIMEMagicDatabase.defaultRegexLimit)
  }

  let path: String
  let source: Source

  /// Maps the file; nil when there is none, or it is not a regular file (a symbolic link, a
  /// FIFO: never followed, never waited on), is larger than what is cut from `source` can be, is
  /// not whole, or was not cut from `source`. With the mapping, where each database is in the
  /// file. Both whether it is whole and where the databases are are read through the file, not
  /// the mapping: checking 20 MB through a mapping would make every page of it resident at once,
  /// at the daemon's first sniff, and on Linux 6.x reading one header would map a 2 MiB folio.
  func map() -> (file: MappedFile, databases: [Range<Int>])? {
    // The cut is smaller than the source; the guarded whole, a little larger; the cut's rest,
    // the named entries and binary pieces, smaller again.
    let limit = 3 * Int64(clamping: source.size) + Int64(Self.headerSize)
    var databases: [Range<Int>] = []
    let mapped = MappedFile.map(
      path, options: [.noFollow, .nonBlocking],
      accept: { status in status.kind == .regular && status.size > Self.headerSize && status.size <= limit },
      verify: { file, status in
        guard isWhole(file, length: Int(status.size)), let found = Self.databases(in: file, length: Int(status.size)) else {
          return false
        }
        databases = found
        return true
      })
    return mapped.map { ($0, databases) }
  }

  /// Where each database is in `file` (`length` bytes), their headers read through it.
  private static func databases(in file: FileDescriptor, length: Int) -> [Range<Int>]? {
    MIMEMagicDatabase.databases(length: length, from: headerSize) { offset in
      var words = [UInt8](repeating: 0, count: 16)
      let read = words.withUnsafeMutableBytes { (try? file.readAll(fromAbsoluteOffset: Int64(offset), into: $0)) == true }
      return read ? words : nil
    }
  }

  /// Whether `file`, `length` bytes long, holds a header that names its payload and `source`.
  private func isWhole(_ file: FileDescriptor, length: Int) -> Bool {
    var header = [UInt8](repeating: 0, count: Self.headerSize)
    guard header.withUnsafeMutableBytes({ (try? file.readAll(fromAbsoluteOffset: 0, into: $0)) == true }) else { return false }
    // All but the checksum first (bytes 24..<32), so that a stale file is not read whole.
    let recorded = UInt64(littleEndian: header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 24, as: UInt64.self) })
    guard header == self.header(length: length - Self.headerSize, checksum: recorded),
      let checksum = Self.checksum(of: file, payloadLength: length - Self.headerSize)
    else { return false }
    return checksum == recorded
  }

  /// Free space a cache file never takes: the default of the receiver's reserve (`reserve_bytes`),
  /// so that a nearly full disk is not filled by a cache the receiver can do without.
  static let keepsFree: Int64 = 64 << 20

  /// Writes `whole` (a header's room, then the databases) to the file, the header filled in
  /// here; false when it cannot (a read-only folder, or less free space than it and
  /// `keepingFree`: the caller keeps its copy in memory).
  func store(_ whole: UnsafeMutableRawBufferPointer, keepingFree: Int64 = Self.keepsFree) -> Bool {
    let payload = UnsafeRawBufferPointer(rebasing: whole[Self.headerSize...])
    let header = header(for: payload)
    for (index, byte) in header.enumerated() { whole[index] = byte }
    let folder = FileSystem.parentDirectory(of: path)
    do {
      try FileSystem.makeDirectories(folder, permissions: .ownerReadWriteExecute)
      guard try FileSystem.availableBytes(at: folder) >= Int64(whole.count) + keepingFree else { return false }
      // Written 64 KiB at a time, so that a reader that maps it is given the pages it reads,
      // not the 2 MiB folios one large write leaves in the page cache.
      try writeDurably(UnsafeRawBufferPointer(whole), to: path, chunk: 64 << 10)
      return true
    } catch {
      return false
    }
  }

  /// The header for `payload`, cut from `source`.
  func header(for payload: UnsafeRawBufferPointer) -> [UInt8] {
    header(length: payload.count, checksum: Self.checksum(payload))
  }

  /// The header for a payload of `length` bytes with `checksum`, cut from `source`.
  func header(length: Int, checksum: UInt64) -> [UInt8] {
    var header = Self.signature
    for word in [UInt64(length), checksum, source.inode, source.size, UInt64(bitPattern: source.modified), source.regexLimit] {
      withUnsafeBytes(of: word.littleEndian) { header.append(contentsOf: $0) }
    }
    return header
  }

  /// FNV-1a over 64-bit words (the tail byte by byte): it finds a truncated or damaged file,
  /// not a forged one (whoever can write the file can already act as its owner).
  struct Checksum {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0100_0000_01b3

    /// Adds `bytes`: whole words, and the tail byte by byte when they are the `last`; bytes
    /// that are not the last must be whole words.
    mutating func add(_ bytes: UnsafeRawBufferPointer, last: Bool) {
      precondition(last || bytes.count % 8 == 0)
      let words = bytes.count / 8
      for index in 0..<words {
        value = (value ^ bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* Self.prime
      }
      for byte in bytes[(words * 8)...] { value = (value ^ UInt64(byte)) &* Self.prime }
    }
  }

  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var checksum = Checksum()
    checksum.add(bytes, last: true)
    return checksum.value
  }

  /// The checksum of the `payloadLength` bytes after `file`'s header, read in 256 KiB pieces;
  /// nil when they cannot all be read.
  static func checksum(of file: FileDescriptor, payloadLength: Int) -> UInt64? {
    let piece = 256 * 1024
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: piece, alignment: 8)
    defer { buffer.deallocate() }
    var checksum = Checksum()
    var offset = 0
    while offset < payloadLength {
      let count = min(piece, payloadLength - offset)
      let part = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
      guard (try? file.readAll(fromAbsoluteOffset: Int64(headerSize + offset), into: part)) == true else { return nil }
      checksum.add(UnsafeRawBufferPointer(part), last: offset + count == payloadLength)
      offset += count
    }
    return checksum.value
  }
}
