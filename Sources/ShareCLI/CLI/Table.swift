import Foundation

/// Rows of data as a command prints them: for people on a terminal, aligned columns under a
/// header; on a pipe, the cells separated by tabs and no header, as scripts have read them.
/// Cells are shown as given: escape untrusted text before adding it.
struct Table {
  var header: [String]
  var rows: [[String]] = []

  init(_ header: String...) { self.header = header }

  mutating func add(_ cells: String...) { rows.append(cells) }

  /// The lines to print: aligned with a header when `aligned`, else tab-separated.
  func lines(aligned: Bool) -> [String] {
    guard aligned else { return rows.map { $0.joined(separator: "\t") } }
    let all = [header] + rows
    let columns = all.map(\.count).max() ?? 0
    let widths = (0..<columns).map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
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

  /// Prints the table to stdout: aligned when stdout is a terminal.
  func print(to terminal: Terminal) {
    for line in lines(aligned: terminal.stdoutIsTerminal) { terminal.out(line) }
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
