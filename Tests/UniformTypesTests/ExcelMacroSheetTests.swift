import Testing

@testable import UniformTypes

/// Review 22: Excel 4.0 (XLM) macro sheets, which Excel runs on opening (`Auto_Open`) as it runs
/// a VBA project, went unseen: an xlsb and an xlsx with one were accepted as Office documents.
@Suite struct ExcelMacroSheetTests {
  let registry = TypeRegistry.system()

  func classify(_ head: [UInt8], _ mime: String) -> ContentType {
    ContentClassifier.classify(head: head, truncated: false, magic: MagicResult(mimeType: mime, description: ""), registry: registry)
  }

  static func types(_ overrides: String) -> [UInt8] {
    Array(
      (#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"# + overrides + "</Types>").utf8)
  }

  @Test func aWorkbookPackageWithAMacroSheetIsMacroEnabled() {
    let plain = Self.types(#"<Override PartName="/xl/workbook.xml" ContentType="application/xml"/>"#)
    // The part where Excel writes it.
    let byName = SampleBytes.zip([("[Content_Types].xml", plain), ("xl/workbook.xml", [0x3C]), ("xl/macrosheets/sheet1.xml", [0x3C])])
    #expect(classify(byName, "application/zip").type == "org.openxmlformats.spreadsheetml.sheet.macroenabled")
    // Declared under another name, XML and binary (xlsb), international too.
    for type in [
      "application/vnd.ms-excel.macrosheet+xml", "application/vnd.ms-excel.macrosheet", "application/vnd.ms-excel.intlmacrosheet+xml",
    ] {
      let declared = Self.types(#"<Override PartName="/xl/stuff.bin" ContentType="\#(type)"/>"#)
      let package = SampleBytes.zip([("[Content_Types].xml", declared), ("xl/workbook.bin", [0x83]), ("xl/stuff.bin", [0])])
      let content = classify(package, "application/zip")
      #expect(content.type == "org.openxmlformats.spreadsheetml.sheet.macroenabled", "\(type)")
      #expect(content.refinement?.contains("XLM macro sheet") == true, "\(content)")
    }
    // Reached through a relationship.
    let rels = Array(
      (#"<Relationships><Relationship Id="r9" Type="http://schemas.microsoft.com/office/2006/relationships/xlMacrosheet" "#
        + #"Target="x/y.bin"/></Relationships>"#).utf8)
    let related = SampleBytes.zip([("[Content_Types].xml", plain), ("xl/_rels/workbook.xml.rels", rels), ("xl/workbook.xml", [0x3C])])
    #expect(classify(related, "application/zip").type == "org.openxmlformats.spreadsheetml.sheet.macroenabled")
    // A worksheet is none.
    let sheets = SampleBytes.zip([("[Content_Types].xml", plain), ("xl/workbook.xml", [0x3C]), ("xl/worksheets/sheet1.xml", [0x3C])])
    #expect(classify(sheets, "application/zip").type == "org.openxmlformats.spreadsheetml.sheet")
  }

  /// Review 37: a web query refreshed when the workbook opens fetches what a server sends, as the
  /// `.iqy` of the same query (refused) does; one the owner refreshes by hand is no sign.
  @Test func aWorkbookWithAWebQueryRefreshedOnOpenIsMacroEnabled() {
    func connections(_ refresh: String) -> [UInt8] {
      Array(
        (#"<connections><connection id="1" name="q" type="4" \#(refresh)><webPr url="http://198.18.0.1/q"/>"#
          + "</connection></connections>").utf8)
    }
    let plain = Self.types(#"<Override PartName="/xl/workbook.xml" ContentType="application/xml"/>"#)
    let declared = Self.types(#"<Override PartName="/xl/q.xml" ContentType="\#(ContentClassifier.connectionsContentType)"/>"#)
    let byDefault = Self.types(#"<Default Extension="dat" ContentType="\#(ContentClassifier.connectionsContentType)"/>"#)
    for (types, part) in [(plain, "xl/connections.xml"), (declared, "xl/q.xml"), (byDefault, "xl/x.dat")] {
      for (refresh, sign) in [(#"refreshOnLoad="1""#, true), (#"refreshOnLoad="true""#, true), (#"refreshOnLoad="0""#, false), ("", false)]
      {
        let package = SampleBytes.zip([("[Content_Types].xml", types), ("xl/workbook.xml", [0x3C]), (part, connections(refresh))])
        let content = classify(package, "application/zip")
        let expected = sign ? "org.openxmlformats.spreadsheetml.sheet.macroenabled" : "org.openxmlformats.spreadsheetml.sheet"
        #expect(content.type.rawValue == expected, "\(part) \(refresh): \(content)")
        #expect(!sign || content.refinement?.contains("web query of http://198.18.0.1/q") == true, "\(content)")
      }
    }
    // Another part of that name is no connections part.
    let elsewhere = SampleBytes.zip([
      ("[Content_Types].xml", plain), ("xl/workbook.xml", [0x3C]), ("xl/other.xml", connections(#"refreshOnLoad="1""#)),
    ])
    #expect(classify(elsewhere, "application/zip").type == "org.openxmlformats.spreadsheetml.sheet")
  }

  /// A BoundSheet8 record: position, state (0 visible, 1 hidden, 2 very hidden), type (0 a
  /// worksheet, 1 a macro sheet), the name's length, whether it is UTF-16, the name.
  static func boundSheet(_ name: String, state: UInt8 = 0, type: UInt8, wide: Bool = false) -> [UInt8] {
    let characters: [UInt8] = wide ? name.utf16.flatMap { SampleBytes.le16(Int($0)) } : Array(name.utf8)
    return [0x85, 0x00] + SampleBytes.le16(8 + characters.count) + SampleBytes.le32(0x1234) + [state, type]
      + [UInt8(name.utf16.count), wide ? 1 : 0] + characters
  }

  @Test func aLegacyWorkbookWithAMacroSheetIsMacroEnabled() {
    let workbook = SampleBytes.compoundFile([("Workbook", 2)])
    let bof: [UInt8] = [0x09, 0x08, 0x10, 0x00] + [UInt8](repeating: 0, count: 16)
    let sheets = Self.boundSheet("Sheet1", type: 0)
    #expect(classify(workbook + bof + sheets, "application/vnd.ms-excel").type == "com.microsoft.excel.xls")
    for macro in [Self.boundSheet("Macro1", state: 2, type: 1), Self.boundSheet("Mäcro", type: 1, wide: true)] {
      let content = classify(workbook + bof + sheets + macro, "application/vnd.ms-excel")
      #expect(content.type == .macroEnabled && content.refinement?.contains("Excel 4.0 macro sheet") == true, "\(content)")
    }
    // Only in a workbook: the same bytes in a Word document are no sheet.
    let word = SampleBytes.compoundFile([("WordDocument", 2)])
    #expect(classify(word + bof + Self.boundSheet("Macro1", type: 1), "application/msword").type == "com.microsoft.word.doc")
    // Review 24: the bits MS-XLS says to ignore (above the state's two, above fHighByte) are.
    for (state, wideByte) in [(UInt8(0x06), UInt8(0)), (0xFC, 0), (0, 0x02)] {
      var macro = Self.boundSheet("Macro1", state: state, type: 1)
      macro[11] = wideByte
      #expect(classify(workbook + bof + sheets + macro, "application/vnd.ms-excel").type == .macroEnabled, "\(state) \(wideByte)")
    }
    // A length that does not agree with the name is no record.
    var broken = Self.boundSheet("Macro1", type: 1)
    broken[2] = 20
    #expect(classify(workbook + bof + broken, "application/vnd.ms-excel").type == "com.microsoft.excel.xls")
  }
  /// Review 35: 16 `Workbook` streams in storages listed before the root's own hid its macro
  /// sheet (only the first 16 were read); Excel reads the root's, which the directory's tree
  /// finds (left sibling, right sibling, child of each entry).
  @Test func theRootStoragesChildrenAreFoundThroughTheDirectorysTree() {
    let none = UInt32.max
    // 0 root → child 2; 2 "S00" (storage: left 1, right 3, child 4); 1 and 3 streams; 4 in S00.
    let links: [UInt32] = [none, none, 2, none, none, none, 1, 3, 4, none, none, none, none, none, none]
    #expect(CompoundFile.rootChildren(links, entries: 5)?.children == [1, 2, 3])
    #expect(CompoundFile.rootChildren(links, entries: 5)?.reached == [0, 1, 2, 3, 4])
    #expect(CompoundFile.rootChildren(links + [none, none, none], entries: 6)?.reached.contains(5) == false, "an orphan")
    // A loop (3's right sibling back to 2) ends; links that are not three an entry are none.
    var looped = links
    looped[10] = 2
    #expect(CompoundFile.rootChildren(looped, entries: 5)?.children == [1, 2, 3])
    #expect(CompoundFile.rootChildren(Array(links.prefix(12)), entries: 5) == nil)
  }

  /// Review 35: Excel 4.0 macro sheets in the older formats: a raw BIFF2/3/4 macro sheet was
  /// accepted as data under `.xls`, and Excel 5.0/95's BoundSheet (no fHighByte) never matched.
  @Test func olderExcelMacroSheetsAreMacroEnabled() {
    for version: UInt8 in [0x00, 0x02, 0x04] {
      let bof: [UInt8] = [0x09, version, 0x06, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00]
      let content = classify(bof + [UInt8](repeating: 0x20, count: 64), "application/octet-stream")
      #expect(content.type == .macroEnabled && content.refinement?.contains("macro sheet") == true, "\(version): \(content)")
      var worksheet = bof
      worksheet[6] = 0x10
      #expect(classify(worksheet + [UInt8](repeating: 0x20, count: 64), "application/octet-stream").type != .macroEnabled)
    }
    let workbook = SampleBytes.compoundFile([("Book", 2)])
    let bof5: [UInt8] = [0x09, 0x08, 0x08, 0x00, 0x00, 0x05, 0x05, 0x00, 0, 0, 0, 0]
    let name = Array("Macro1".utf8)
    let sheet5: [UInt8] = [0x85, 0x00] + SampleBytes.le16(7 + name.count) + [0, 0, 0, 0, 2, 1, UInt8(name.count)] + name
    let content = classify(workbook + bof5 + sheet5, "application/vnd.ms-excel")
    #expect(content.type == .macroEnabled && content.refinement?.contains("Macro1") == true, "\(content)")
  }
}
