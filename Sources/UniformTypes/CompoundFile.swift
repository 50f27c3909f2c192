import TextEscaping

/// The directory of an OLE2 compound file (MS-CFB), the container of doc, xls, ppt and msi files,
/// as far as a head holds it. Pure: reads the bytes it is given, nothing else.
///
/// The header (512 bytes) gives the sector size (`1 << shift` at 0x1E: 512 in version 3, 4,096
/// in version 4), the first directory sector (0x30) and the first 109 FAT sectors (from 0x4C).
/// Sector `n` starts at `(n + 1) × size`; the FAT links each sector to the next of its chain.
/// The directory is a chain of 128-byte entries: a UTF-16LE name (its byte length, with the
/// terminating NUL, at 64) and the object type at 66 (1 a storage, 2 a stream).
enum CompoundFile {
  static let signature: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]

  /// Where Word (`Macros`) and Excel (`_VBA_PROJECT_CUR`) keep a VBA project, and what it holds
  /// (`VBA`, `_VBA_PROJECT`); upper-cased, as the format compares names.
  static let vbaProjectNames: Set<String> = ["MACROS", "_VBA_PROJECT_CUR", "VBA", "_VBA_PROJECT"]

  /// What shows, in `head`, that the document carries macros: a VBA project's storage, or in an
  /// Excel workbook an Excel 4.0 macro sheet; nil when neither shows.
  static func macros(in head: UnsafeRawBufferPointer) -> String? {
    let names = entryNames(in: head)
    if let entry = names.first(where: { vbaProjectNames.contains($0.uppercased()) }) {
      return "OLE2 document with a VBA project (\(Escaping.escaped(entry, maximumLength: 40)))"
    }
    guard names.contains(where: { ["WORKBOOK", "BOOK"].contains($0.uppercased()) }), let sheet = excel4MacroSheet(in: head)
    else { return nil }
    return "Excel workbook with an Excel 4.0 macro sheet (\(Escaping.escaped(sheet, maximumLength: 40)))"
  }

  /// The name of the first Excel 4.0 (XLM) macro sheet in the BIFF records within `head`: a
  /// BoundSheet8 record (type 0x0085) whose sheet type (`dt`) is 1, a macro sheet, visible,
  /// hidden or very hidden. Records are looked for by their shape (type, a length that agrees
  /// with the sheet name's, the state and type bytes) rather than by following the Workbook
  /// stream's chain: its first sectors are near the start of a workbook, where the head holds
  /// them (review 22: the XLM macro wave of 2020–22 used such sheets).
  static func excel4MacroSheet(in head: UnsafeRawBufferPointer) -> String? {
    var from = 0
    while let record = ByteSearch.firstIndex(of: [0x85, 0x00], in: head, from: from) {
      from = record + 1
      guard record + 12 <= head.count else { break }
      let length = ContentClassifier.le16(head, record + 2)
      // Only the low bits of the state (`hsState`) and of the name's `fHighByte` mean anything:
      // MS-XLS says the rest MUST be ignored, and Excel does (review 24: set, they hid the sheet).
      let (state, type, count, wide) = (head[record + 8] & 0x03, head[record + 9], Int(head[record + 10]), head[record + 11] & 0x01)
      guard type == 1, state <= 2, count > 0, record + 4 + length <= head.count else { continue }
      // Excel 5.0/95 (BIFF5, a `Book` stream) writes the name's bytes with no fHighByte before
      // them (review 35: its macro sheets were never found).
      if length == 7 + count {
        return String(String.UnicodeScalarView(head[(record + 11)..<(record + 4 + length)].map { Unicode.Scalar($0) }))
      }
      guard length == 8 + count * (wide == 1 ? 2 : 1) else { continue }
      let name = UnsafeRawBufferPointer(rebasing: head[(record + 12)..<(record + 4 + length)])
      if wide == 1 {
        return String(decoding: stride(from: 0, to: name.count, by: 2).map { UInt16(name[$0]) | UInt16(name[$0 + 1]) << 8 }, as: UTF16.self)
      }
      return String(String.UnicodeScalarView(name.map { Unicode.Scalar($0) }))
    }
    return nil
  }

  /// The names of the storages and streams in the directory sectors that lie within `head`, in
  /// directory order, following the FAT from the first while its sectors are in the head too.
  static func entryNames(in head: UnsafeRawBufferPointer) -> [String] {
    guard head.count >= 512, ContentClassifier.startsWith(head, signature) else { return [] }
    let shift = ContentClassifier.le16(head, 0x1E)
    guard shift == 9 || shift == 12 else { return [] }
    let size = 1 << shift
    var names: [String] = []
    var sector = ContentClassifier.le32(head, 0x30)
    // Each step reads a sector of the head: more steps than it has sectors is a loop.
    for _ in 0..<(head.count >> shift) {
      guard let start = offset(of: sector, shift: shift), start + size <= head.count else { break }
      for entry in stride(from: start, to: start + size, by: 128) {
        if let name = entryName(head, at: entry) { names.append(name) }
      }
      guard let next = nextSector(after: sector, in: head, shift: shift) else { break }
      sector = next
    }
    return names
  }

  /// The next sector of `sector`'s chain, from the FAT sector that holds its entry when that
  /// lies in the head; nil at the chain's end or outside the head.
  private static func nextSector(after sector: Int, in head: UnsafeRawBufferPointer, shift: Int) -> Int? {
    let perFATSector = (1 << shift) / 4
    let index = sector / perFATSector
    guard index < 109, let fat = offset(of: ContentClassifier.le32(head, 0x4C + 4 * index), shift: shift) else { return nil }
    let position = fat + 4 * (sector % perFATSector)
    guard position + 4 <= head.count else { return nil }
    return ContentClassifier.le32(head, position)
  }

  /// Where sector `sector` starts; nil for the special values (free, end of chain, FAT...).
  static func offset(of sector: Int, shift: Int) -> Int? {
    sector <= 0xFFFF_FFFA ? (sector + 1) << shift : nil
  }

  /// The name of the directory entry at `offset` when it is a storage or a stream.
  static func entryName(_ head: UnsafeRawBufferPointer, at offset: Int) -> String? {
    let type = head[offset + 66]
    let length = ContentClassifier.le16(head, offset + 64)
    guard type == 1 || type == 2, length >= 2, length <= 64, length % 2 == 0 else { return nil }
    // Up to the first NUL: a length that counts more than the one terminating NUL still names
    // the same entry to a reader that compares NUL-terminated names (review 24).
    let units = (0..<(length / 2 - 1)).map { UInt16(ContentClassifier.le16(head, offset + 2 * $0)) }.prefix { $0 != 0 }
    return String(decoding: units, as: UTF16.self)
  }
}
