import CMagic
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One libmagic handle on the full database and, opened on first use, one on the cut database,
/// one on the guarded whole database and one on each of its binary pieces (`MIMEMagicDatabase`).
/// `@unchecked Sendable` because the pointers move into a `MagicCookie`'s Mutex once and are
/// only ever dereferenced (by
/// libmagic) inside that lock, one thread at a time.
struct MagicHandles: @unchecked Sendable {
  /// The handle on a database made from the full one (`CutMagicDatabase`).
  enum Cut {
    case unopened
    case open(OpaquePointer)
    /// None (not asked for, or it could not be built or loaded): the full one only.
    case unavailable
  }

  /// The handles on the whole database's binary pieces (`MIMEMagicDatabase.BinaryChunks`).
  enum Pieces {
    case unopened
    case open([OpaquePointer])
    case unavailable
  }

  /// The handle on the cut database's rest (`MIMEMagicDatabase.Split`) and the first tests
  /// that decide when it may be asked instead of the cut one.
  enum Rest {
    case unopened
    case open(OpaquePointer, MIMEMagicDatabase.FirstTests)
    case unavailable
  }

  let full: OpaquePointer
  var cut: Cut
  var rest: Rest
  /// Where the cut without some of its groups is written for a head (`CutMagicDatabase.withCut`),
  /// kept for the next one.
  var scratch: UnsafeMutableRawBufferPointer? = nil
  /// Handles on the cut with some groups put back, kept for heads without a NUL byte (text) that
  /// put back the same groups (`CutMagicDatabase.withCut`).
  var putBack = PutBack()
  var guarded: Cut
  var pieces: Pieces

  /// `magic_close` on all of them.
  func close() {
    magic_close(full)
    if case .open(let handle) = cut { magic_close(handle) }
    if case .open(let handle, _) = rest { magic_close(handle) }
    scratch?.deallocate()
    putBack.close()
    if case .open(let handle) = guarded { magic_close(handle) }
    if case .open(let handles) = pieces { handles.forEach { magic_close($0) } }
  }

  /// A new `MAGIC_MIME_TYPE` handle reading the compiled database at `address` in place
  /// (`magic_load_buffers`: the bytes must outlive it); nil when libmagic cannot open or load it.
  static func open(reading address: Int, length: Int) -> OpaquePointer? {
    open(reading: [(address, length)])
  }

  /// A handle reading several compiled databases, as `open(reading:length:)`.
  static func open(reading databases: [(address: Int, length: Int)]) -> OpaquePointer? {
    guard let handle = magic_open(MAGIC_MIME_TYPE) else { return nil }
    var buffers: [UnsafeMutableRawPointer?] = databases.map { UnsafeMutableRawPointer(bitPattern: $0.address) }
    var sizes: [Int] = databases.map(\.length)
    guard magic_load_buffers(handle, &buffers, &sizes, databases.count) == 0 else {
      magic_close(handle)
      return nil
    }
    return handle
  }

  /// libmagic's `MAGIC_PARAM_ENCODING_MAX` on `handle`: the most bytes its text-encoding check
  /// reads.
  static func encodingLimit(of handle: OpaquePointer) -> Int {
    var value = 0
    guard magic_getparam(handle, MAGIC_PARAM_ENCODING_MAX, &value) == 0, value > 0 else { return 65_536 }
    return value
  }

  /// libmagic's `MAGIC_PARAM_REGEX_MAX` on `handle`: the most bytes a `regex` line is tried over.
  static func regexLimit(of handle: OpaquePointer) -> Int {
    var value = 0
    guard magic_getparam(handle, MAGIC_PARAM_REGEX_MAX, &value) == 0, value > 0 else {
      return MIMEMagicDatabase.defaultRegexLimit
    }
    return value
  }
}

/// One pair of handles and its lock.
final class MagicCookie: Sendable {
  let mutex: Mutex<MagicHandles>
  init(_ handle: OpaquePointer, cut: Bool) {
    mutex = Mutex(
      MagicHandles(
        full: handle, cut: cut ? .unopened : .unavailable, rest: cut ? .unopened : .unavailable, guarded: cut ? .unopened : .unavailable,
        pieces: cut ? .unopened : .unavailable))
  }
}

/// The last few handles on the cut with some of its groups put back (`CutMagicDatabase.withCut`),
/// each with the database it reads, the most recently used last. Heads of text of one kind put
/// back the same groups (`#` comments, XML, C); a handle kept keeps what libmagic compiled for
/// it — every regex it reached, which glibc compiles anew for each new handle — and its database
/// is not written and loaded again (on 300 real files, 1,679 M instructions → 1,553 M). Binary
/// heads (a NUL byte: random bytes almost always) seldom put back the same groups twice: their
/// handles are not kept.
struct PutBack: @unchecked Sendable {
  struct Kept {
    var candidates: [Int]
    var handle: OpaquePointer
    var database: UnsafeMutableRawBufferPointer
  }

  /// Per sniffer handle. A kept handle holds about 1 MiB (its database, the cut's rest and the
  /// groups put back, about 250 KiB; the rest glibc's compiled regexes): two took the receiver's
  /// peak on 3,000 real files from 66–68 to 71–72 MiB and its instructions 7.5% down, four to
  /// 74 MiB and 9% down.
  static let capacity = 2
  private(set) var kept: [Kept] = []

  /// The handle kept for `candidates`, now the most recently used; nil when there is none.
  mutating func handle(for candidates: [Int]) -> OpaquePointer? {
    guard let index = kept.firstIndex(where: { $0.candidates == candidates }) else { return nil }
    let found = kept.remove(at: index)
    kept.append(found)
    return found.handle
  }

  /// Keeps `handle`, which reads `database`, for `candidates`, closing the least recently used
  /// one when `capacity` are kept.
  mutating func keep(_ handle: OpaquePointer, reading database: UnsafeMutableRawBufferPointer, for candidates: [Int]) {
    if kept.count == Self.capacity { Self.close(kept.removeFirst()) }
    kept.append(Kept(candidates: candidates, handle: handle, database: database))
  }

  func close() { kept.forEach(Self.close) }

  private static func close(_ kept: Kept) {
    magic_close(kept.handle)
    kept.database.deallocate()
  }
}
