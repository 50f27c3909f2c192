/// libmagic's compiled database cut down to the entries that can print a MIME type, every MIME
/// type in it marked with a leading `!`. Pure: bytes in, bytes out.
///
/// Why a `MAGIC_MIME_TYPE` answer needs nothing else: libmagic tries the database's top-level
/// entries in one fixed order (strongest first) and stops at the first that *matches*, where an
/// entry matches when a line with a description or a MIME type succeeds (`match()` in
/// softmagic.c). The answer is that entry's MIME type, if it has one; an entry without one only
/// stops the search, and the answer is then what the built-in checks say, exactly as when no
/// entry matches at all. So, keeping the order:
/// - if no entry that can print a MIME type matches, the full database prints no MIME type
///   either, and its answer is the cut one's (same built-in checks on the same bytes);
/// - if one does, an entry the cut database lacks may have matched first in the full one, so the
///   full database must be asked.
///
/// The mark tells the two apart: an answer without `!` came from the built-in checks and stands;
/// an answer with one means "ask the full database". Random or unrecognised bytes (the common
/// case for what no signature fits) are then judged by a third of the entries; a recognised
/// format costs one pass of the cut database more. An entry "can print a MIME type" when one of
/// its lines has one, uses (`use`) a named entry that can, or holds an `indirect` test (which
/// runs the whole database again at an offset). Named entries stay whole, so a `use` finds what
/// it found before. An entry whose first line is slow to fail (a `search` with modifiers, a
/// `regex`) gets a guard line in front (`Guard`). The full database is asked through its guarded
/// copy (`guarded`): the whole of it, the same guards, no marks.
package enum MIMEMagicDatabase {
  /// The byte that starts every MIME type in the cut database.
  package static let marker = UInt8(ascii: "!")

  /// libmagic's compiled-database header: `MAGICNO`, `VERSIONNO` 18 (file 5.x), then the entry
  /// counts of the two sets (ordinary entries, named entries); one entry long.
  static let magicNumber: UInt32 = 0xF11E_041C
  static let version: UInt32 = 18
  /// `sizeof(struct magic)` for version 18.
  static let entrySize = 376
  /// Offsets in `struct magic` (file.h): `cont_level`, `flag`, `reln`, `vallen`, `type`,
  /// `mask_op`, `cond`, a string's `str_range` and `str_flags`, `value.s`, `desc`, `mimetype`.
  static let continuationLevelOffset = 0
  static let flagOffset = 2
  static let relationOffset = 4
  static let valueLengthOffset = 5
  static let typeOffset = 6
  static let maskOperatorOffset = 9
  static let conditionOffset = 10
  static let rangeOffset = 24
  static let stringFlagsOffset = 28
  static let valueOffset = 32
  static let valueLength = 128
  static let descriptionOffset = 160
  static let mimeOffset = 224
  static let mimeLength = 80
  /// `FILE_REGEX`, `FILE_SEARCH`, `FILE_INDIRECT`, `FILE_USE` in file.h.
  static let regexType: UInt8 = 17
  static let searchType: UInt8 = 20
  static let indirectType: UInt8 = 41
  static let useType: UInt8 = 46

  /// libmagic's default `MAGIC_PARAM_REGEX_MAX` (`FILE_REGEX_MAX`).
  package static let defaultRegexLimit = 8192

  /// The cut database built from a compiled one (`magic.mgc`), or nil when `database` is not a
  /// native-endian version-18 database or a MIME type is too long to mark. `regexLimit` is the
  /// libmagic's `MAGIC_PARAM_REGEX_MAX` that will read it (`Guard`).
  package static func cut(
    _ database: UnsafeRawBufferPointer, guarding: Bool = true, regexLimit: Int = defaultRegexLimit
  ) -> [UInt8]? {
    write(Plan(database, guarding: guarding, regexLimit: regexLimit))
  }

  /// The whole of a compiled database with its guards (`Guard`) and no marks: the same answers
  /// as `database` (MIME types and descriptions), sooner. Nil as for `cut`.
  package static func guarded(_ database: UnsafeRawBufferPointer, regexLimit: Int = defaultRegexLimit) -> [UInt8]? {
    write(Plan(database, cutting: false, regexLimit: regexLimit))
  }

  private static func write(_ plan: Plan?) -> [UInt8]? {
    guard let plan else { return nil }
    var written = false
    let output = [UInt8](unsafeUninitializedCapacity: plan.byteCount) { buffer, count in
      written = plan.write(into: UnsafeMutableRawBufferPointer(buffer))
      count = plan.byteCount
    }
    return written ? output : nil
  }

  /// Which groups of entries the cut database keeps, in the full database's order, and which
  /// get guards; or, not cutting, every group, guarded and unmarked.
  package struct Plan {
    let database: UnsafeRawBufferPointer
    /// Whether this is the cut (only what can print a MIME type, marked).
    let cutting: Bool
    let ordinary: [Range<Int>]
    let named: [Range<Int>]
    /// The ordinary groups that get a guard line (`Guard`), by their first entry.
    let guards: [Int: Guard.Line]
    /// Ordinary entries written, guards included.
    let ordinaryCount: Int
    let namedCount: Int
    /// The database's size in bytes.
    package var byteCount: Int { entrySize * (1 + ordinaryCount + namedCount) }

    /// The plan for `database`; nil when it is not a native-endian version-18 database.
    /// Without `guarding`, no guard lines (to compare against).
    package init?(
      _ database: UnsafeRawBufferPointer, cutting: Bool = true, guarding: Bool = true, regexLimit: Int = defaultRegexLimit
    ) {
      guard let layout = Layout(database) else { return nil }
      self.database = database
      self.cutting = cutting
      let ordinary = groups(database, first: 1, count: layout.ordinary)
      let named = groups(database, first: 1 + layout.ordinary, count: layout.named)
      if cutting {
        var capability = Capability(database: database, named: named)
        self.ordinary = ordinary.filter { capability.canPrintMIME($0) }
        let reachable = capability.namedReachable(from: self.ordinary)
        self.named = named.indices.filter { reachable.contains($0) }.map { named[$0] }
      } else {
        self.ordinary = ordinary
        self.named = named
      }
      var guards: [Int: Guard.Line] = [:]
      for group in self.ordinary where guarding {
        guards[group.lowerBound] = Guard.line(database, group.lowerBound, regexLimit: regexLimit)
      }
      self.guards = guards
      ordinaryCount = self.ordinary.reduce(0) { $0 + $1.count } + guards.count
      namedCount = self.named.reduce(0) { $0 + $1.count }
    }

    /// Writes the database into `output` (`byteCount` bytes); false when, cutting, a MIME type
    /// is too long to mark.
    package func write(into output: UnsafeMutableRawBufferPointer) -> Bool {
      precondition(output.count >= byteCount)
      var writer = EntryWriter(output, ordinary: ordinaryCount, named: namedCount)
      return (ordinary + named).allSatisfy { write($0, to: &writer, marking: cutting) }
    }

    /// Entries `group` and its guard, if it has one, take when written.
    func writtenCount(_ group: Range<Int>) -> Int { group.count + (guards[group.lowerBound] == nil ? 0 : 1) }

    /// Writes `group`, after its guard if it has one; with `marking`, every MIME type gets the
    /// marker, and with `rewritingIndirect`, every `indirect` line becomes one that prints
    /// `MIMEMagicDatabase.fullDatabaseMIME` (`BinaryChunks`). False when a MIME type is too long to mark.
    func write(_ group: Range<Int>, to writer: inout EntryWriter, marking: Bool, rewritingIndirect: Bool = false) -> Bool {
      let guarded = guards[group.lowerBound]
      if let guarded { Guard.write(guarded, guarding: entry(group.lowerBound), into: writer.next()) }
      for index in group {
        let line = writer.next()
        line.copyMemory(from: entry(index))
        // Under its guard, the group's lines sit one level deeper.
        if guarded != nil {
          line.storeBytes(of: continuationLevel(database, index) + 1, toByteOffset: continuationLevelOffset, as: UInt16.self)
        }
        if rewritingIndirect && line[typeOffset] == indirectType { MIMEMagicDatabase.rewriteIndirect(line) }
        guard !marking || mark(line) else { return false }
      }
      return true
    }

    private func entry(_ index: Int) -> UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(rebasing: database[index * entrySize..<(index + 1) * entrySize])
    }
  }

  /// Fills a compiled database entry by entry, after its header.
  struct EntryWriter {
    private let output: UnsafeMutableRawBufferPointer
    private var written = 1

    /// Zeroes `output` and writes the header: `ordinary` and `named` entries follow.
    init(_ output: UnsafeMutableRawBufferPointer, ordinary: Int, named: Int) {
      self.output = output
      output.initializeMemory(as: UInt8.self, repeating: 0)
      for (index, word) in [magicNumber, version, UInt32(ordinary), UInt32(named)].enumerated() {
        output.storeBytes(of: word, toByteOffset: 4 * index, as: UInt32.self)
      }
    }

    /// The next entry's bytes (zeroed).
    mutating func next() -> UnsafeMutableRawBufferPointer { next(1) }

    /// The next `count` entries' bytes (zeroed).
    mutating func next(_ count: Int) -> UnsafeMutableRawBufferPointer {
      defer { written += count }
      return UnsafeMutableRawBufferPointer(rebasing: output[written * entrySize..<(written + count) * entrySize])
    }
  }

  /// The header's counts, when the header is one this reads and the size fits them.
  struct Layout {
    var ordinary: Int
    var named: Int
    /// The database's size in bytes: its header entry and every entry it counts.
    var byteCount: Int { MIMEMagicDatabase.entrySize * (1 + ordinary + named) }

    /// The layout of `database`, which must be all of it.
    init?(_ database: UnsafeRawBufferPointer) {
      self.init(leading: database)
      guard database.count == byteCount else { return nil }
    }

    /// The layout of the database at the start of `bytes`, which may hold more after it.
    init?(leading bytes: UnsafeRawBufferPointer) {
      guard bytes.count >= MIMEMagicDatabase.entrySize else { return nil }
      self.init(header: UnsafeRawBufferPointer(rebasing: bytes[..<16]), available: bytes.count)
    }

    /// The layout a header's first 16 bytes give, for a database of at most `available` bytes.
    init?(header: UnsafeRawBufferPointer, available: Int) {
      guard header.count >= 16, available >= MIMEMagicDatabase.entrySize else { return nil }
      let words = (0..<4).map { header.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self) }
      guard words[0] == MIMEMagicDatabase.magicNumber, words[1] == MIMEMagicDatabase.version else { return nil }
      (ordinary, named) = (Int(words[2]), Int(words[3]))
      guard byteCount <= available else { return nil }
    }
  }

  /// The databases one after the other in `length` bytes from `start` to their end, as byte
  /// ranges; nil when a header is missing or says more than there is. `header(offset)` gives a
  /// database's first 16 bytes, read however the caller likes (from memory, through a file).
  static func databases(
    length: Int, from start: Int, header: (Int) -> [UInt8]?
  ) -> [Range<Int>]? {
    var databases: [Range<Int>] = []
    var offset = start
    while offset < length {
      guard let words = header(offset),
        let layout = words.withUnsafeBytes({ Layout(header: $0, available: length - offset) })
      else { return nil }
      databases.append(offset..<offset + layout.byteCount)
      offset += layout.byteCount
    }
    return databases
  }

  /// `databases(length:from:header:)` over bytes in memory.
  static func databases(in bytes: UnsafeRawBufferPointer, from start: Int) -> [Range<Int>]? {
    databases(length: bytes.count, from: start) { offset in Array(bytes[offset..<min(offset + 16, bytes.count)]) }
  }

  /// Entry indices grouped by top-level entry (a group is a top-level line and its continuations).
  static func groups(_ database: UnsafeRawBufferPointer, first: Int, count: Int) -> [Range<Int>] {
    var groups: [Range<Int>] = []
    var start = first
    for entry in first..<first + count where entry > first && continuationLevel(database, entry) == 0 {
      groups.append(start..<entry)
      start = entry
    }
    if count > 0 { groups.append(start..<first + count) }
    return groups
  }

  static func continuationLevel(_ database: UnsafeRawBufferPointer, _ entry: Int) -> UInt16 {
    database.loadUnaligned(fromByteOffset: entry * entrySize + continuationLevelOffset, as: UInt16.self)
  }

  static func type(_ database: UnsafeRawBufferPointer, _ entry: Int) -> UInt8 {
    database[entry * entrySize + typeOffset]
  }

  static func hasMIME(_ database: UnsafeRawBufferPointer, _ entry: Int) -> Bool {
    database[entry * entrySize + mimeOffset] != 0
  }

  /// The C string in `value.s` (a named entry's name, or the name a `use` line calls).
  static func value(_ database: UnsafeRawBufferPointer, _ entry: Int) -> [UInt8] {
    let start = entry * entrySize + valueOffset
    let bytes = database[start..<start + valueLength]
    return Array(bytes.prefix { $0 != 0 })
  }

  /// Puts the marker before an entry's MIME type, if it has one; false when it does not fit.
  static func mark(_ entry: UnsafeMutableRawBufferPointer) -> Bool {
    guard entry[mimeOffset] != 0 else { return true }
    let field = UnsafeMutableRawBufferPointer(rebasing: entry[mimeOffset..<mimeOffset + mimeLength])
    guard let end = field.firstIndex(of: 0), end + 2 <= mimeLength else { return false }
    for index in stride(from: end, to: 0, by: -1) { field[index] = field[index - 1] }
    field[0] = marker
    field[end + 1] = 0
    return true
  }
}

