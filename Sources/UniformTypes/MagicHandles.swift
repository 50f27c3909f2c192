import CMagic
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One libmagic handle on the full database and, opened on first use, one on the cut database
/// (`MIMEMagicDatabase`). `@unchecked Sendable` because the pointers move into a `MagicCookie`'s
/// Mutex once and are only ever dereferenced (by libmagic) inside that lock, one thread at a time.
struct MagicHandles: @unchecked Sendable {
  /// The handle on the cut database.
  enum Cut {
    case unopened
    case open(OpaquePointer)
    /// No cut database (not asked for, or it could not be built or loaded): the full one only.
    case unavailable
  }

  let full: OpaquePointer
  var cut: Cut

  /// `magic_close` on both.
  func close() {
    magic_close(full)
    if case .open(let handle) = cut { magic_close(handle) }
  }
}

/// One pair of handles and its lock.
final class MagicCookie: Sendable {
  let mutex: Mutex<MagicHandles>
  init(_ handle: OpaquePointer, cut: Bool) { mutex = Mutex(MagicHandles(full: handle, cut: cut ? .unopened : .unavailable)) }
}

/// The cut database, built once on first use from the mapped full one and shared by every handle
/// (libmagic reads it in place: `magic_load_buffers`); freed with the sniffer, after the handles.
/// Built lazily so a daemon that never sniffs never holds it (about 4 MiB).
final class CutMagicDatabase: Sendable {
  private enum State {
    case unbuilt(source: Mapping)
    case built(address: Int, length: Int)
    case unavailable
  }

  /// A mapped full database's address and length (read-only, `MAP_PRIVATE`, never written).
  struct Mapping: Sendable {
    let address: Int
    let length: Int
  }

  private let state: Mutex<State>

  /// - Parameter source: the mapped full database; nil when there is none to cut.
  init(source: (address: Int, length: Int)?) {
    state = Mutex(source.map { .unbuilt(source: Mapping(address: $0.address, length: $0.length)) } ?? .unavailable)
  }

  deinit {
    state.withLock { state in
      if case .built(let address, _) = state { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }
    }
  }

  /// Opens `handles`' handle on the cut database if it is not open yet; the handle, or nil when
  /// only the full database is to be used. Caller holds the cookie's lock.
  func handle(for handles: inout MagicHandles) -> OpaquePointer? {
    switch handles.cut {
    case .open(let handle): return handle
    case .unavailable: return nil
    case .unopened: break
    }
    guard let bytes = bytes(), let handle = magic_open(MAGIC_MIME_TYPE) else {
      handles.cut = .unavailable
      return nil
    }
    var buffers: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(bitPattern: bytes.address)]
    var sizes: [Int] = [bytes.length]
    guard magic_load_buffers(handle, &buffers, &sizes, 1) == 0 else {
      magic_close(handle)
      handles.cut = .unavailable
      return nil
    }
    handles.cut = .open(handle)
    return handle
  }

  /// The cut database, built on the first call; nil when it cannot be.
  private func bytes() -> (address: Int, length: Int)? {
    state.withLock { state in
      switch state {
      case .built(let address, let length): return (address, length)
      case .unavailable: return nil
      case .unbuilt(let source):
        guard let built = Self.build(from: source) else {
          state = .unavailable
          return nil
        }
        state = .built(address: built.address, length: built.length)
        return built
      }
    }
  }

  private static func build(from source: Mapping) -> (address: Int, length: Int)? {
    let database = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: source.address), count: source.length)
    defer {
      // Building read every page of the full database; give them back. Safe while another handle
      // reads the mapping: it is private, read-only and never written, so a dropped page faults
      // back in from the page cache with the same bytes.
      _ = madvise(UnsafeMutableRawPointer(bitPattern: source.address), source.length, MADV_DONTNEED)
    }
    guard let plan = MIMEMagicDatabase.Plan(database) else { return nil }
    // Aligned for libmagic, which reads the bytes as an array of `struct magic`.
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: plan.byteCount, alignment: 16)
    guard plan.write(into: output), let address = output.baseAddress else {
      output.deallocate()
      return nil
    }
    return (Int(bitPattern: address), plan.byteCount)
  }
}
