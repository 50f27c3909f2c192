import Foundation

/// Rows of data as a command prints them: for people on a terminal, aligned columns under a
/// header; on a pipe, the cells separated by tabs and no header, as scripts have read them.
/// Cells are shown as given: escape untrusted text before adding it.
struct Table {
  var header: [String]
  var rows: [[String]] = []

  init(_ header: String...) { self.header = header }

  mutating func add(_ cells: String...) { rows.append(cells) }

  /// The lines to print: aligned with a header when `aligned`, else tab-separated. Aligned in
  /// `width` columns when given, the `shrinking` column's cells are cut in the middle (`…`) so
  /// the lines fit, down to 12 columns (review 30: one 240-byte name pushed every row past it).
  func lines(aligned: Bool, width: Int? = nil, shrinking: Int = 0) -> [String] {
    guard aligned else { return rows.map { $0.joined(separator: "\t") } }
    var all = [header] + rows
    let columns = all.map(\.count).max() ?? 0
    var widths = (0..<columns).map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
    let total = widths.reduce(0, +) + 2 * max(0, columns - 1)
    if let width, total > width - 1, widths.indices.contains(shrinking), widths[shrinking] > 12 {
      widths[shrinking] = max(12, widths[shrinking] - (total - (width - 1)))
      for row in all.indices where all[row].indices.contains(shrinking) {
        all[row][shrinking] = Self.cut(all[row][shrinking], to: widths[shrinking])
      }
    }
    return all.map { row in
      // Empty cells at the end are no column to pad for (review 16: trailing blanks).
      let cells = Array(row.reversed().drop(while: \.isEmpty).reversed())
      var line = ""
      for (column, cell) in cells.enumerated() {
        let last = column == cells.count - 1
        line += last ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
      }
      return line
    }
  }

  /// `text` in at most `width` characters: its start and its end (a name's extension) with `…`
  /// between them.
  static func cut(_ text: String, to width: Int) -> String {
    guard text.count > width else { return text }
    let tail = (width - 1) / 2
    return String(text.prefix(width - 1 - tail)) + "…" + String(text.suffix(tail))
  }

  /// Prints the table to stdout: aligned when stdout is a terminal, fitting its width by
  /// cutting the `shrinking` column's cells when one is given.
  func print(to terminal: Terminal, shrinking: Int? = nil) {
    let width = shrinking.map { _ in terminal.outputColumns }
    for line in lines(aligned: terminal.stdoutIsTerminal, width: width, shrinking: shrinking ?? 0) { terminal.out(line) }
  }
}

/// Times for people: the local time, to the minute (`2026-12-01 14:03`), or with seconds.
enum LocalTime {
  static func string(_ date: Date, seconds: Bool = false) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = .current
    formatter.dateFormat = seconds ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd HH:mm"
    return formatter.string(from: date)
  }
}
