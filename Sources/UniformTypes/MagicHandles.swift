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
  var guarded: Cut
  var pieces: Pieces

  /// `magic_close` on all of them.
  func close() {
    magic_close(full)
    if case .open(let handle) = cut { magic_close(handle) }
    if case .open(let handle, _) = rest { magic_close(handle) }
    scratch?.deallocate()
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
