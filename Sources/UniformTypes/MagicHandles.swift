import CMagic
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One libmagic handle on the full database and, opened on first use, one on the cut database
/// and one on the guarded whole database (`MIMEMagicDatabase`). `@unchecked Sendable` because
/// the pointers move into a `MagicCookie`'s Mutex once and are only ever dereferenced (by
/// libmagic) inside that lock, one thread at a time.
struct MagicHandles: @unchecked Sendable {
  /// The handle on a database made from the full one (`CutMagicDatabase`).
  enum Cut {
    case unopened
    case open(OpaquePointer)
    /// None (not asked for, or it could not be built or loaded): the full one only.
    case unavailable
  }

  let full: OpaquePointer
  var cut: Cut
  var guarded: Cut

  /// `magic_close` on all three.
  func close() {
    magic_close(full)
    if case .open(let handle) = cut { magic_close(handle) }
    if case .open(let handle) = guarded { magic_close(handle) }
  }

  /// A new `MAGIC_MIME_TYPE` handle reading the compiled database at `address` in place
  /// (`magic_load_buffers`: the bytes must outlive it); nil when libmagic cannot open or load it.
  static func open(reading address: Int, length: Int) -> OpaquePointer? {
    guard let handle = magic_open(MAGIC_MIME_TYPE) else { return nil }
    var buffers: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(bitPattern: address)]
    var sizes: [Int] = [length]
    guard magic_load_buffers(handle, &buffers, &sizes, 1) == 0 else {
      magic_close(handle)
      return nil
    }
    return handle
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
    mutex = Mutex(MagicHandles(full: handle, cut: cut ? .unopened : .unavailable, guarded: cut ? .unopened : .unavailable))
  }
}

/// The cut database and the guarded whole database (`MIMEMagicDatabase.cut`, `.guarded`), built
/// once, together, on first use from the mapped full one and shared by every handle (libmagic
/// reads them in place: `magic_load_buffers`); freed with the sniffer, after the handles. Built
/// lazily so a daemon that never sniffs never holds them (about 4 and 8 MiB). With a
/// `CutMagicFile` they are read from that file when it holds them, else built and written there,
/// and read from the file's mapping: clean pages that `releasePages` can give back.
final class CutMagicDatabase: Sendable {
  private enum State {
    case unbuilt(source: MappedFile)
    /// Built in memory: the allocation (a header's room, then the cut and the guarded databases).
    case built(address: Int, length: Int)
    /// Mapped from its file.
    case mapped(MappedFile)
    case unavailable
  }

  private let state: Mutex<State>
  private let file: CutMagicFile?
  /// libmagic's `MAGIC_PARAM_REGEX_MAX`, which the guards' windows depend on.
  private let regexLimit: Int

  /// - Parameters:
  ///   - source: the mapped full database; nil when there is none to cut.
  ///   - file: where the cut database is kept between processes, if anywhere.
  ///   - regexLimit: libmagic's `MAGIC_PARAM_REGEX_MAX` on the handles that will read it.
  init(source: MappedFile?, file: CutMagicFile? = nil, regexLimit: Int = MIMEMagicDatabase.defaultRegexLimit) {
    state = Mutex(source.map { .unbuilt(source: $0) } ?? .unavailable)
    self.file = file
    self.regexLimit = regexLimit
  }

  deinit {
    state.withLock { state in
      switch state {
      case .built(let address, _): UnsafeMutableRawPointer(bitPattern: address)?.deallocate()
      case .mapped(let file): file.unmap()
      case .unbuilt, .unavailable: break
      }
    }
  }

  /// Which of the two databases.
  enum Part {
    /// What can print a MIME type, marked (`MIMEMagicDatabase.cut`).
    case cut
    /// All of it, guarded (`MIMEMagicDatabase.guarded`).
    case guarded
  }

  /// Opens the handle on `part` in `slot` (`MagicHandles.cut` or `.guarded`) if it is not open
  /// yet; the handle, or nil when only the full database is to be used. Caller holds the
  /// cookie's lock.
  func handle(_ part: Part, in slot: inout MagicHandles.Cut) -> OpaquePointer? {
    switch slot {
    case .open(let handle): return handle
    case .unavailable: return nil
    case .unopened: break
    }
    guard let payload = bytes(), let (cut, guarded) = Self.split(payload),
      let handle = MagicHandles.open(
        reading: part == .cut ? cut.address : guarded.address, length: part == .cut ? cut.length : guarded.length)
    else {
      slot = .unavailable
      return nil
    }
    slot = .open(handle)
    return handle
  }

  /// The two databases in a payload: the cut one's length is in its header.
  private static func split(
    _ payload: (address: Int, length: Int)
  ) -> (cut: (address: Int, length: Int), guarded: (address: Int, length: Int))? {
    guard let base = UnsafeRawPointer(bitPattern: payload.address),
      let cutLength = MIMEMagicDatabase.Layout(leading: UnsafeRawBufferPointer(start: base, count: payload.length))?.byteCount
    else { return nil }
    return ((payload.address, cutLength), (payload.address + cutLength, payload.length - cutLength))
  }

  /// Gives the pages of a cut database mapped from its file back to the system (they come back
  /// from the page cache on the next sniff); one built in memory cannot be. Any thread, at any
  /// time: the mapping is private, read-only and never written.
  func releasePages() {
    state.withLock { state in
      if case .mapped(let file) = state { file.release() }
    }
  }

  /// The two databases, one after the other, read from their file or built on the first call;
  /// nil when they cannot be.
  private func bytes() -> (address: Int, length: Int)? {
    state.withLock { state in
      switch state {
      case .built(let address, let length): return (address + CutMagicFile.headerSize, length - CutMagicFile.headerSize)
      case .mapped(let file): return CutMagicFile.payload(of: file)
      case .unavailable: return nil
      case .unbuilt(let source):
        if let mapped = file?.map() {
          state = .mapped(mapped)
          return CutMagicFile.payload(of: mapped)
        }
        guard let built = Self.build(from: source, regexLimit: regexLimit) else {
          state = .unavailable
          return nil
        }
        let whole = UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: built.address), count: built.length)
        if let file, file.store(whole), let mapped = file.map() {
          whole.deallocate()
          state = .mapped(mapped)
          return CutMagicFile.payload(of: mapped)
        }
        state = .built(address: built.address, length: built.length)
        return (built.address + CutMagicFile.headerSize, built.length - CutMagicFile.headerSize)
      }
    }
  }

  /// The cut and the guarded databases built in memory, one after the other, after a header's
  /// room (`CutMagicFile.headerSize`).
  private static func build(from source: MappedFile, regexLimit: Int) -> (address: Int, length: Int)? {
    // Building reads every page of the full database; give them back after (`MappedFile.release`).
    defer { source.release() }
    guard let cut = MIMEMagicDatabase.Plan(source.bytes, regexLimit: regexLimit),
      let guarded = MIMEMagicDatabase.Plan(source.bytes, cutting: false, regexLimit: regexLimit)
    else { return nil }
    // Aligned for libmagic, which reads the bytes as an array of `struct magic` (the header is
    // 64 bytes and an entry 376, so both databases after it stay aligned).
    let start = CutMagicFile.headerSize
    let length = start + cut.byteCount + guarded.byteCount
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 16)
    guard cut.write(into: UnsafeMutableRawBufferPointer(rebasing: output[start..<start + cut.byteCount])),
      guarded.write(into: UnsafeMutableRawBufferPointer(rebasing: output[(start + cut.byteCount)...])),
      let address = output.baseAddress
    else {
      output.deallocate()
      return nil
    }
    return (Int(bitPattern: address), length)
  }
}
