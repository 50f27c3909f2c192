import Testing

@testable import UniformTypes

/// Review 18, finding 7: `.xlsb` is Excel's ordinary binary format, judged by content like `.xls`.
@Suite("Excel binary workbooks (xlsb)")
struct BinaryWorkbookTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  /// As Excel's xlsb declares its parts: the main part is "macroEnabled" with or without VBA.
  static let contentTypes = Array(
    (#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"#
      + #"<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>"#
      + #"<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>"#
      + #"<Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/></Types>"#)
      .utf8)
  static let rels = Array(
    (#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
      + #"<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.bin"/></Relationships>"#)
      .utf8)
  static let plain = SampleBytes.zip([
    ("[Content_Types].xml", contentTypes), ("_rels/.rels", rels), ("xl/workbook.bin", [0x83, 0x01, 0x00]),
  ])
  static let withVBA = SampleBytes.zip([
    ("[Content_Types].xml", contentTypes), ("_rels/.rels", rels), ("xl/workbook.bin", [0x83, 0x01, 0x00]),
    ("xl/vbaProject.bin", [0xD0, 0xCF, 0x11, 0xE0]),
  ])

  func judge(_ name: String, _ bytes: [UInt8]) throws -> Verdict {
    try Self.policy.get().judge(name: name, head: bytes, totalSize: Int64(bytes.count), sniffer: try Self.sniffer.get())
  }

  @Test("an xlsb passes the name stage and is accepted when it carries no VBA project")
  func plainWorkbookIsAccepted() throws {
    let policy = try Self.policy.get()
    #expect(policy.judge(name: "big.xlsb", kind: .file).accepted)
    let verdict = try judge("big.xlsb", Self.plain)
    #expect(verdict.accepted, "\(verdict.reason)")
    #expect(verdict.decidedBy == "Office documents")
  }

  @Test("an xlsb with a VBA project is refused as macro-enabled, as xlsm and other macro kinds stay refused by name")
  func workbookWithVBAIsRefused() throws {
    let verdict = try judge("big.xlsb", Self.withVBA)
    #expect(!verdict.accepted && verdict.decidedBy == "com.microsoft.office.macro-enabled", "\(verdict.reason)")
    let policy = try Self.policy.get()
    for name in ["book.xlsm", "book.xltm", "addin.xlam"] {
      #expect(!policy.judge(name: name, kind: .file).accepted, "\(name)")
    }
  }
}
