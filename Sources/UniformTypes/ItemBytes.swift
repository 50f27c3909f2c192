import System

/// All of a complete item's bytes, read where a check needs them: a ZIP's central directory at
/// its end, an OLE2 file's FAT and directory wherever their sectors lie. A head that is the whole
/// item is read from memory; a larger item from its file with pread(2), a piece at a time, so
/// checking a 2 GiB package costs its directory's bytes, not its size.
///
/// Thread-confined: one check reads it. A read that fails is remembered (`failure`), and every
/// read after it returns nil, so a check stops as if the item ended there; the caller then
/// refuses the item as unreadable rather than take the check's answer.
package final class ItemBytes {
  /// The item's size.
  package let count: Int
  private let source: Source
  /// The first read of the file that failed.
  package private(set) var failure: FileReadError?

  private enum Source {
    /// A buffer that outlives the checks (a head that is the whole item).
    case memory(UnsafeRawBufferPointer)
    case file(FileDescriptor, path: String)
  }

  /// The bytes of `buffer`, which must stay valid while this is read.
  init(_ buffer: UnsafeRawBufferPointer) {
    count = buffer.count
    source = .memory(buffer)
  }

  private init(file: FileDescriptor, path: String, count: Int) {
    self.count = count
    source = .file(file, path: path)
  }

  /// Reads the regular file at `path` (opened anew, closed after `body`). When it cannot be
  /// opened, or is not a regular file, `body` gets bytes whose `failure` says so and that read
  /// nothing. Any thread.
  package static func reading<Value>(path: String, _ body: (ItemBytes) -> Value) -> Value {
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(path, .readOnly, options: .nonBlocking)
    } catch {
      return body(ItemBytes(failure: FileReadError(path: path, function: "open", errno: error)))
    }
    defer { try? file.close() }
    do {
      let status = try file.status()
      guard status.kind == .regular else { return body(ItemBytes(failure: FileReadError(path: path, function: "type", errno: nil))) }
      return body(ItemBytes(file: file, path: path, count: Int(status.size)))
    } catch {
      return body(ItemBytes(failure: FileReadError(path: path, function: "fstat", errno: error)))
    }
  }

  private convenience init(failure: FileReadError) {
    self.init(UnsafeRawBufferPointer(start: nil, count: 0))
    self.failure = failure
  }

  /// The bytes in `range`, cut at the item's end; nil when none of it lies in the item, or a
  /// read failed (now or before). Reads of more than `maximumRead` are cut to it.
  func read(_ range: Range<Int>) -> [UInt8]? {
    guard failure == nil, range.lowerBound >= 0, range.lowerBound < count else { return nil }
    let wanted = min(range.upperBound, count, range.lowerBound + ItemBytes.maximumRead) - range.lowerBound
    guard wanted > 0 else { return nil }
    switch source {
    case .memory(let buffer):
      return Array(buffer[range.lowerBound..<(range.lowerBound + wanted)])
    case .file(let file, let path):
      var failed: Errno? = nil
      let bytes = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
        do throws(Errno) {
          // A file that shrank under the check reads short: what was there is what it holds.
          var filled = 0
          while filled < wanted {
            let got = try file.read(
              fromAbsoluteOffset: Int64(range.lowerBound + filled),
              into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[filled..<wanted])))
            if got == 0 { break }
            filled += got
          }
          initialized = filled
        } catch {
          failed = error
          initialized = 0
        }
      }
      if let failed {
        failure = FileReadError(path: path, function: "pread", errno: failed)
        return nil
      }
      return bytes.isEmpty ? nil : bytes
    }
  }

  /// The most one read returns (a package part read whole, `ContentClassifier.packagePartLimit`).
  static let maximumRead = 8 << 20
}
