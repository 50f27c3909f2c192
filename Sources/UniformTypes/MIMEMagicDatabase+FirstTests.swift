extension MIMEMagicDatabase {
  /// The cut database split in two by its groups' first lines: the groups whose first line only
  /// compares bytes at a fixed offset (`FirstTests`: their first lines, checked here, in Swift,
  /// against a whole head in about a microsecond), and the rest: the other groups, in the same
  /// order. Written as three databases (`Part`): the cut's ordinary entries and its named
  /// entries — the cut, read together — and the rest, read with the cut's named entries. A
  /// head no first test may match is asked of the rest; one that some may match, of the rest
  /// with those groups put back in their places (`FirstTests.database(with:cut:rest:into:)`),
  /// so that a cut pass reads the rest and a few groups, never the whole cut.
  ///
  /// Why the rest says what the cut says for a head that none of the first tests can match:
  /// libmagic tries top-level entries in order and a group whose first line fails adds nothing
  /// — no output, no offset or state a later group reads — before the next group is tried
  /// (`match()` in softmagic.c). Dropping groups that fail on these bytes leaves the others, in
  /// the same order, to do what they did — but for an `indirect` line, which runs the whole
  /// database again and so is rewritten to send the bytes there (see `write`). In Debian 12's
  /// database, 869 of the cut's 1,157 groups begin with such tests, 9 random heads in 10 fail
  /// all of them, and the rest then takes a fifth of the cut's time.
  ///
  /// A first test is kept only when what it compares is beyond doubt, on the bytes libmagic sees
  /// in the pass that runs it: a line for the binary pass only (`BINTEST`, not `TEXTTEST`: the
  /// text pass runs over the bytes converted to UTF-8), an absolute offset (no `INDIR`,
  /// `OFFADD`, `OFFNEGATIVE`), no condition, relation `=`, and either a `string` or a
  /// `search` whose modifiers change only which pass runs it or where a match leaves the offset
  /// (`/b`, `/t`, `/s`: a byte-for-byte comparison), or a byte, short, long or quad in any byte
  /// order, at most AND-masked. libmagic reads a `string` or a number past the end of the bytes
  /// as zeros (`mcopy`) or fails the line: a test here compares zeros there, which can only say
  /// "may match" where libmagic fails, never the other way; a `search` finds only what lies
  /// inside the bytes, and its test looks there for the string (`memmem`) over the range the
  /// line gives it, as libmagic does.
  package struct Split {
    /// The cut's ordinary groups whose first line is a first test, and the others.
    let tested: [Range<Int>]
    let rest: [Range<Int>]
    let layout: Layout
    let database: UnsafeRawBufferPointer

    /// The databases written, in this order.
    package enum Part: Int, CaseIterable {
      /// The cut's ordinary entries (where `FirstTests` finds the tested groups), and its named
      /// entries: together, the cut.
      case cutOrdinary, cutNamed
      /// The other groups' entries; read with `cutNamed`.
      case rest
    }

    /// The split of `cut`, a compiled database (the cut one); nil when it is not one this reads.
    package init?(_ cut: UnsafeRawBufferPointer) {
      guard let layout = Layout(cut) else { return nil }
      (database, self.layout) = (cut, layout)
      var tested: [Range<Int>] = []
      var rest: [Range<Int>] = []
      for group in groups(cut, first: 1, count: layout.ordinary) {
        if FirstTest(cut, entry: group.lowerBound) != nil { tested.append(group) } else { rest.append(group) }
      }
      (self.tested, self.rest) = (tested, rest)
    }

    /// The entries `part` holds, as (ordinary, named) counts.
    private func counts(_ part: Part) -> (ordinary: Int, named: Int) {
      switch part {
      case .cutOrdinary: (layout.ordinary, 0)
      case .cutNamed: (0, layout.named)
      case .rest: (rest.reduce(0) { $0 + $1.count }, 0)
      }
    }

    /// The size of `part`: a header and its entries.
    package func byteCount(_ part: Part) -> Int {
      let (ordinary, named) = counts(part)
      return entrySize * (1 + ordinary + named)
    }

    /// Writes `part` into `output` (`byteCount(part)` bytes).
    package func write(_ part: Part, into output: UnsafeMutableRawBufferPointer) {
      let (ordinary, named) = counts(part)
      var writer = EntryWriter(output, ordinary: ordinary, named: named)
      let entries: [Int] =
        switch part {
        case .cutOrdinary: Array(1..<1 + layout.ordinary)
        case .cutNamed: Array(1 + layout.ordinary..<1 + layout.ordinary + layout.named)
        case .rest: Array(rest.joined())
        }
      for entry in entries {
        let line = writer.next()
        line.copyMemory(from: self.line(entry))
        // An `indirect` line runs the databases loaded with it again: the rest, or the rest and
        // a few groups, would run without the others. It prints `fullDatabaseMIME` instead, so
        // that such an answer goes to the whole database (`BinaryChunks` does the same); the
        // cut, asked only when there is no rest, then sends it there too.
        if line[typeOffset] == indirectType {
          rewriteIndirect(line)
          _ = mark(line)
        }
      }
    }

    private func line(_ entry: Int) -> UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(rebasing: database[entry * entrySize..<(entry + 1) * entrySize])
    }
  }

  /// One first line as a comparison of bytes: at `offset`, each byte ANDed with its `mask` must
  /// equal the `pattern`'s; for a `search`, the pattern must start within `range` bytes of
  /// `offset` (0: anywhere after it), inside the head.
  struct FirstTest: Equatable {
    var offset: Int
    var pattern: [UInt8]
    var mask: [UInt8]
    var range: Int? = nil

    /// `flag` bits: `BINTEST`, `TEXTTEST`.
    static let passFlags: UInt8 = 0x60
    static let binaryOnly: UInt8 = 0x20
    /// `FILE_STRING`, and the numeric types with their widths and whether they are big-endian:
    /// byte, short, long, beshort, belong, leshort, lelong, quad, lequad, bequad (file.h).
    static let stringType: UInt8 = 5
    static let searchType: UInt8 = MIMEMagicDatabase.searchType
    /// `str_flags` that do not change whether bytes match: `REGEX_OFFSET_START` (`/s`),
    /// `STRING_TEXTTEST` (`/t`), `STRING_BINTEST` (`/b`).
    static let plainStringFlags: UInt32 = 0x70
    static let numeric: [UInt8: (width: Int, bigEndian: Bool)] = [
      1: (1, false), 2: (2, false), 4: (4, false), 7: (2, true), 8: (4, true), 10: (2, false), 11: (4, false),
      24: (8, false), 25: (8, false), 26: (8, true),
    ]
    /// `struct magic`'s `offset`; `num_mask` (a string's range and flags) shares `rangeOffset`.
    static let offsetOffset = 12

    /// The test `entry`'s line makes; nil when it is not one (see `Split`).
    init?(_ database: UnsafeRawBufferPointer, entry: Int) {
      let line = UnsafeRawBufferPointer(rebasing: database[entry * entrySize..<(entry + 1) * entrySize])
      let offset = line.loadUnaligned(fromByteOffset: Self.offsetOffset, as: Int32.self)
      guard line[flagOffset] & Guard.offsetFlags == 0, line[flagOffset] & Self.passFlags == Self.binaryOnly,
        line[conditionOffset] == 0, line[relationOffset] == UInt8(ascii: "="), line[maskOperatorOffset] == 0, offset >= 0
      else { return nil }
      let mask = line.loadUnaligned(fromByteOffset: rangeOffset, as: UInt64.self)
      self.offset = Int(offset)
      if line[typeOffset] == Self.stringType || line[typeOffset] == Self.searchType {
        let range = line.loadUnaligned(fromByteOffset: rangeOffset, as: UInt32.self)
        let flags = line.loadUnaligned(fromByteOffset: stringFlagsOffset, as: UInt32.self)
        let length = Int(line[valueLengthOffset])
        // A string has no range (a search's is how far it looks).
        // libmagic keeps at most 127 bytes of a string (`mconvert` ends it at the 128th).
        guard flags & ~Self.plainStringFlags == 0, length < valueLength,
          line[typeOffset] == Self.searchType || range == 0
        else { return nil }
        pattern = Array(line[valueOffset..<valueOffset + length])
        self.mask = Array(repeating: 0xFF, count: length)
        if line[typeOffset] == Self.searchType { self.range = Int(range) }
        return
      }
      guard let (width, bigEndian) = Self.numeric[line[typeOffset]] else { return nil }
      // The value and the mask as libmagic holds them (host order, little-endian here), laid out
      // as the bytes they are compared with; no mask is all ones.
      let value = line.loadUnaligned(fromByteOffset: valueOffset, as: UInt64.self)
      func bytes(_ word: UInt64) -> [UInt8] {
        let low = (0..<width).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        return bigEndian ? low.reversed() : low
      }
      pattern = bytes(value)
      self.mask = bytes(mask == 0 ? .max : mask)
    }

    init(offset: Int, pattern: [UInt8], mask: [UInt8], range: Int? = nil) {
      (self.offset, self.pattern, self.mask, self.range) = (offset, pattern, mask, range)
    }

    /// Whether the line may match `head`, read as zeros past its end (a search: inside it).
    func mayMatch(_ head: UnsafeRawBufferPointer) -> Bool {
      if let range { return searchMayMatch(head, range: range) }
      for index in pattern.indices {
        let at = offset + index
        let byte = at < head.count ? head[at] : 0
        if byte & mask[index] != pattern[index] { return false }
      }
      return true
    }

    /// Whether the pattern starts within `range` bytes of the offset (0: anywhere after it),
    /// inside `head`.
    private func searchMayMatch(_ head: UnsafeRawBufferPointer, range: Int) -> Bool {
      guard !pattern.isEmpty else { return true }
      let start = min(offset, head.count)
      let end = range == 0 ? head.count : min(head.count, offset + range + pattern.count)
      return ByteSearch.firstIndex(of: pattern, in: head, from: start, end: end) != nil
    }
  }

  /// The first tests of a `Split`, read from the cut's ordinary entries, indexed by offset and
  /// first byte: which may match a head costs one table look-up per offset (53 offsets in Debian
  /// 12's database), and with each test, where its group is in the cut and where it goes back
  /// into the rest.
  package struct FirstTests: Sendable {
    private struct Slot: Sendable {
      var offset: Int
      /// Which values of the byte at `offset` some test here may accept.
      var accepts: [Bool]
      /// Indices in `tests`.
      var tests: [Int]
    }
    /// A tested group: its entries in the cut's ordinary part, and how many of the rest's
    /// entries come before it.
    struct Place: Sendable {
      var entries: Range<Int>
      var restBefore: Int
    }
    private let tests: [FirstTest]
    private let places: [Place]
    private let slots: [Slot]
    /// The `search` tests (indices in `tests`), which have no one byte to look up.
    private let searches: [Int]
    /// Entries in the rest.
    let restCount: Int
    package var count: Int { tests.count }

    /// The first tests of the cut's ordinary part (`Split.Part.cutOrdinary`), as `Split` finds
    /// them; nil when it is not a database this reads.
    package init?(cutOrdinary database: UnsafeRawBufferPointer) {
      guard let layout = Layout(database), layout.named == 0 else { return nil }
      var found: [(FirstTest, Place)] = []
      var restCount = 0
      for group in groups(database, first: 1, count: layout.ordinary) {
        if let test = FirstTest(database, entry: group.lowerBound) {
          found.append((test, Place(entries: group, restBefore: restCount)))
        } else {
          restCount += group.count
        }
      }
      self.init(found, restCount: restCount)
    }

    init(_ found: [(test: FirstTest, place: Place)], restCount: Int = 0) {
      tests = found.map(\.test)
      places = found.map(\.place)
      self.restCount = restCount
      var slots: [Int: Slot] = [:]
      for (index, test) in tests.enumerated() where test.range == nil {
        var slot = slots[test.offset] ?? Slot(offset: test.offset, accepts: Array(repeating: false, count: 256), tests: [])
        // An empty string matches anything: its slot accepts every byte.
        for byte in 0...255 where test.pattern.isEmpty || UInt8(byte) & test.mask[0] == test.pattern[0] {
          slot.accepts[byte] = true
        }
        slot.tests.append(index)
        slots[test.offset] = slot
      }
      self.slots = slots.values.sorted { $0.offset < $1.offset }
      let tests = self.tests
      searches = tests.indices.filter { tests[$0].range != nil }
    }

    /// `init(_:restCount:)` for tests alone (no places).
    init(_ tests: [FirstTest]) {
      self.init(tests.map { ($0, Place(entries: 0..<0, restBefore: 0)) })
    }

    /// The tests that may match `head` (indices, in the cut's order); empty when none may, and
    /// then the rest says what the cut says.
    package func candidates(_ head: UnsafeRawBufferPointer) -> [Int] {
      var found: [Int] = []
      for slot in slots where slot.accepts[Int(slot.offset < head.count ? head[slot.offset] : 0)] {
        found += slot.tests.filter { tests[$0].mayMatch(head) }
      }
      found += searches.filter { tests[$0].mayMatch(head) }
      return found.sorted()
    }

    /// The size of `database(with:cut:rest:into:)`'s database for `candidates`.
    package func byteCount(with candidates: [Int]) -> Int {
      entrySize * (1 + restCount + candidates.reduce(0) { $0 + places[$1].entries.count })
    }

    /// Writes into `output` (at least `byteCount(with: candidates)` bytes) the cut without the
    /// tested groups that are not among `candidates`: the rest with those groups put back where
    /// they were. For a head whose other first tests all fail, it says what the cut says (see
    /// `Split`). `cut` is the cut's ordinary part, `rest` the rest.
    package func database(
      with candidates: [Int], cut: UnsafeRawBufferPointer, rest: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) {
      let count = candidates.reduce(0) { $0 + places[$1].entries.count }
      precondition(rest.count >= entrySize * (1 + restCount) && output.count >= byteCount(with: candidates))
      precondition(candidates.allSatisfy { cut.count >= entrySize * places[$0].entries.upperBound })
      var writer = EntryWriter(
        UnsafeMutableRawBufferPointer(rebasing: output[..<byteCount(with: candidates)]), ordinary: restCount + count, named: 0)
      func copy(_ entries: Range<Int>, from database: UnsafeRawBufferPointer) {
        writer.next(entries.count).copyMemory(
          from: UnsafeRawBufferPointer(rebasing: database[entries.lowerBound * entrySize..<entries.upperBound * entrySize]))
      }
      var restAt = 1
      for index in candidates {
        copy(restAt..<1 + places[index].restBefore, from: rest)
        restAt = 1 + places[index].restBefore
        copy(places[index].entries, from: cut)
      }
      copy(restAt..<1 + restCount, from: rest)
    }
  }
}
