import TextEscaping

/// An OLE2 compound file read whole, as Office reads it: the FAT from every FAT sector the
/// header and the DIFAT chain list, the directory through it wherever its sectors lie, and a
/// workbook's `Workbook` stream through its own chain. The head-only reading (`macros(in:)`)
/// sees a directory sector or a macro sheet record only within the first 64 KiB; a file that
/// put them past it got by (documented since review 22).
extension CompoundFile {
  /// What shows, in the whole of `bytes`, that the document carries macros; nil when nothing does.
  static func macros(inWhole bytes: ItemBytes) -> String? {
    guard let file = Sectors(bytes) else { return nil }
    // The workbook stream Excel reads is the root storage's `Workbook` (or `Book`): the
    // directory's tree says which entries are the root's children. A `Book` listed first or a
    // `Workbook` in a storage hid it (review 25), and so did 16 decoys in storages listed before
    // it while only the first 16 were read (review 35).
    var workbooks: [(entry: Int, start: Int, size: Int)] = []
    var links: [UInt32] = []
    var container: (start: Int, size: Int)? = nil
    var project: String? = nil
    var entry = 0
    file.forEachSector(inChainFrom: file.directoryStart) { sector in
      guard let bytes = file.sector(sector) else { return false }
      for at in stride(from: 0, to: bytes.count, by: 128) {
        defer { entry += 1 }
        let type = bytes[at + 66]
        let (start, size) = bytes.withUnsafeBytes { (ContentClassifier.le32($0, at + 116), ContentClassifier.le32($0, at + 120)) }
        if entry == 0, type == 5 { container = (start, size) }
        if entry < maxTreeEntries { bytes.withUnsafeBytes { appendLinks($0, at: at, to: &links) } }
        guard let name = bytes.withUnsafeBytes({ entryName($0, at: at) }) else { continue }
        if vbaProjectNames.contains(name.uppercased()) {
          project = name
          return false
        }
        // Past the entries the tree is kept for, only the first 16 are read: no more are kept.
        if type == 2, entry < maxTreeEntries || workbooks.count < 16, ["WORKBOOK", "BOOK"].contains(name.uppercased()) {
          workbooks.append((entry, start, size))
        }
      }
      return true
    }
    if let project { return "OLE2 document with a VBA project (\(Escaping.escaped(project, maximumLength: 40)))" }
    // The root's, and any the tree does not reach at all (a reader may list entries in order).
    let read = rootChildren(links, entries: entry).map { tree in
      workbooks.filter { tree.children.contains($0.entry) } + workbooks.filter { !tree.reached.contains($0.entry) }
    }
    var chains: Set<Int> = []
    for workbook in (read ?? workbooks).prefix(16) {
      // A stream under the cutoff lies in the mini stream, which the root entry's chain holds:
      // its records are looked for there, as in a head. Each chain is read once (review 35: 16
      // entries of one 256 MiB chain cost 8.7 s).
      guard let stream = workbook.size < file.miniStreamCutoff ? container : (workbook.start, workbook.size),
        chains.insert(stream.start).inserted, let sheet = file.excel4MacroSheet(inChainFrom: stream.start, size: stream.size)
      else { continue }
      return "Excel workbook with an Excel 4.0 macro sheet (\(Escaping.escaped(sheet, maximumLength: 40)))"
    }
    return nil
  }

  /// Directories larger than this many entries are not walked as a tree (its links would take
  /// 12 bytes an entry): the first 16 workbook streams are read instead.
  static let maxTreeEntries = 1 << 21

  /// The left sibling, right sibling and child links of the directory entry at `at`.
  static func appendLinks(_ raw: UnsafeRawBufferPointer, at: Int, to links: inout [UInt32]) {
    links += [68, 72, 76].map { UInt32(truncatingIfNeeded: ContentClassifier.le32(raw, at + $0)) }
  }

  /// The entries that are the root storage's children, and every entry the tree reaches from
  /// the root, from each entry's left sibling, right sibling and child links (`links`, three per
  /// entry, in directory order); nil when the directory's `entries` are more than were kept.
  static func rootChildren(_ links: [UInt32], entries: Int) -> (children: Set<Int>, reached: Set<Int>)? {
    guard links.count >= 3, links.count == 3 * entries else { return nil }
    func siblings(from first: Int) -> Set<Int> {
      var found: Set<Int> = []
      var next = [first]
      while let index = next.popLast() {
        // A link past the end (NOSTREAM, 0xFFFFFFFF) is none; each entry is visited once (a loop).
        guard index < entries, found.insert(index).inserted else { continue }
        next += [Int(links[3 * index]), Int(links[3 * index + 1])]
      }
      return found
    }
    let children = siblings(from: Int(links[2]))
    var reached: Set<Int> = [0]
    var storages = Array(children)
    while let storage = storages.popLast() {
      guard reached.insert(storage).inserted else { continue }
      storages += siblings(from: Int(links[3 * storage + 2]))
    }
    return (children, reached)
  }

