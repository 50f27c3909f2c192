import TextEscaping

/// The XML parts of a zipped OpenDocument package, read for what a flat file is refused for:
/// scripts bound to events (`script:event-listener` in `office:event-listeners`, on `dom:load`
/// or a form control) and inline script elements. Review 28: an odt whose `content.xml` bound a
/// macro to `dom:load` was accepted, while the same element in a `.fodt` was refused; an
/// event bound to a macro or script of the installation (`location=application`) carries no code
/// of its own, the shape of CVE-2018-16858 and CVE-2019-9848. A flat file holds all that its
/// zipped form keeps in `content.xml`, `styles.xml`, `meta.xml` and `settings.xml`, and the flat
/// rule reads all of it: so do these, in the package and in its embedded objects (`Object 1/`).
extension ContentClassifier {
  /// The parts read, by their last segment (lowercased).
  static let openDocumentXMLParts: Set<String> = ["content.xml", "styles.xml", "meta.xml", "settings.xml"]

  /// How many bytes the XML parts of one package may cost to read, compressed and inflated. A
  /// spreadsheet's `content.xml` runs to tens of MiB; deflate shrinks blanks a thousandfold, so
  /// a small package could otherwise cost minutes. Past it is a sign, as for Office's parts.
  static let openDocumentPartsBudget = 256 << 20

  /// How many bytes of a part in UTF-16 are read (it is transcoded whole; LibreOffice writes
  /// UTF-8, so only a made file is in UTF-16, and one past this is a sign).
  static let openDocumentWidePartLimit = ContentClassifier.packagePartLimit

  /// The first macro element in the package's XML parts (`openDocumentMacroElement`, the flat
  /// rule), with the part it is in, in words; or that the parts are larger than share reads;
  /// nil when they show none. Each part is read a window at a time, whatever its size.
  static func openDocumentPartMacros(_ entries: [ZipEntry], in bytes: ItemBytes, budget limit: Int = openDocumentPartsBudget) -> String? {
    var budget = limit
    // The walk of the local headers and the central directory name most parts twice.
    var read: Set<Int> = []
    for entry in entries where openDocumentXMLParts.contains(String(Substring(lastSegment(entry.name.lowercased())))) {
      guard entry.method == 0 || entry.method == 8, let range = entry.dataRange(in: bytes), read.insert(range.lowerBound).inserted
      else { continue }
      let part = Escaping.escaped(entry.name, maximumLength: 60)
      switch partMacroElement(entry, range, in: bytes, budget: &budget) {
      case .none:
        continue
      case .element(let element):
        return "\(element) in \(part)"
      case .tooLarge:
        return "\(part) and the parts before it are larger than share reads (\(limit >> 20) MiB)"
      }
    }
    return nil
  }

  /// What one part's XML shows.
  private enum PartReading: Equatable {
    case none
    case element(String)
    case tooLarge
  }

  /// Reads one stored or deflated part at `range` a piece at a time, each piece looked at as
  /// `PartWindows` hands it out; `budget` is what reading may still cost.
  private static func partMacroElement(_ entry: ZipEntry, _ range: Range<Int>, in bytes: ItemBytes, budget: inout Int) -> PartReading {
    let pieceSize = 1 << 20
    var windows = PartWindows()
    var found: PartReading? = nil
    var offset = range.lowerBound
    func nextPiece() -> [UInt8]? {
      guard offset < range.upperBound else { return nil }
      guard budget > 0 else {
        found = .tooLarge
        return nil
      }
      guard let piece = bytes.read(offset..<min(range.upperBound, offset + pieceSize)) else { return nil }
      offset += piece.count
      budget -= piece.count
      return piece
    }
    func take(_ piece: UnsafeRawBufferPointer) -> Bool {
      if entry.method == 8 { budget -= piece.count }
      found = budget < 0 ? .tooLarge : windows.take(piece)
      return found == nil
    }
    if entry.method == 8 {
      _ = Inflate.inflating(nextPiece, format: .raw, pieceSize: pieceSize, take)
    } else {
      while found == nil, let piece = nextPiece() { _ = piece.withUnsafeBytes(take) }
    }
    return found ?? windows.finish()
  }

  /// A part's XML, a window at a time. Each window ends before the last `<` of its final
  /// overlap, which starts the next: no element name is cut in two and judged by its first half
  /// (`<office:scripts>` read as `<office:script`). A part in UTF-16 is kept and read whole.
  private struct PartWindows {
    static let overlap = 4 << 10
    var carried: [UInt8] = []
    var isFirst = true
    var isWide = false
    /// What the part's XML read so far binds its prefixes to.
    var bindings = ContentClassifier.PrefixBindings()

    /// What the window this piece completes shows: an element, that the part is too large to
    /// read (UTF-16 past its limit), or nil for nothing yet.
    mutating func take(_ piece: UnsafeRawBufferPointer) -> PartReading? {
      if isFirst {
        isFirst = false
        let start = Array(piece.prefix(2))
        isWide = [[0xFF, 0xFE], [0xFE, 0xFF], [0x3C, 0x00], [0x00, 0x3C]].contains(start)
      }
      carried += piece
      if isWide { return carried.count > ContentClassifier.openDocumentWidePartLimit ? .tooLarge : nil }
      let tail = max(0, carried.count - Self.overlap)
      let cut = carried[tail...].lastIndex(of: UInt8(ascii: "<")) ?? carried.count
      defer { carried.removeFirst(cut) }
      return carried.withUnsafeBytes { element(in: UnsafeRawBufferPointer(rebasing: $0[..<cut])) }
    }

    /// What the rest shows, once the part has ended.
    mutating func finish() -> PartReading {
      let utf8 = isWide ? Array(ContentClassifier.xmlTranscoded(carried).utf8) : carried
      return utf8.withUnsafeBytes { element(in: $0) } ?? .none
    }

    /// Looked into only where the bytes may hold an element (review 28: a spreadsheet's
    /// `content.xml` read as Characters cost 0.6 s of CPU per MiB); the namespaces it declares
    /// are taken in first, wherever they are.
    private mutating func element(in bytes: UnsafeRawBufferPointer) -> PartReading? {
      bindings.read(bytes)
      guard ContentClassifier.mayHoldOpenDocumentMacroElement(bytes) else { return nil }
      return ContentClassifier.openDocumentMacroElement(in: bytes, bindings: bindings).map { .element($0) }
    }
  }
}
