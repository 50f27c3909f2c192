/// A ZIP's central directory: the list of entries Office, LibreOffice and Java read a package
/// by, found from the end record at the end of the file. The local headers a head holds are what
/// a sender chose to put first; the central directory is what opens (review 24: a fake local
/// header inside a stored entry's data, and local names unlike the directory's, hid a VBA
/// project from a walk of the local headers).
///
/// Read from a complete item (`ItemBytes`), in pieces, so memory stays small whatever the
/// archive's size: every entry is looked at, but only the entries whose names tell a package's
/// kind are kept, with the first `keptOthers` of the rest (what `[Content_Types].xml`'s
/// `Default` rule needs); `Listing.isComplete` says whether any was dropped.
enum ZipDirectory {
  struct Listing {
    var entries: [ContentClassifier.ZipEntry] = []
    /// Whether every entry is in `entries`.
    var isComplete = true
  }

  /// Entries kept besides the telling ones.
  static let keptOthers = 4096
  /// How much of the directory is read at once.
  static let windowSize = 1 << 20
  /// Telling entries kept (a `.rels` part per sheet or slide: thousands in a large package).
  static let keptTelling = 65536

  /// The central directory's entries, in its order; nil when the item has no end record that
  /// leads to one (not a ZIP a package reader opens).
  static func listing(of bytes: ItemBytes) -> Listing? {
    guard let directory = locate(in: bytes) else { return nil }
    var listing = Listing()
    var keeper = Keeper()
    var offset = directory.start
    var window: [UInt8] = []
    var windowStart = directory.start
    while offset + 46 <= directory.end {
      // The next record, from the window or a fresh read at its start.
      if recordEnd(window, offset - windowStart) > window.count {
        guard let piece = bytes.read(offset..<min(directory.end, offset + windowSize)) else { break }
        (window, windowStart) = (piece, offset)
        guard recordEnd(window, 0) <= window.count else { break }
      }
      guard let (entry, length) = record(window, at: offset - windowStart, bias: directory.bias) else { break }
      offset += length
      if keeper.keeps(entry.name) {
        listing.entries.append(entry)
      } else {
        listing.isComplete = false
      }
    }
    return listing
  }

  /// Which entries a listing keeps: the first; those whose names tell a package's kind (the
  /// names `ContentClassifier.zipType` looks for, and the first in each Office folder), up to
  /// `keptTelling`; and the first `keptOthers` of the rest.
  private struct Keeper {
    var telling = 0
    var others = 0
    var folders: Set<String> = []

    mutating func keeps(_ name: String) -> Bool {
      let lowered = name.lowercased()
      if telling + others == 0 || ZipDirectory.isTelling(lowered) {
        telling += 1
        return telling <= keptTelling
      }
      if let folder = ["word/", "xl/", "ppt/", "visio/"].first(where: { lowered.hasPrefix($0) }), folders.insert(folder).inserted {
        telling += 1
        return telling <= keptTelling
      }
      others += 1
      return others <= keptOthers
    }
  }

  /// Where the central directory lies, and how far the archive was moved by bytes put before
  /// it (a self-extractor's program: `bias`, added to every offset the directory gives).
  private struct Location {
    var start: Int
    var end: Int
    var bias: Int
  }

  /// The end record nearest the item's end whose directory fits before it (the comment after it
  /// is at most 65,535 bytes); through the ZIP64 end record when its fields say so.
  private static func locate(in bytes: ItemBytes) -> Location? {
    let tailStart = max(0, bytes.count - 22 - 0xFFFF)
    guard let tail = bytes.read(tailStart..<bytes.count), tail.count >= 22 else { return nil }
    return tail.withUnsafeBytes { tail -> Location? in
      var at = tail.count - 22
      while at >= 0 {
        defer { at -= 1 }
        guard tail[at] == 0x50, tail[at + 1] == 0x4B, tail[at + 2] == 0x05, tail[at + 3] == 0x06 else { continue }
        let end = tailStart + at
        var size = ContentClassifier.le32(tail, at + 12)
        var start = ContentClassifier.le32(tail, at + 16)
        var recordEnd = end
        if size == 0xFFFF_FFFF || start == 0xFFFF_FFFF || ContentClassifier.le16(tail, at + 10) == 0xFFFF,
          let zip64 = zip64Directory(bytes, endRecord: end)
        {
          (start, size, recordEnd) = zip64
        }
        guard size >= 0, start >= 0, start <= recordEnd else { continue }
        // A size past the end record is read to the record, as unzip does (review 25: one byte
        // too many hid the directory); bytes before the archive move what fits.
        let bias = start + size <= recordEnd ? recordEnd - (start + size) : 0
        return Location(start: start + bias, end: recordEnd, bias: bias)
      }
      return nil
    }
  }