  /// A compound file's sectors, through its FAT.
  struct Sectors {
    let bytes: ItemBytes
    let shift: Int
    let directoryStart: Int
    let miniStreamCutoff: Int
    /// The mini FAT's first sector and how many sectors it has.
    let miniFATStart: Int
    let miniFATSectors: Int
    /// The FAT's sectors, in order: the header's 109, then the DIFAT chain's.
    let fat: [Int]

    init?(_ bytes: ItemBytes) {
      guard let header = bytes.read(0..<512), header.count == 512, header.starts(with: CompoundFile.signature) else { return nil }
      let (shift, directory, cutoff, difat, difatCount) = header.withUnsafeBytes {
        (
          ContentClassifier.le16($0, 0x1E), ContentClassifier.le32($0, 0x30), ContentClassifier.le32($0, 0x38),
          ContentClassifier.le32($0, 0x44), ContentClassifier.le32($0, 0x48)
        )
      }
      (miniFATStart, miniFATSectors) = header.withUnsafeBytes { (ContentClassifier.le32($0, 0x3C), ContentClassifier.le32($0, 0x40)) }
      guard shift == 9 || shift == 12 else { return nil }
      self.bytes = bytes
      self.shift = shift
      directoryStart = directory
      miniStreamCutoff = cutoff
      var fat = header.withUnsafeBytes { raw in (0..<109).map { ContentClassifier.le32(raw, 0x4C + 4 * $0) } }
      // The DIFAT chain: each sector lists FAT sectors, and the next DIFAT sector last.
      // No more FAT sectors than the file's sectors need, and each DIFAT sector once (review
      // 25: one that named itself grew the list to four times the file's size).
      let needed = (bytes.count >> shift) / ((1 << shift) / 4) + 1
      var next = difat
      var seen: Set<Int> = []
      for _ in 0..<min(difatCount, bytes.count >> shift) where fat.count < needed + 109 && seen.insert(next).inserted {
        guard let start = CompoundFile.offset(of: next, shift: shift), let sector = bytes.read(start..<(start + (1 << shift))),
          sector.count == 1 << shift
        else { break }
        let entries = sector.withUnsafeBytes { raw in (0..<(sector.count / 4)).map { ContentClassifier.le32(raw, 4 * $0) } }
        fat += entries.dropLast()
        next = entries.last ?? 0xFFFF_FFFE
      }
      // By position: the n-th FAT sector covers the n-th run of sectors (a special value there
      // covers none, and a chain through it ends).
      self.fat = fat
    }

    /// Sector `sector`'s bytes, a last one the file cuts short filled with zeros (as readers
    /// read it: review 25 hid a project's entries in one); nil past the file's end.
    func sector(_ sector: Int) -> [UInt8]? {
      guard let start = CompoundFile.offset(of: sector, shift: shift), let bytes = bytes.read(start..<(start + (1 << shift))) else {
        return nil
      }
      return bytes.count == 1 << shift ? bytes : bytes + [UInt8](repeating: 0, count: (1 << shift) - bytes.count)
    }

    /// Calls `body` with each sector of the chain from `start`, in order, while it returns true;
    /// the chain ends at its end mark, a sector the FAT does not cover, or after as many steps
    /// as the file has sectors (a loop).
    func forEachSector(inChainFrom start: Int, _ body: (Int) -> Bool) {
      var sector = start
      var steps = 0
      var fatSector: (index: Int, entries: [UInt8])? = nil
      let perSector = (1 << shift) / 4
      while CompoundFile.offset(of: sector, shift: shift) != nil, steps <= bytes.count >> shift, body(sector) {
        steps += 1
        let index = sector / perSector
        if fatSector?.index != index {
          guard index < fat.count, let entries = self.sector(fat[index]) else { return }
          fatSector = (index, entries)
        }
        guard let entries = fatSector?.entries else { return }
        sector = entries.withUnsafeBytes { ContentClassifier.le32($0, 4 * (sector % perSector)) }
      }
    }

    /// The first Excel 4.0 macro sheet among the BoundSheet8 records of the stream whose chain
    /// starts at `start`, read a window at a time (each window overlaps the last by more than a
    /// record, so none is cut), up to `size` bytes.
    func excel4MacroSheet(inChainFrom start: Int, size: Int) -> String? {
      var window: [UInt8] = []
      var read = 0
      var found: String? = nil
      let overlap = 1 << 10
      forEachSector(inChainFrom: start) { sector in
        guard read < size, let bytes = self.sector(sector) else { return false }
        window += bytes.prefix(size - read)
        read += bytes.count
        guard window.count >= 256 << 10 else { return true }
        found = window.withUnsafeBytes(CompoundFile.excel4MacroSheet(in:))
        window.removeFirst(window.count - overlap)
        return found == nil
      }
      if let found { return found }
      return window.withUnsafeBytes(CompoundFile.excel4MacroSheet(in:))
    }
  }
}
