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
/// The file is a 64-byte header, then the cut database and the guarded whole database
/// (`MIMEMagicDatabase.guarded`, what a marked answer is asked of), one after the other, as
/// libmagic reads them. The header names
/// this format (`signature`: change it when the cut changes), the payload's length and
/// checksum, and the full database it was cut from (inode, size, modification time) with the
/// regex window of the libmagic it was cut for (its guards depend on it). A file that is not
/// whole, not this format, or cut from another full database or for another libmagic is
/// rebuilt and replaced (written to a temporary file, then renamed over it).
struct CutMagicFile: Sendable {
  static let headerSize = 64
  static let signature = Array("share-magic-cut5".utf8)

  /// The full database a cut came from, as `fstat` saw it, and libmagic's
  /// `MAGIC_PARAM_REGEX_MAX` it was cut for.
  struct Source: Equatable, Sendable {
    var inode: UInt64
    var size: UInt64
    var modified: Int64
    var regexLimit: UInt64 = UInt64(MIMEMagicDatabase.defaultRegexLimit)
  }

  /// The databases in a mapping of the whole file (after its header).
  static func payload(of file: MappedFile) -> (address: Int, length: Int) {
    (file.address + headerSize, file.length - headerSize)
  }

  let path: String
  let source: Source

  /// Maps the file; nil when there is none, or it is not a regular file (a symbolic link, a
  /// FIFO: never followed, never waited on), is larger than what is cut from `source` can be, is not
  /// whole, or was not cut from `source`.
  func map() -> MappedFile? {
    // The cut is smaller than the source; the guarded whole, a little larger.
    let limit = 2 * Int64(clamping: source.size) + Int64(Self.headerSize)
    guard
      let file = MappedFile.map(
        path, options: [.noFollow, .nonBlocking],
        accept: { status in
          status.kind == .regular && status.size > Self.headerSize && status.size <= limit
        })
    else { return nil }
    let payload = UnsafeRawBufferPointer(rebasing: file.bytes[Self.headerSize...])
    guard Array(file.bytes[0..<Self.headerSize]) == header(for: payload) else {
      file.unmap()
      return nil
    }
    return file
  }

  /// Writes `whole` (a header's room, then the databases) to the file, the header filled in
  /// here; false when it cannot (a read-only folder: the caller keeps its copy in memory).
  func store(_ whole: UnsafeMutableRawBufferPointer) -> Bool {
    let payload = UnsafeRawBufferPointer(rebasing: whole[Self.headerSize...])
    let header = header(for: payload)
    for (index, byte) in header.enumerated() { whole[index] = byte }
    let folder = FileSystem.parentDirectory(of: path)
    do {
      try FileSystem.makeDirectories(folder, permissions: .ownerReadWriteExecute)
      try writeDurably(UnsafeRawBufferPointer(whole), to: path)
      return true
    } catch {
      return false
    }
  }

  /// The header for `payload`, cut from `source`.
  func header(for payload: UnsafeRawBufferPointer) -> [UInt8] {
    var header = Self.signature
    for word in [
      UInt64(payload.count), Self.checksum(payload), source.inode, source.size, UInt64(bitPattern: source.modified), source.regexLimit,
    ] {
      withUnsafeBytes(of: word.littleEndian) { header.append(contentsOf: $0) }
    }
    return header
  }

  /// FNV-1a over 64-bit words (the tail byte by byte): it finds a truncated or damaged file,
  /// not a forged one (whoever can write the file can already act as its owner).
  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    let prime: UInt64 = 0x0100_0000_01b3
    let words = bytes.count / 8
    for index in 0..<words {
      hash = (hash ^ bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* prime
    }
    for byte in bytes[(words * 8)...] { hash = (hash ^ UInt64(byte)) &* prime }
    return hash
  }
}