extension MIMEMagicDatabase {
  /// Which groups can print a MIME type, following `use` lines into named entries.
  struct Capability {
    let database: UnsafeRawBufferPointer
    let named: [Range<Int>]
    /// Named groups by name: the first of each name, as libmagic's `file_magicfind` finds it.
    let byName: [[UInt8]: Int]
    private var known: [Int: Bool] = [:]
    private var visiting: Set<Int> = []

    init(database: UnsafeRawBufferPointer, named: [Range<Int>]) {
      self.database = database
      self.named = named
      var byName: [[UInt8]: Int] = [:]
      for (index, group) in named.enumerated() where byName[MIMEMagicDatabase.value(database, group.lowerBound)] == nil {
        byName[MIMEMagicDatabase.value(database, group.lowerBound)] = index
      }
      self.byName = byName
    }

    /// The named group a `use` line calls (its name without the `^` that flips byte order).
    func callee(_ entry: Int) -> Int? {
      var name = MIMEMagicDatabase.value(database, entry)
      if name.first == UInt8(ascii: "^") { name.removeFirst() }
      return byName[name]
    }

    /// Whether some line of `group` has a MIME type, runs the database again (`indirect`), or
    /// calls a named group that can. A `use` of a name that does not exist counts: libmagic
    /// fails on it, and the full database must be the one that fails.
    mutating func canPrintMIME(_ group: Range<Int>) -> Bool {
      for entry in group {
        let type = MIMEMagicDatabase.type(database, entry)
        if MIMEMagicDatabase.hasMIME(database, entry) || type == MIMEMagicDatabase.indirectType { return true }
        guard type == MIMEMagicDatabase.useType else { continue }
        guard let callee = callee(entry) else { return true }
        if let answer = known[callee] {
          if answer { return true }
          continue
        }
        // A named group that calls itself back: assume it can (keeping too much is safe).
        if visiting.contains(callee) { return true }
        visiting.insert(callee)
        let answer = canPrintMIME(named[callee])
        visiting.remove(callee)
        known[callee] = answer
        if answer { return true }
      }
      return false
    }

    /// Indices of the named groups that `groups` call, directly or through other named groups.
    func namedReachable(from groups: [Range<Int>]) -> Set<Int> {
      var reached: Set<Int> = []
      var pending = groups
      while let group = pending.popLast() {
        for entry in group where MIMEMagicDatabase.type(database, entry) == MIMEMagicDatabase.useType {
          if let callee = callee(entry), reached.insert(callee).inserted { pending.append(named[callee]) }
        }
      }
      return reached
    }
  }
}