  /// The ZIP64 end record's directory offset and size, and where that record starts, from the
  /// locator just before the end record.
  private static func zip64Directory(_ bytes: ItemBytes, endRecord: Int) -> (Int, Int, Int)? {
    guard endRecord >= 20, let locator = bytes.read((endRecord - 20)..<endRecord), locator.count == 20,
      locator.starts(with: [0x50, 0x4B, 0x06, 0x07])
    else { return nil }
    let recordOffset = le64(locator, 8)
    guard recordOffset >= 0, recordOffset < endRecord, let record = bytes.read(recordOffset..<(recordOffset + 56)),
      record.count == 56, record.starts(with: [0x50, 0x4B, 0x06, 0x06])
    else { return nil }
    return (le64(record, 48), le64(record, 40), recordOffset)
  }

  /// Where the record at `at` in `window` ends, by its three lengths (past the window's end when
  /// they do not fit in it).
  private static func recordEnd(_ window: [UInt8], _ at: Int) -> Int {
    guard at + 46 <= window.count else { return Int.max }
    return window.withUnsafeBytes { raw in
      at + 46 + ContentClassifier.le16(raw, at + 28) + ContentClassifier.le16(raw, at + 30) + ContentClassifier.le16(raw, at + 32)
    }
  }

  /// The central directory record at `at` and its length; nil when it is not one.
  private static func record(_ window: [UInt8], at: Int, bias: Int) -> (ContentClassifier.ZipEntry, Int)? {
    window.withUnsafeBytes { raw -> (ContentClassifier.ZipEntry, Int)? in
      guard raw[at] == 0x50, raw[at + 1] == 0x4B, raw[at + 2] == 0x01, raw[at + 3] == 0x02 else { return nil }
      let method = ContentClassifier.le16(raw, at + 10)
      var compressed = ContentClassifier.le32(raw, at + 20)
      let uncompressed = ContentClassifier.le32(raw, at + 24)
      let (nameLength, extraLength) = (ContentClassifier.le16(raw, at + 28), ContentClassifier.le16(raw, at + 30))
      var local = ContentClassifier.le32(raw, at + 42)
      let nameStart = at + 46
      let name = String(decoding: UnsafeRawBufferPointer(rebasing: raw[nameStart..<(nameStart + nameLength)]), as: UTF8.self)
      // ZIP64 sizes and offset (extra field 1): each present, in APPNOTE's order, when its own
      // field is full.
      var extra = nameStart + nameLength
      let extraEnd = extra + extraLength
      while extra + 4 <= extraEnd {
        let (id, size) = (ContentClassifier.le16(raw, extra), ContentClassifier.le16(raw, extra + 2))
        let fieldEnd = min(extra + 4 + size, extraEnd)
        var field = extra + 4 + (uncompressed == 0xFFFF_FFFF ? 8 : 0)
        if id == 1, compressed == 0xFFFF_FFFF, field + 8 <= fieldEnd {
          compressed = le64(raw, field)
          field += 8
        }
        if id == 1, local == 0xFFFF_FFFF, field + 8 <= fieldEnd { local = le64(raw, field) }
        extra += 4 + size
      }
      var entry = ContentClassifier.ZipEntry(name: name, method: method)
      entry.localHeader = local + bias
      entry.compressedSize = compressed
      return (entry, recordEnd(window, at) - at)
    }
  }

  /// Whether an entry's (lowercased) name is one `ContentClassifier.zipType` looks for.
  static func isTelling(_ lowered: String) -> Bool {
    lowered == "[content_types].xml" || lowered.hasSuffix(".rels") || lowered.hasPrefix("_rels/")
      || lowered.hasPrefix("docprops/") || lowered == "mimetype" || lowered == "meta-inf/manifest.xml"
      || lowered == "content.xml" || lowered.hasSuffix("script-lc.xml") || lowered.hasSuffix("script-lb.xml")
      || lowered.hasPrefix("basic/") || lowered.hasPrefix("scripts/") || ContentClassifier.isMacroPart(lowered)
      || ["meta-inf/container.xml", "androidmanifest.xml", "classes.dex", "meta-inf/manifest.mf"].contains(lowered)
  }

  private static func le64(_ bytes: [UInt8], _ offset: Int) -> Int {
    bytes.withUnsafeBytes { le64($0, offset) }
  }

  private static func le64(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> Int {
    let low = ContentClassifier.le32(raw, offset)
    let high = ContentClassifier.le32(raw, offset + 4)
    // Beyond what a file here can hold: out of every range, so the caller stops.
    return high >= 0x8000 ? Int.max / 2 : high << 32 | low
  }
}
