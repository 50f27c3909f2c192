import Testing

@testable import UniformTypes

/// Review 20, finding 3: Word opens Word 2003 XML, Flat OPC and MHTML files, under `.xml` and
/// `.doc` names, and runs the VBA project they carry; they were accepted as XML or plain text.
@Suite("Office documents in XML and MHTML form with macros")
struct OfficeTextMacroTests {
  static let policy = Result { try TypePolicy(registry: .system(), declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  static func wordXML(_ binData: String) -> [UInt8] {
    SampleBytes.utf8(
      """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <?mso-application progid="Word.Document"?>
      <w:wordDocument xmlns:w="http://schemas.microsoft.com/office/word/2003/wordml">\
      <w:docSuppData>\(binData)</w:docSuppData><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:wordDocument>

      """)
  }

  static func flatOPC(mainType: String, parts: String = "", relationships: String = "") -> [UInt8] {
    SampleBytes.utf8(
      """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <?mso-application progid="Word.Document"?>
      <pkg:package xmlns:pkg="http://schemas.microsoft.com/office/2006/xmlPackage">
      <pkg:part pkg:name="/_rels/.rels" pkg:contentType="application/vnd.openxmlformats-package.relationships+xml">\
      <pkg:xmlData><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
      <Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" \
      Target="word/document.xml"/>\(relationships)</Relationships></pkg:xmlData></pkg:part>
      <pkg:part pkg:name="/word/document.xml" pkg:contentType="\(mainType)"><pkg:xmlData>\
      <w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p/></w:body></w:document>\
      </pkg:xmlData></pkg:part>
      \(parts)</pkg:package>

      """)
  }

  static let documentType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"

  static func mhtml(_ lastPart: String) -> [UInt8] {
    SampleBytes.utf8(
      """
      MIME-Version: 1.0
      Content-Type: multipart/related; boundary="----=_NextPart_01"

      ------=_NextPart_01
      Content-Location: file:///C:/x.htm
      Content-Type: text/html

      <html xmlns:w="urn:schemas-microsoft-com:office:word"><body>Hello</body></html>
      ------=_NextPart_01
      \(lastPart)
      ------=_NextPart_01--

      """)
  }

  func judge(_ name: String, _ head: [UInt8]) throws -> Verdict {
    try Self.policy.get().judge(name: name, head: head, totalSize: Int64(head.count), sniffer: try Self.sniffer.get())
  }

  func expectRefused(_ head: [UInt8], names: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    for name in names {
      let verdict = try judge(name, head)
      #expect(
        !verdict.accepted && verdict.decidedBy == "com.microsoft.office.macro-enabled", "\(name): \(verdict.reason)",
        sourceLocation: sourceLocation)
    }
  }

  @Test("Word 2003 XML with an editdata.mso binData is refused as macro-enabled, as .xml, .doc or .txt")
  func wordXMLWithVBAIsRefused() throws {
    try expectRefused(
      Self.wordXML(#"<w:binData w:name="editdata.mso">QWN0aXZlTWltZQAAAfAEAAAA</w:binData>"#),
      names: ["letter.xml", "letter.doc", "letter.txt"])
    try expectRefused(Self.wordXML(#"<W:BINDATA W:NAME='EditData.mso'>AAAA</W:BINDATA>"#), names: ["letter.xml"])
  }

  /// Review 24: XML a parser reads as the same — blanks around `=`, character references, UTF-16.
  @Test func wordXMLWrittenOtherwiseIsStillRefused() throws {
    let utf16: [UInt8] =
      [0xFF, 0xFE]
      + String(decoding: Self.wordXML(#"<w:binData w:name="editdata.mso">AAAA</w:binData>"#), as: UTF8.self)
      .utf16.flatMap { SampleBytes.le16(Int($0)) }
    for bytes in [
      Self.wordXML(#"<w:binData w:name = "editdata.mso">AAAA</w:binData>"#),
      Self.wordXML(#"<w:binData w:name="editdata&#46;mso">AAAA</w:binData>"#), utf16,
    ] {
      try expectRefused(bytes, names: ["letter.xml", "letter.doc"])
    }
  }

  @Test("Flat OPC with a vbaProject part, a VBA project content type, a macro-enabled main part or a vbaProject relationship is refused")
  func flatOPCWithVBAIsRefused() throws {
    let names = ["letter.xml", "letter.doc", "letter.docx"]
    try expectRefused(
      Self.flatOPC(
        mainType: Self.documentType,
        parts: #"<pkg:part pkg:name="/word/vbaProject.bin" pkg:contentType="application/octet-stream">"#
          + "<pkg:binaryData>0M8R4KGxGuE=</pkg:binaryData></pkg:part>\n"),
      names: names)
    try expectRefused(
      Self.flatOPC(
        mainType: Self.documentType,
        parts: #"<pkg:part pkg:name="/word/stuff.dat" pkg:contentType="application/vnd.ms-office.vbaProject">"#
          + "<pkg:binaryData>0M8R4KGxGuE=</pkg:binaryData></pkg:part>\n"),
      names: names)
    try expectRefused(
      Self.flatOPC(mainType: "application/vnd.ms-word.document.macroEnabled.main+xml"), names: names)
    try expectRefused(
      Self.flatOPC(
        mainType: Self.documentType,
        relationships: #"<Relationship Id="rId9" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" "#
          + #"Target="word/stuff.dat"/>"#),
      names: names)
  }

  @Test("MHTML with an ActiveMime part is refused, named .doc, .mht or .txt")
  func mhtmlWithActiveMimeIsRefused() throws {
    let names = ["invoice.doc", "page.mht", "page.txt"]
    try expectRefused(
      Self.mhtml(
        "Content-Location: file:///C:/x_files/image001.dat\nContent-Transfer-Encoding: base64\n\n"
          + "QWN0aXZlTWltZQAAAfAEAAAA/////wAAB/AAAAAAAAAA"),
      names: names)
    try expectRefused(
      Self.mhtml("Content-Location: file:///C:/x_files/editdata.mso\nContent-Type: application/x-mso\n\nAAAA"), names: names)
  }

  /// Review 24: the same parts written as a MIME reader still reads them — base64 broken at
  /// another place, a folded header, a percent-escape in the location — and a part Word finds
  /// by its type or the HTML's Edit-Time-Data link, whatever it is called.
  @Test func mhtmlWrittenOtherwiseIsStillRefused() throws {
    let names = ["invoice.doc", "page.mht"]
    let base64 = "Content-Transfer-Encoding: base64\n\n"
    for part in [
      "Content-Location: file:///C:/x_files/x.bin\nContent-Type: application/octet-stream\n" + base64
        + "QWN0\naXZlTWltZQAAAfAEAAAA/////wAAB/AAAAAAAAAA",
      "Content-Location: file:///C:/x_files/x.bin\n" + base64 + "QWN0aXZl TWltZQAAAfAE\r\nAAAA",
      "Content-Location:\n file:///C:/x_files/editdata.mso\nContent-Type: application/octet-stream\n" + base64 + "AAAA",
      "Content-Location: file:///C:/x_files/editdata%2Emso\n" + base64 + "AAAA",
      "Content-Location: file:///C:/x_files/x.bin\nContent-Type: Application/X-MSO\n" + base64 + "AAAA",
      "Content-Location: file:///C:/x_files/x.htm\nContent-Transfer-Encoding: quoted-printable\n\n"
        + "<link rel=3DEdit-Time=\n-Data href=3D\"x_files/x.bin\">",
    ] {
      try expectRefused(Self.mhtml(part), names: names)
    }
  }

  @Test("Word 2003 XML, Flat OPC and MHTML without a VBA project stay accepted")
  func macroFreeFormsAreAccepted() throws {
    for (name, head) in [
      ("letter.xml", Self.wordXML(#"<w:binData w:name="wordml://03000001.png">iVBORw0KGgo=</w:binData>"#)),
      ("letter.doc", Self.wordXML("")),
      ("letter.xml", Self.flatOPC(mainType: Self.documentType)),
      ("page.mht", Self.mhtml("Content-Location: file:///C:/x_files/image001.png\nContent-Type: image/png\n\niVBORw0KGgo=")),
      ("page.doc", Self.mhtml("Content-Location: file:///C:/x_files/filelist.xml\nContent-Type: text/xml\n\n<xml/>")),
      // A folded header and a picture in base64 broken into lines, as mail writes them.
      (
        "mail.eml",
        Self.mhtml("Content-Type: image/png;\n name=photo.png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgoAAAANSUhE\nUgAAAAEAAAAB")
      ),
    ] {
      let verdict = try judge(name, head)
      #expect(verdict.accepted, "\(name): \(verdict.reason)")
    }
  }

  @Test("an ActiveMime container on its own (Word's Web Page form keeps the project in NAME_files/editdata.mso) is refused under any name")
  func activeMimeAloneIsRefused() throws {
    let compressed: [UInt8] = [0x78, 0x9C] + Array(repeating: 0x4B, count: 40)
    let blob = Array("ActiveMime".utf8) + [0, 0, 0x01, 0xF0, 0x04, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x06, 0xF0] + compressed
    try expectRefused(blob, names: ["editdata.mso", "report.dat", "photo.jpg", "notes.txt"])
    // Text that starts with the word is text.
    let verdict = try judge("notes.txt", SampleBytes.utf8("ActiveMime is how Office keeps a VBA project in a web page.\n"))
    #expect(verdict.accepted, "\(verdict.reason)")
  }

  @Test("a Visio XML drawing with a VBA project in VBProjectData is refused, an empty one is not (review 35)")
  func visioXMLWithVBAIsRefused() throws {
    func drawing(_ project: String) -> [UInt8] {
      SampleBytes.utf8(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <VisioDocument xmlns="http://schemas.microsoft.com/visio/2003/core"><Pages/>\(project)</VisioDocument>

        """)
    }
    try expectRefused(drawing("<VBProjectData>0M8R4KGxGuEAAAAAAAAAAAAA</VBProjectData>"), names: ["plan.vdx", "plan.xml", "plan.vsx"])
    for project in ["", "<VBProjectData/>", "<VBProjectData> </VBProjectData>"] {
      let verdict = try judge("plan.xml", drawing(project))
      #expect(verdict.accepted, "\(project): \(verdict.reason)")
    }
  }

  @Test("notes that only mention editdata.mso, ActiveMime in base64 or xmlPackage are text")
  func notesAboutTheFormsAreText() throws {
    let notes = SampleBytes.utf8(
      "# Malware notes\n\nWord keeps the project in editdata.mso; base64 QWN0aXZlTWltZQ is ActiveMime.\n"
        + "Flat OPC uses the http://schemas.microsoft.com/office/2006/xmlPackage namespace.\n")
    let verdict = try judge("notes.md", notes)
    #expect(verdict.accepted, "\(verdict.reason)")
  }
}
