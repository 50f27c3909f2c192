import Testing

@testable import UniformTypes

/// Review 33, finding 1: Excel opens a file that starts `ID;` as a SYLK sheet whatever its name,
/// and a SYLK sheet with an Excel 4.0 auto-open macro was accepted as `report.csv` and
/// `report.xls`; only the `.slk` name was refused.
@Suite("SYLK sheets by content")
struct SYLKContentTests {
  static let policy = Result { try TypePolicy(registry: .system(), declarations: .builtinDefault) }

  /// The review's sheet: an Excel 4.0 macro sheet whose `Auto_open` name runs `CALL`.
  static let macroSheet =
    "ID;P\r\nO;E\r\nNN;NAuto_open;ER1C1\r\nC;X1;Y1;N;K0;ECALL(\"Kernel32\",\"WinExec\",\"JCJ\",\"calc.exe\",0)\r\nC;X1;Y2;K0;EHALT()\r\nE\r\n"

  func check(_ text: String, as name: String) throws -> CheckReport {
    try Self.policy.get().check(writing: SampleBytes.utf8(text), as: name)
  }

  @Test("a SYLK macro sheet is refused as a macro document under a CSV, xls, txt or no name")
  func aMacroSheetIsRefusedUnderAnyName() throws {
    for name in ["report.csv", "report.xls", "report.txt", "report"] {
      let report = try check(Self.macroSheet, as: name)
      #expect(!report.verdict.accepted, "\(name): \(report.verdict)")
      #expect(report.content?.type == "com.microsoft.excel.sylk", "\(name): \(String(describing: report.content))")
      #expect(report.content?.refinement?.contains("O;E") == true, "\(String(describing: report.content))")
    }
  }

  @Test("each record that runs something makes the sheet a macro document: a cell's, a name's, an external name's formula")
  func eachFormulaRecordCounts() throws {
    for (record, shown) in [
      ("C;X1;Y1;K0;EEXEC(\"calc\")", "C;…;E"), ("NN;NAuto_open;ER1C1", "NN;…;E"), ("NE;FBOOK.XLS;ER1C1", "NE;…;E"),
      ("C;X1;;;EEXEC(\"calc\")", "C;…;E"),
    ] {
      let report = try check("ID;P\r\n\(record)\r\nE\r\n", as: "data.csv")
      #expect(!report.verdict.accepted, "\(record): \(report.verdict)")
      #expect(report.content?.refinement?.contains(shown) == true, "\(record): \(String(describing: report.content))")
    }
  }

  @Test("a formula past the part share reads first is found: the sheet is read whole")
  func aFormulaPastTheHeadIsFound() throws {
    let cells = (1...20_000).map { "C;X1;Y\($0);K\($0)\r\n" }.joined()
    let report = try check("ID;P\r\n" + cells + "C;X2;Y1;EEXEC(\"calc\")\r\nE\r\n", as: "numbers.csv")
    #expect(!report.verdict.accepted, "\(report.verdict)")
    #expect(report.content?.type == "com.microsoft.excel.sylk", "\(String(describing: report.content))")
  }

  @Test("CSVs stay accepted: a semicolon CSV whose first column is ID, a lowercase id, a SYLK sheet of values only")
  func everydayTablesStayAccepted() throws {
    for (text, name) in [
      ("ID;Name;Email\r\n1;Emma;emma@example.org\r\n2;Carl;carl@example.org\r\n", "people.csv"),
      ("id,name\n1,Eve\n", "people.csv"),
      ("ID,name\n1,Eve\n", "people.csv"),
      ("ID;P\r\nC;Y1;X1;K\"hello\"\r\nC;Y2;X1;K42\r\nE\r\n", "values.csv"),
    ] {
      let report = try check(text, as: name)
      #expect(report.verdict.accepted, "\(text): \(report.verdict)")
      #expect(report.content?.type != "com.microsoft.excel.sylk", "\(text): \(String(describing: report.content))")
    }
  }
}
