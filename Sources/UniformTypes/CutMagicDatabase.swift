import CMagic
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The cut database, the guarded whole database and the whole one's binary pieces with its
/// named entries (`MIMEMagicDatabase.cut`, `.guarded`, `.BinaryChunks`), built once, together,
/// on first use from the mapped full one and shared by every handle (libmagic reads them in
/// place: `magic_load_buffers`); freed with the sniffer, after the handles. Built lazily so a
/// daemon that never sniffs never holds them (about 4, 8 and 8 MiB). With a `CutMagicFile` they
/// are read from that file when it holds them, else built and written there, and read from the
/// file's mapping: clean pages that `releasePages` can give back (and `releasePiece`, a piece's
/// alone, from a mapping of its own).
final class CutMagicDatabase: Sendable {
  private enum State {
    case unbuilt(source: MappedFile)
    /// Built in memory: the allocation (a header's room, then the databases).
    case built(address: Int, length: Int, Parts)
    /// Mapped from its file; where each database is, read through the file (`CutMagicFile.map`).
    case mapped(MappedFile, Parts)
    case unavailable
  }

  private let state: Mutex<State>
  /// The named entries' and the binary pieces' own mappings, in that order (`MappedFile.mapEach`),
  /// made when the pieces are first opened from the file: each piece's pages are given back
  /// before the next is read.
  private let ownMappings = Mutex<[(mapping: MappedFile, start: Int)]>([])
  /// The cut's first tests (`firstTests`), once read.
  private let tests = Mutex<MIMEMagicDatabase.FirstTests?>(nil)
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
      case .built(let address, _, _): UnsafeMutableRawPointer(bitPattern: address)?.deallocate()
      case .mapped(let file, _): file.unmap()
      case .unbuilt, .unavailable: break
      }
    }
    ownMappings.withLock { $0.forEach { $0.mapping.unmap() } }
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
    guard let parts = parts(), let handle = MagicHandles.open(reading: part == .cut ? parts.cut : [parts.guarded])
    else {
      slot = .unavailable
      return nil
    }
    slot = .open(handle)
    return handle
  }

  /// Opens the handle on the cut database's rest (with the cut's named entries) in `slot`, with
  /// the first tests that say when it may answer for the cut one (`MIMEMagicDatabase.Split`), if
  /// it is not open yet; nil when there is none (the databases could not be built). The tests
  /// are read once per sniffer; from a file, their pages are then given back. A rest that does
  /// not hold the entries the tests leave (a file from another version of the rules) is not
  /// used. Caller holds the cookie's lock.
  func restHandle(in slot: inout MagicHandles.Rest) -> (OpaquePointer, MIMEMagicDatabase.FirstTests)? {
    switch slot {
    case .open(let handle, let tests): return (handle, tests)
    case .unavailable: return nil
    case .unopened: break
    }
    guard let parts = parts(), let tests = firstTests(parts),
      MIMEMagicDatabase.Layout(Self.bytes(parts.rest))?.ordinary == tests.restCount,
      let handle = MagicHandles.open(reading: [parts.rest, parts.cut[1]])
    else {
      slot = .unavailable
      return nil
    }
    slot = .open(handle, tests)
    return (handle, tests)
  }

  /// The first tests, read from the cut's ordinary entries at the first call (from a file,
  /// their pages are then given back: a cut pass reads the rest and a few groups) and shared by
  /// every handle; nil when they cannot be read.
  private func firstTests(_ parts: Parts) -> MIMEMagicDatabase.FirstTests? {
    tests.withLock { tests in
      if let tests { return tests }
      tests = MIMEMagicDatabase.FirstTests(cutOrdinary: Self.bytes(parts.cut[0]))
      if isMapped { Self.giveBack(from: parts.cut[0].address, to: parts.cut[0].address + parts.cut[0].length) }
      return tests
    }
  }

  /// Runs `body` with a handle on the cut without the tested groups other than `candidates`
  /// (`MIMEMagicDatabase.FirstTests.database(with:cut:rest:into:)`): with `keeping`, one kept in
  /// `kept` for the same groups, or a new one that is then kept there; without, one written into
  /// `scratch` (kept by the caller for the next time, grown as needed) and closed after. Nil
  /// when there are no databases or libmagic cannot read it. Caller holds the cookie's lock.
  func withCut<Value>(
    puttingBack candidates: [Int], of tests: MIMEMagicDatabase.FirstTests, in handles: inout MagicHandles, keeping: Bool,
    _ body: (OpaquePointer) -> Value
  ) -> Value? {
    if keeping, let handle = handles.putBack.handle(for: candidates) { return body(handle) }
    guard let parts = parts() else { return nil }
    let length = tests.byteCount(with: candidates)
    let output: UnsafeMutableRawBufferPointer
    if keeping {
      output = .allocate(byteCount: length, alignment: 16)
    } else {
      if (handles.scratch?.count ?? 0) < length {
        handles.scratch?.deallocate()
        handles.scratch = .allocate(byteCount: length, alignment: 16)
      }
      guard let scratch = handles.scratch else { return nil }
      output = scratch
    }
    tests.database(with: candidates, cut: Self.bytes(parts.cut[0]), rest: Self.bytes(parts.rest), into: output)
    guard let address = output.baseAddress,
      let handle = MagicHandles.open(reading: [(Int(bitPattern: address), length), parts.cut[1]])
    else {
      if keeping { output.deallocate() }
      return nil
    }
    defer { if !keeping { magic_close(handle) } }
    if keeping { handles.putBack.keep(handle, reading: output, for: candidates) }
    return body(handle)
  }

  private static func bytes(_ span: Span) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: span.address), count: span.length)
  }

  /// Opens the handles on the whole database's binary pieces in `slot` if they are not open
  /// yet, each reading its piece and the named entries; the handles, in order, or nil when
  /// there are none. Caller holds the cookie's lock.
  func pieceHandles(in slot: inout MagicHandles.Pieces) -> [OpaquePointer]? {
    switch slot {
    case .open(let handles): return handles
    case .unavailable: return nil
    case .unopened: break
    }
    var handles: [OpaquePointer] = []
    if let parts = parts(), !parts.pieces.isEmpty {
      let (names, pieces) = mapOnTheirOwn(parts) ?? (parts.names, parts.pieces)
      for piece in pieces {
        guard let handle = MagicHandles.open(reading: [piece, names]) else { break }
        handles.append(handle)
      }
      if handles.count == pieces.count {
        slot = .open(handles)
        return handles
      }
    }
    handles.forEach { magic_close($0) }
    slot = .unavailable
    return nil
  }

  typealias Span = (address: Int, length: Int)

  /// The databases of a payload, one after the other: the cut's parts (`MIMEMagicDatabase.Split`:
  /// its ordinary entries, its named entries, its rest), the guarded whole, the whole's named
  /// entries and its binary pieces.
  struct Parts {
    /// The cut: its ordinary entries, then its named ones, read together.
    var cut: [Span]
    /// Read with the cut's named entries.
    var rest: Span
    var guarded: Span
    var names: Span
    var pieces: [Span]

    /// How many databases come before the guarded whole.
    static let cutParts = MIMEMagicDatabase.Split.Part.allCases.count

    /// `databases` (byte ranges) of a payload at `address`; nil when they are too few.
    init?(_ databases: [Range<Int>], at address: Int) {
      let spans = databases.map { (address: address + $0.lowerBound, length: $0.count) }
      guard spans.count >= Self.cutParts + 2 else { return nil }
      typealias Part = MIMEMagicDatabase.Split.Part
      cut = [spans[Part.cutOrdinary.rawValue], spans[Part.cutNamed.rawValue]]
      rest = spans[Part.rest.rawValue]
      (guarded, names, pieces) = (spans[Self.cutParts], spans[Self.cutParts + 1], Array(spans[(Self.cutParts + 2)...]))
    }
  }

  /// The named entries and the pieces in mappings of their own, when the databases are mapped
  /// from their file and it is still the same; nil when not.
  private func mapOnTheirOwn(_ parts: Parts) -> (names: Span, pieces: [Span])? {
    guard let path = file?.path,
      let whole = state.withLock({ state -> MappedFile? in
        if case .mapped(let file, _) = state { return file }
        return nil
      })
    else { return nil }
    return ownMappings.withLock { mappings in
      if mappings.isEmpty {
        let spans = ([parts.names] + parts.pieces).map { ($0.address - whole.address)..<($0.address - whole.address + $0.length) }
        guard let made = MappedFile.mapEach(path, spans, expecting: whole.status) else { return nil }
        mappings = made
      }
      let spans = zip(mappings, [parts.names] + parts.pieces).map { (address: $0.start, length: $1.length) }
      return (spans[0], Array(spans.dropFirst()))
    }
  }

  /// Whether the databases are mapped from their file (where pages given back come back).
  private var isMapped: Bool {
    state.withLock { state in
      if case .mapped = state { return true }
      return false
    }
  }

  /// Gives back the pages of binary piece `index` (nil: of the named entries), when they have a
  /// mapping of their own; as `releasePages`, any thread, at any time.
  func releasePiece(_ index: Int?) {
    ownMappings.withLock { mappings in
      guard !mappings.isEmpty else { return }
      mappings[index.map { $0 + 1 } ?? 0].mapping.release()
    }
  }

  /// Gives the pages of a cut database mapped from its file back to the system (they come back
  /// from the page cache on the next sniff); one built in memory cannot be. Any thread, at any
  /// time: the mapping is private, read-only and never written.
  func releasePages() {
    state.withLock { state in
      if case .mapped(let file, _) = state { file.release() }
    }
    ownMappings.withLock { $0.forEach { $0.mapping.release() } }
  }

  /// Where the databases are, read from their file or built on the first call; nil when they
  /// cannot be. Never reads through the file's mapping: on Linux 6.x a read of one page of it
  /// can map a whole 2 MiB page-cache folio.
  private func parts() -> Parts? {
    state.withLock { state in
      switch state {
      case .built(_, _, let parts), .mapped(_, let parts): return parts
      case .unavailable: return nil
      case .unbuilt(let source):
        if let (mapped, parts) = mapFile() {
          state = .mapped(mapped, parts)
          return parts
        }
        guard let built = Self.build(from: source, regexLimit: regexLimit) else {
          state = .unavailable
          return nil
        }
        let whole = UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: built.address), count: built.length)
        if let file, file.store(whole), let (mapped, parts) = mapFile() {
          whole.deallocate()
          state = .mapped(mapped, parts)
          return parts
        }
        guard let databases = MIMEMagicDatabase.databases(in: UnsafeRawBufferPointer(whole), from: CutMagicFile.headerSize),
          var parts = Parts(databases, at: built.address)
        else {
          whole.deallocate()
          state = .unavailable
          return nil
        }
        // In memory the pieces would hold nothing back (anonymous pages cannot come back from a
        // file): the guarded whole answers instead, and their 8 MiB are given back.
        parts.pieces = []
        if let names = databases.dropFirst(Parts.cutParts + 1).first {
          Self.giveBack(from: built.address + names.lowerBound, to: built.address + built.length)
        }
        state = .built(address: built.address, length: built.length, parts)
        return parts
      }
    }
  }

  /// Gives back the whole pages between `start` and `end` of memory this process will not read
  /// again (`MADV_DONTNEED`: anonymous pages read back as zeros, a file's private mapping from
  /// the file).
  private static func giveBack(from start: Int, to end: Int) {
    let page = MappedFile.pageSize
    let (first, last) = ((start + page - 1) / page * page, end / page * page)
    guard last > first else { return }
    _ = madvise(UnsafeMutableRawPointer(bitPattern: first), last - first, MADV_DONTNEED)
  }

  /// The databases mapped from their file, when it holds them.
  private func mapFile() -> (MappedFile, Parts)? {
    guard let (mapped, databases) = file?.map() else { return nil }
    guard let parts = Parts(databases, at: mapped.address) else {
      mapped.unmap()
      return nil
    }
    return (mapped, parts)
  }

  /// The cut database's parts (`MIMEMagicDatabase.Split`), the guarded whole database, its
  /// named entries and its binary pieces built in memory, one after the other, after a header's
  /// room (`CutMagicFile.headerSize`).
  private static func build(from source: MappedFile, regexLimit: Int) -> (address: Int, length: Int)? {
    // Building reads every page of the full database; give them back after (`MappedFile.release`).
    defer { source.release() }
    guard let cut = MIMEMagicDatabase.Plan(source.bytes, regexLimit: regexLimit),
      let guarded = MIMEMagicDatabase.Plan(source.bytes, cutting: false, regexLimit: regexLimit),
      let pieces = MIMEMagicDatabase.BinaryChunks(source.bytes, regexLimit: regexLimit)
    else { return nil }
    // The split reads the cut as written (its guards are first lines too).
    let cutBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: cut.byteCount, alignment: 16)
    defer { cutBytes.deallocate() }
    guard cut.write(into: cutBytes), let split = MIMEMagicDatabase.Split(UnsafeRawBufferPointer(cutBytes)) else { return nil }
    // Aligned for libmagic, which reads the bytes as an array of `struct magic` (the header is
    // 64 bytes and an entry 376, so every database after it stays aligned).
    let sizes = MIMEMagicDatabase.Split.Part.allCases.map(split.byteCount) + [guarded.byteCount, pieces.byteCount]
    let starts = sizes.reduce(into: [CutMagicFile.headerSize]) { $0.append($0.last! + $1) }
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: starts.last!, alignment: 16)
    func part(_ index: Int) -> UnsafeMutableRawBufferPointer {
      UnsafeMutableRawBufferPointer(rebasing: output[starts[index]..<starts[index + 1]])
    }
    for cutPart in MIMEMagicDatabase.Split.Part.allCases { split.write(cutPart, into: part(cutPart.rawValue)) }
    guard guarded.write(into: part(Parts.cutParts)), pieces.write(into: part(Parts.cutParts + 1)),
      let address = output.baseAddress
    else {
      output.deallocate()
      return nil
    }
    return (Int(bitPattern: address), starts.last!)
  }
}
