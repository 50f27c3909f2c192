import System

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A whole file mapped read-only and private (`MAP_PRIVATE`, never written): libmagic's
/// compiled database and the cut one kept in a file. Its pages can be given back at any time
/// (`release`): they fault back in from the page cache with the same bytes. A value: whoever
/// maps it calls `unmap` once, after the last reader.
struct MappedFile: Sendable {
  let address: Int
  let length: Int
  /// What `fstat` said of the file when it was mapped.
  let status: FileStatus

  /// Maps `path` whole; nil when it cannot be opened (with `options`), is empty, or `accept`
  /// turns its status down, or `verify` (reading the open file, before it is mapped) its bytes.
  static func map(
    _ path: String, options: FileDescriptor.OpenOptions = [], accept: (FileStatus) -> Bool = { _ in true },
    verify: (FileDescriptor, FileStatus) -> Bool = { _, _ in true }
  ) -> MappedFile? {
    guard let file = try? FileDescriptor.open(path, .readOnly, options: options) else { return nil }
    return file.closeAfter { () -> MappedFile? in
      guard let status = try? file.status(), status.size > 0, accept(status), verify(file, status) else { return nil }
      return map(file, from: 0, length: Int(status.size), status: status)
    }
  }

  /// `length` bytes of `file` from `offset` (a multiple of `pageSize`), read-only and private.
  private static func map(_ file: FileDescriptor, from offset: Int, length: Int, status: FileStatus) -> MappedFile? {
    guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, file.rawValue, off_t(offset)), base != MAP_FAILED else { return nil }
    return MappedFile(address: Int(bitPattern: base), length: length, status: status)
  }

  /// The size of a memory page.
  static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

  var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: length) }

  /// Gives the pages back to the system (`MADV_DONTNEED`); safe while another thread reads them.
  func release() {
    _ = madvise(UnsafeMutableRawPointer(bitPattern: address), length, MADV_DONTNEED)
  }

  /// Maps each of `spans` (byte ranges of the file at `path`) on its own, from the page it
  /// starts in, when the file is still the one `status` describes (inode, size, modification
  /// time): the mappings and where each span starts in its own. Each one's pages can be given
  /// back alone: within one mapping, the kernel maps a large page-cache folio as far as it goes
  /// when a page of it is read (Linux 6.x), pages given back around it included. Nil when the
  /// file cannot be opened, is another, or a span cannot be mapped.
  static func mapEach(_ path: String, _ spans: [Range<Int>], expecting status: FileStatus) -> [(mapping: MappedFile, start: Int)]? {
    guard let file = try? FileDescriptor.open(path, .readOnly, options: [.noFollow, .nonBlocking]) else { return nil }
    return file.closeAfter { () -> [(mapping: MappedFile, start: Int)]? in
      guard let now = try? file.status(), now.inode == status.inode, now.size == status.size,
        now.modificationNanoseconds == status.modificationNanoseconds
      else { return nil }
      var made: [(mapping: MappedFile, start: Int)] = []
      for span in spans {
        let offset = span.lowerBound / pageSize * pageSize
        guard span.upperBound <= Int(now.size), span.lowerBound < span.upperBound,
          let mapping = map(file, from: offset, length: span.upperBound - offset, status: now)
        else {
          made.forEach { $0.mapping.unmap() }
          return nil
        }
        made.append((mapping, mapping.address + span.lowerBound - offset))
      }
      return made
    }
  }

  func unmap() {
    munmap(UnsafeMutableRawPointer(bitPattern: address), length)
  }
}
