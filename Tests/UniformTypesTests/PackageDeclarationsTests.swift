import Foundation
import Testing

@testable import UniformTypes

/// Review 18, finding 3: Office finds a VBA project through the package's content types and
/// relationships, whatever its part is called.
@Suite("Office Open XML packages that declare a VBA project under another part name")
struct PackageDeclarationsTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  /// Written by Python's zipfile (deflated, as Office writes every part): [Content_Types].xml
  /// declares a macro-enabled main part and word/stuff.dat as application/vnd.ms-office.vbaProject;
  /// word/_rels/document.xml.rels points a vbaProject relationship at it.
  static let renamedPart = Array(
    Data(
      base64Encoded: [
        "UEsDBBQAAAAIAIRmg12O486QAQEAAO0BAAATAAAAW0NvbnRlbnRfVHlwZXNdLnhtbIWRy07DMBBF93yF5W0VO7BACDXpAsoSuigfMLXHiUv8kD",
        "0J7d/jtBULBHRp33vmjOzl6uAGNmHKNviG34qaM/QqaOu7hr9vX6oHzjKB1zAEjw0/Yuar9ma5PUbMrMA+N7wnio9SZtWjgyxCRF8SE5IDKsfU",
        "yQjqAzqUd3V9L1XwhJ4qmmfwdvmMBsaB2PpQrs+LJBwyZ0/n4uxqOMQ4WAVUcjl5/cNSXQyikKdO7m3Mi1Lg8lfDnPwtuHBv5WWS1cg2kOgVXG",
        "nJz5C01EGNrpDi/zHzni5XMyK+EQcqhbWH3YAlBesX12yZRmOEBrquCsZYhWLawSaFPSqaB8vTb7VfUEsDBBQAAAAIAIRmg11fM5VSlQAAAAcB",
        "AAALAAAAX3JlbHMvLnJlbHONzzsOwjAMBuCrRD5AnTIwoKZdWLoiLhAlblPRPOSE1+3JwEARA6N///osd8PDr+JGnJcYFLSNhKHvTrTqUoPslp",
        "RFbYSswJWSDojZOPI6NzFRqJspsteljjxj0uaiZ8KdlHvkTwO2phitAh5tC+L8TPSPHadpMXSM5uoplB8nvhpV1jxTUXCPbNG+46aygH2Hmxf7",
        "F1BLAwQUAAAACACEZoNdTNdhw1wAAABpAAAAEQAAAHdvcmQvZG9jdW1lbnQueG1sRcxBCoAgEEDRq0QHaKJFCzHvYmolODPiGNbtc9fy8+Drpj",
        "y7GwPV4cFEoto2XrVmBSDuCmhl4hyo28EFbe1ZTmhcfC7sgkikExMs87wC2kij0U3t7F8wGv65+QBQSwMEFAAAAAgAhGaDXSDzZqqZAAAA7gAA",
        "ABwAAAB3b3JkL19yZWxzL2RvY3VtZW50LnhtbC5yZWxzbc9BDoIwEAXQq5A5QAddmGgorNkZ4wXG0kKVMk07Er29XUp0Of//vGSa7hXmarUpe1",
        "407FQNXdtc7ExSgjz5mKuyWLKGSSSeELOZbKCsONqlNI5TIClnGjGSedBocV/XB0zfBmzNqh80pH44QnV9R/tjB28SZ3aiDAdk57z5p+J6o3Pi",
        "uzVSIEqjFQ1Zns6pgQSwbXDzSfsBUEsDBBQAAAAIAIRmg13Cjla1CQAAAEAAAAAOAAAAd29yZC9zdHVmZi5kYXS7cF7wAQMFAABQSwECFAMUAA",
        "AACACEZoNdjuPOkAEBAADtAQAAEwAAAAAAAAAAAAAAgAEAAAAAW0NvbnRlbnRfVHlwZXNdLnhtbFBLAQIUAxQAAAAIAIRmg11fM5VSlQAAAAcB",
        "AAALAAAAAAAAAAAAAACAATIBAABfcmVscy8ucmVsc1BLAQIUAxQAAAAIAIRmg11M12HDXAAAAGkAAAARAAAAAAAAAAAAAACAAfABAAB3b3JkL2",
        "RvY3VtZW50LnhtbFBLAQIUAxQAAAAIAIRmg10g82aqmQAAAO4AAAAcAAAAAAAAAAAAAACAAXsCAAB3b3JkL19yZWxzL2RvY3VtZW50LnhtbC5y",
        "ZWxzUEsBAhQDFAAAAAgAhGaDXcKOVrUJAAAAQAAAAA4AAAAAAAAAAAAAAIABTgMAAHdvcmQvc3R1ZmYuZGF0UEsFBgAAAAAFAAUAPwEAAIMDAA",
        "AAAA==",
      ].joined()
    ) ?? Data())

  func judge(_ name: String, _ bytes: [UInt8]) throws -> Verdict {
    try Self.policy.get().judge(name: name, head: bytes, totalSize: Int64(bytes.count), sniffer: try Self.sniffer.get())
  }

  func classify(_ bytes: [UInt8]) -> TypeIdentifier {
    ContentClassifier.classify(
      head: bytes, truncated: false, magic: MagicResult(mimeType: "application/zip", description: ""),
      registry: Self.registry
    ).type
  }

  @Test("a deflated package that declares its VBA project under another name is refused as macro-enabled, as docx and as doc")
  func renamedVBAPartIsRefused() throws {
    #expect(Self.renamedPart.count == 1240)
    for name in ["report.docx", "report.doc", "report"] {
      let verdict = try judge(name, Self.renamedPart)
      #expect(!verdict.accepted, "\(name): \(verdict.reason)")
      #expect(verdict.decidedBy == "com.microsoft.office.macro-enabled", "\(name): \(verdict.reason)")
    }
  }

  @Test("each declaration alone is enough: a vbaProject content type, a macro-enabled main part, a vbaProject relationship")
  func eachSignAlone() {
    let macroWord: TypeIdentifier = "org.openxmlformats.wordprocessingml.document.macroenabled"
    func types(_ overrides: String) -> [UInt8] {
      Array(
        (#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"# + overrides
          + "</Types>").utf8)
    }
    let vbaPart = SampleBytes.zip([
      ("[Content_Types].xml", types(#"<Override PartName="/word/a.bin" ContentType='application/vnd.ms-office.vbaProject'/>"#)),
      ("word/document.xml", [0x3C]),
    ])
    #expect(classify(vbaPart) == macroWord)
    let template = SampleBytes.zip([
      (
        "[Content_Types].xml",
        types(#"<Override PartName="/word/document.xml" ContentType="application/vnd.ms-word.template.macroEnabledTemplate.main+xml"/>"#)
      ),
      ("word/document.xml", [0x3C]),
    ])
    #expect(classify(template) == macroWord)
    let relationship = SampleBytes.zip([
      ("[Content_Types].xml", types("")), ("word/document.xml", [0x3C]),
      (
        "word/_rels/document.xml.rels",
        Array(
          #"<Relationships><Relationship Id="r" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" Target="x.dat"/></Relationships>"#
            .utf8)
      ),
    ])
    #expect(classify(relationship) == macroWord)
  }

  @Test("a Default that maps an extension to a VBA project is one only for a part that no Override names")
  func defaultMappings() {
    // As the review's plain.xlsb: bin is mapped to a VBA project, but the one .bin is the workbook.
    let types = Array(
      (#"<?xml version="1.0"?><Types><Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>"#
        + #"<Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/></Types>"#)
        .utf8)
    let plain = SampleBytes.zip([("[Content_Types].xml", types), ("xl/workbook.bin", [0])])
    #expect(classify(plain) == "org.openxmlformats.spreadsheetml.sheet")
    let project = SampleBytes.zip([("[Content_Types].xml", types), ("xl/workbook.bin", [0]), ("xl/code.bin", [0])])
    #expect(classify(project) == "org.openxmlformats.spreadsheetml.sheet.macroenabled")
  }

  @Test("a plain package, and one that only mentions the words in text, stay a plain docx")
  func plainPackagesStayPlain() throws {
    #expect(classify(SampleBytes.docx) == "org.openxmlformats.wordprocessingml.document")
    #expect(try judge("letter.docx", SampleBytes.docx).accepted)
    let mention = SampleBytes.zip([
      ("[Content_Types].xml", SampleBytes.contentTypesXML),
      ("word/document.xml", Array("<w:t>ContentType=\"application/vnd.ms-office.vbaProject\"</w:t>".utf8)),
    ])
    #expect(classify(mention) == "org.openxmlformats.wordprocessingml.document")
  }
}
