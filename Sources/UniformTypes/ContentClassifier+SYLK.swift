/// SYLK (Symbolic Link) sheets by content. Excel opens a file whose bytes start with `ID` as
/// SYLK whatever its name says (`.csv`, its default handler on Windows, `.xls`, `.txt`): the
/// "SYLK: file format is not valid" message on CSVs whose first column is `ID`. A SYLK sheet
/// holds formulas (`C;…;E…`), named formulas (`NN;…;E…`, `NAuto_open` among them) and, with
/// `O;E`, marks itself an Excel 4.0 macro sheet, whose `EXEC`/`CALL` run when it opens (review
/// 33: such a sheet was refused as `.slk` and accepted as `report.csv`, and the published way
/// to send one is to dress it as a CSV). The `.slk` name stays refused whatever it holds.
extension ContentClassifier {
  static let sylkSheet: TypeIdentifier = "com.microsoft.excel.sylk"

  /// Whether `head` starts as Excel takes a SYLK sheet to: `ID` (in capitals, the first bytes;
  /// a CSV whose header is `id` or `"ID"` is text to Excel), then the record's end or a `;`.
  static func isSYLK(_ head: UnsafeRawBufferPointer) -> Bool {
    head.count >= 3 && startsWith(head, [0x49, 0x44]) && [0x3B, 0x0D, 0x0A].contains(head[2])
  }

  /// What a SYLK sheet holds that runs, in words: its first macro-sheet option or formula
  /// record; nil when `head` is no SYLK sheet or holds none. `whole`: all of an item that goes
  /// on past `head`, read a piece at a time (a record may lie past megabytes of cells).
  static func sylkMacros(_ head: UnsafeRawBufferPointer, whole: ItemBytes?) -> String? {
    guard isSYLK(head) else { return nil }
    var records = SYLKRecords()
    guard let whole, whole.count > head.count else { return records.take(head).map(SYLKRecords.evidence) }
    let size = 1 << 20
    var start = 0
    while start < whole.count, let piece = whole.read(start..<(start + size)), !piece.isEmpty {
      if let found = piece.withUnsafeBytes({ records.take($0) }) { return SYLKRecords.evidence(found) }
      start += piece.count
    }
    return nil
  }

  /// SYLK's records, a line each (`C;X1;Y1;K0;ESUM(…)`): a type, then fields after `;`, each
  /// named by its first letter; `;;` is a `;` inside a field. Byte by byte, carried from one
  /// piece to the next.
  struct SYLKRecords {
    /// Which records can run something by their `E` field: a cell's, a name's or an external
    /// name's formula, a sheet's macro-sheet option.
    enum Kind {
      case formula(String)
      case macroSheet
      case other
    }

    private enum State {
      case type([UInt8])
      case field(Kind)
      case separator(Kind)
    }

    private var state = State.type([])

    /// The first record in `bytes` (after those taken before) whose `E` field runs something.
    mutating func take(_ bytes: UnsafeRawBufferPointer) -> Kind? {
      for byte in bytes {
        if byte == 0x0A || byte == 0x0D {
          state = .type([])
          continue
        }
        switch state {
        case .type(var name):
          guard byte != UInt8(ascii: ";") else {
            state = .separator(Self.kind(name))
            continue
          }
          if name.count < 3 { name.append(byte) }
          state = .type(name)
        case .field(let kind):
          if byte == UInt8(ascii: ";") { state = .separator(kind) }
        case .separator(let kind):
          if byte == UInt8(ascii: "E"), !Self.isOther(kind) { return kind }
          state = .field(kind)
        }
      }
      return nil
    }

    private static func kind(_ name: [UInt8]) -> Kind {
      switch String(decoding: name, as: UTF8.self) {
      case "C": .formula("C")
      case "NN": .formula("NN")
      case "NE": .formula("NE")
      case "O": .macroSheet
      default: .other
      }
    }

    private static func isOther(_ kind: Kind) -> Bool {
      if case .other = kind { return true }
      return false
    }

    static func evidence(_ kind: Kind) -> String {
      switch kind {
      case .macroSheet: "SYLK sheet marked an Excel 4.0 macro sheet (O;E)"
      case .formula(let record): "SYLK sheet with a formula (\(record);…;E…)"
      case .other: "SYLK sheet"
      }
    }
  }
}
