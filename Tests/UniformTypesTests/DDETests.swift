import Testing

@testable import UniformTypes

/// Review 43: Office documents whose DDE fields, formulas or links start a program when the
/// document opens (`DDEAUTO c:\windows\system32\cmd.exe "/k calc.exe"`, `=cmd|' /C calc'!A0`)
/// were accepted as plain documents.
@Suite struct DDETests {
  let registry = TypeRegistry.system()

  func classify(_ head: [UInt8], _ mime: String) -> ContentType {
    ContentClassifier.classify(head: head, truncated: false, magic: MagicResult(mimeType: mime, description: ""), registry: registry)
  }

  static let types = Array(
    #"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/xml"/></Types>"#
      .utf8)

  static func document(_ body: String) -> [UInt8] {
    Array(
      (#"<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p>"#
        + body + "</w:p></w:body></w:document>").utf8)
  }

  static func docx(_ body: String, part: String = "word/document.xml") -> [UInt8] {
    SampleBytes.zip([("[Content_Types].xml", types), (part, document(body))])
  }

  @Test func aWordFieldThatRunsAProgramIsMacroEnabled() {
    let fields = [
      #"<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> DDEAUTO c:\\windows\\system32\\cmd.exe "/k calc.exe"</w:instrText></w:r>"#,
      #"<w:fldSimple w:instr='DDEAUTO c:\\windows\\system32\\cmd.exe "/k calc.exe"'><w:r><w:t>x</w:t></w:r></w:fldSimple>"#,
      // Split over runs, as Word joins them, and in another case.
      #"<w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:instrText> dd</w:instrText></w:r><w:r><w:instrText>eAuTo "c:\\x.exe"</w:instrText></w:r>"#,
      #"<w:r><w:instrText> DDE "c:\\x.exe" "a" "b"</w:instrText></w:r>"#,
    ]
    for field in fields {
      for part in ["word/document.xml", "word/header1.xml", "word/footnotes.xml"] {
        let content = classify(Self.docx(field, part: part), "application/zip")
        #expect(content.type == "org.openxmlformats.wordprocessingml.document.macroenabled", "\(part) \(field): \(content)")
        #expect(content.refinement?.contains("DDE field") == true, "\(content)")
      }
    }
    // Other fields, and the letters in text, are none.
    for body in [
      #"<w:r><w:instrText> HYPERLINK "https://example.org/a" </w:instrText></w:r>"#, "<w:r><w:t>DDEAUTO is a Word field</w:t></w:r>",
      #"<w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:t>the DDE protocol</w:t></w:r>"#,
    ] {
      #expect(classify(Self.docx(body), "application/zip").type == "org.openxmlformats.wordprocessingml.document", "\(body)")
    }
  }

  static func workbook(_ part: String, _ xml: String) -> [UInt8] {
    let types = Array(
      #"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/xml"/></Types>"#
        .utf8)
    return SampleBytes.zip([("[Content_Types].xml", types), ("xl/workbook.xml", [0x3C]), (part, Array(xml.utf8))])
  }

