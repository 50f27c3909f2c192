import Foundation
import Testing

@testable import ShareCLI

/// Tables: aligned under a header for people, tab-separated for scripts.
@Suite struct TableTests {
  @Test func alignedLinesHaveAHeaderAndColumnsThatLineUp() {
    var table = Table("NAME", "SIZE", "TYPE")
    table.add("photo.png", "68 bytes", "PNG image")
    table.add("a-much-longer-name.txt", "2 bytes", "plain text")
    #expect(
      table.lines(aligned: true) == [
        "NAME                    SIZE      TYPE",
        "photo.png               68 bytes  PNG image",
        "a-much-longer-name.txt  2 bytes   plain text",
      ])
    #expect(table.lines(aligned: false) == ["photo.png\t68 bytes\tPNG image", "a-much-longer-name.txt\t2 bytes\tplain text"])
  }

  /// Review 16: a row whose last cells were empty ended in blanks (`share peers`, `share trust`).
  @Test func aRowEndsAtItsLastCellThatSaysSomething() {
    var table = Table("NAME", "ID", "STATUS")
    table.add("lab-b", "b0b0b0b0b0b0", "")
    table.add("laptop", "c0c0c0c0c0c0", "(contact)")
    #expect(table.lines(aligned: true) == ["NAME    ID            STATUS", "lab-b   b0b0b0b0b0b0", "laptop  c0c0c0c0c0c0  (contact)"])
    #expect(table.lines(aligned: false)[0] == "lab-b\tb0b0b0b0b0b0\t")
  }

  /// Review 30: one 240-character name pushed every row of `share inbox` past the terminal.
  @Test func aLongNameIsCutInTheMiddleSoTheLinesFitTheTerminal() {
    var table = Table("NAME", "SIZE", "TYPE")
    let long = String(repeating: "x", count: 240) + ".pdf"
    table.add(long, "1 byte", "PDF")
    table.add("a.txt", "2 bytes", "text")
    let lines = table.lines(aligned: true, width: 40, shrinking: 0)
    #expect(lines.allSatisfy { $0.count <= 39 }, "\(lines)")
    #expect(lines[1].contains("x…x") && lines[1].contains("xxx.pdf  1 byte"), "\(lines)")
    #expect(lines[2].hasPrefix("a.txt "), "\(lines)")
    // Wide enough: nothing cut; a pipe gets every name whole.
    #expect(table.lines(aligned: true, width: 400, shrinking: 0) == table.lines(aligned: true))
    #expect(table.lines(aligned: false)[0].hasPrefix(long))
    // Never cut below 12 columns, however narrow.
    let narrow = table.lines(aligned: true, width: 10, shrinking: 0)
    #expect(narrow[1].hasPrefix("xxxxxx…x.pdf  1 byte"), "\(narrow)")
    #expect(Table.cut(long, to: 12).count == 12 && Table.cut("short", to: 12) == "short")
  }

  @Test func localTimesAreToTheMinuteInThisTimeZone() {
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    let text = LocalTime.string(date)
    #expect(text.count == 16 && text.dropFirst(10).first == " ", "\(text)")
    let formatter = DateFormatter()
    formatter.timeZone = .current
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    #expect(text == formatter.string(from: date))
    #expect(LocalTime.string(date, seconds: true).hasPrefix(text + ":"))
  }
}