  @Test func aWorkbookThatAsksADDEServerIsMacroEnabled() {
    let macro = "org.openxmlformats.spreadsheetml.sheet.macroenabled"
    let formula = Self.workbook(
      "xl/worksheets/sheet1.xml", #"<worksheet><sheetData><row><c r="A1"><f>cmd|' /C calc'!A0</f></c></row></sheetData></worksheet>"#)
    #expect(classify(formula, "application/zip").type.rawValue == macro)
    let link = Self.workbook(
      "xl/externalLinks/externalLink1.xml",
      #"<externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><ddeLink ddeService="cmd" ddeTopic="/c calc.exe"><ddeItems><ddeItem name="A0" advise="1"/></ddeItems></ddeLink></externalLink>"#
    )
    let linked = classify(link, "application/zip")
    #expect(linked.type.rawValue == macro && linked.refinement?.contains("DDE link to cmd") == true, "\(linked)")
    // Review 46: in a defined name a cell refers to, a conditional format, a validation.
    let named = Self.workbook(
      "xl/workbook.xml", #"<workbook><definedNames><definedName name="x">cmd|' /C calc'!A0</definedName></definedNames></workbook>"#)
    #expect(classify(named, "application/zip").type.rawValue == macro)
    for rule in [
      #"<conditionalFormatting sqref="A1"><cfRule type="expression"><formula>cmd|' /C calc'!A0</formula></cfRule></conditionalFormatting>"#,
      #"<dataValidations><dataValidation type="list"><formula1>cmd|' /C calc'!A0</formula1></dataValidation></dataValidations>"#,
    ] {
      #expect(
        classify(Self.workbook("xl/worksheets/sheet1.xml", "<worksheet>\(rule)</worksheet>"), "application/zip").type.rawValue == macro)
    }
    // A | in a string, or an or-like text, is no DDE formula.
    for plain in [#"<f>CONCAT("a|b!", A1)</f>"#, "<f>SUM(A1:A3)</f>", "<f>A1&amp;\"|\"</f>"] {
      let sheet = Self.workbook("xl/worksheets/sheet1.xml", "<worksheet><sheetData><row><c>\(plain)</c></row></sheetData></worksheet>")
      #expect(classify(sheet, "application/zip").type == "org.openxmlformats.spreadsheetml.sheet", "\(plain)")
    }
  }

  /// Review 46: "CSV injection", and a SpreadsheetML 2003 sheet Excel opens under .xml and .xls.
  @Test func aSheetWrittenAsTextThatAsksADDEServerIsMacroEnabled() {
    for text in [
      "Name,Total\nAlice,=cmd|' /C calc'!A0\n", "a;b\n\"+cmd|' /C calc'!A0\";x\n", "x\t@SUM(cmd|'/c calc'!A0)\n",
      #"<?xml version="1.0"?><?mso-application progid="Excel.Sheet"?><Workbook xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet><Table><Row><Cell ss:Formula="=cmd|' /C calc'!A0"/></Row></Table></Worksheet></Workbook>"#,
    ] {
      let content = classify(Array(text.utf8), "text/plain")
      #expect(content.type == .macroEnabled && content.refinement?.contains("DDE formula") == true, "\(text): \(content)")
    }
    for text in [
      "Name,Total\nAlice,=SUM(A1:A3)\n", "x = a | b ! c\n", "| a | b! |\n", "echo hi | grep -v x; echo done!\n",
      #"<Cell ss:Formula="=SUM(R1C1:R2C1)"/>"#,
    ] {
      #expect(classify(Array(text.utf8), "text/plain").type != .macroEnabled, "\(text)")
    }
  }

  @Test func anRTFFieldThatRunsAProgramIsMacroEnabled() {
    let fields = [
      #"{\rtf1\ansi{\field{\*\fldinst DDEAUTO c:\\windows\\system32\\cmd.exe "/k calc.exe"}{\fldrslt x}}}"#,
      #"{\rtf1{\field{\*\fldinst {\rtlch\fcs1 DDE}{AUTO c:\\x.exe "a"}}}}"#,
      #"{\rtf1{\field{\*\fldinst \'44\'44\'45 "c:\\x.exe" "a" "b"}}}"#,
    ]
    for field in fields {
      let content = classify(Array(field.utf8), "text/rtf")
      #expect(content.type == .macroEnabled && content.refinement?.contains("DDE field") == true, "\(field): \(content)")
    }
    for plain in [#"{\rtf1{\field{\*\fldinst HYPERLINK "https://example.org/"}{\fldrslt DDE}}}"#, #"{\rtf1 DDEAUTO fields are old}"#] {
      #expect(classify(Array(plain.utf8), "text/rtf").type != .macroEnabled, "\(plain)")
    }
  }
}
