import Foundation
import Testing

@testable import UniformTypes

/// Review 23: libmagic names a package by bytes a sender chooses and Office never reads — a
/// `visio/` entry made a macro-enabled Word package a Visio drawing (XML, "Text", not looked
/// into); a SummaryInformation application name made an xls with a VBA project "Crystal
/// Reports". share's own look into a ZIP or an OLE2 file answers whatever libmagic said.
@Suite struct SteeredMagicTests {
  let registry = TypeRegistry.system()

  func classify(_ head: [UInt8], _ mime: String) -> ContentType {
    ContentClassifier.classify(head: head, truncated: false, magic: MagicResult(mimeType: mime, description: ""), registry: registry)
  }

  static let wordWithMacros: [(String, [UInt8])] = [
    ("[Content_Types].xml", Array("<Types/>".utf8)), ("_rels/.rels", [0x3C]), ("visio/a.xml", Array("<a/>".utf8)),
    ("word/document.xml", [0x3C]), ("word/vbaProject.bin", [0xD0, 0xCF, 0x11, 0xE0]),
  ]

  @Test(arguments: [
    "application/vnd.ms-visio.drawing.main+xml", "text/xml", "application/xml", "text/plain", "application/x-rpt",
    "application/octet-stream",
  ])
  func aVBAProjectInAZipIsFoundWhateverLibmagicCalledIt(_ mime: String) {
    let content = classify(SampleBytes.zip(Self.wordWithMacros), mime)
    #expect(content.type == "org.openxmlformats.wordprocessingml.document.macroenabled", "\(content)")
  }

  @Test(arguments: ["application/x-rpt", "application/octet-stream", "text/plain", "application/vnd.ms-excel"])
  func aVBAProjectInAnOLE2DirectoryIsFoundWhateverLibmagicCalledIt(_ mime: String) {
    let workbook = SampleBytes.compoundFile([("Workbook", 2), ("_VBA_PROJECT_CUR", 1)])
    #expect(classify(workbook, mime).type == .macroEnabled)
  }

  @Test func anOLE2FileIsNeverText() {
    let plain = classify(SampleBytes.compoundFile([("WordDocument", 2)]), "text/plain")
    #expect(plain.type == .compoundDocument)
  }

  @Test func aZipIsNeverText() {
    let content = classify(SampleBytes.plainZip, "text/xml")
    #expect(content.type == .zipArchive)
    #expect(!registry.conforms(content.type, to: .text))
    #expect(classify(SampleBytes.docx, "text/xml").type == "org.openxmlformats.wordprocessingml.document")
  }

  @Test func visioPackagesAreDocumentsAndTheirMacrosAreFound() {
    let drawing = SampleBytes.zip([("[Content_Types].xml", [0x3C]), ("visio/document.xml", [0x3C])])
    let mime = "application/vnd.ms-visio.drawing.main+xml"
    #expect(classify(drawing, mime).type == "com.microsoft.visio.drawing")
    #expect(!registry.conforms("com.microsoft.visio.drawing", to: .text))
    let withMacros = SampleBytes.zip([("[Content_Types].xml", [0x3C]), ("visio/document.xml", [0x3C]), ("visio/vbaProject.bin", [0])])
    #expect(classify(withMacros, mime).type == "com.microsoft.visio.drawing.macroenabled")
    for name in ["drawing.vsdm", "stencil.vssm", "template.vstm"] {
      #expect(registry.conforms(registry.type(forFilename: name), to: .macroEnabled), "\(name)")
    }
    #expect(registry.type(forFilename: "drawing.vsdx") == "com.microsoft.visio.drawing")
  }

  /// With the real libmagic, as a receiver judges it.
  @Test(arguments: ["invoice.doc", "invoice.docx"])
  func theSteeredWordPackageIsRefused(_ name: String) throws {
    let policy = try TypePolicy(registry: registry, declarations: .builtinDefault)
    let verdict = try policy.check(writing: SampleBytes.zip(Self.wordWithMacros), as: name).verdict
    #expect(!verdict.accepted && registry.conforms(verdict.type ?? .data, to: .macroEnabled), "\(verdict)")
  }

  /// Review 24: a VBA project renamed and declared (Office finds it through the declarations) in
  /// XML that a string search missed — blanks around `=`, a character reference, UTF-16 — and
  /// part names in another case.
  @Test func declarationsAreReadAsXMLIsRead() {
    let project = Array(#"<Override PartName="/word/stuff.dat" ContentType="application/vnd.ms-office.vbaProject"/>"#.utf8)
    let variants: [[UInt8]] = [
      Array(#"<Types><Override PartName = "/word/stuff.dat" ContentType = 'application/vnd.ms-office.vbaProject'/></Types>"#.utf8),
      Array(#"<Types><Default Extension="xml" ContentType="application/vnd.ms-word.document.macroEnabled.main&#43;xml"/></Types>"#.utf8),
      Array(#"<Types><Override PartName="/word/stuff.dat" ContentType="application/vnd.ms-office.vba&#x50;roject"/></Types>"#.utf8),
      [0xFF, 0xFE] + "<Types>\(String(decoding: project, as: UTF8.self))</Types>".utf16.flatMap { SampleBytes.le16(Int($0)) },
    ]
    for (index, types) in variants.enumerated() {
      let package = SampleBytes.zip([("[Content_Types].xml", types), ("word/document.xml", [0x3C]), ("word/stuff.dat", [0])])
      #expect(classify(package, "application/zip").type == "org.openxmlformats.wordprocessingml.document.macroenabled", "\(index)")
    }
    let cased = SampleBytes.zip([
      ("[Content_types].xml", [0x3C]), ("_Rels/.rels", [0x3C]), ("Word/document.xml", [0x3C]), ("Word/VBAProject.bin", [0]),
    ])
    #expect(classify(cased, "application/zip").type == "org.openxmlformats.wordprocessingml.document.macroenabled")
    // A VBA project in any ZIP, and an OpenDocument package whatever its mimetype entry.
    #expect(classify(SampleBytes.zip([("docs/vbaProject.bin", [0])]), "application/zip").type == .macroEnabled)
    let basic = SampleBytes.zip([("content.xml", [0x3C]), ("META-INF/manifest.xml", [0x3C]), ("Basic/Standard/Module1.xml", [0x3C])])
    #expect(classify(basic, "application/zip").type == .openDocumentMacros)
    let library = SampleBytes.zip([("Basic/script-lc.xml", [0x3C]), ("Basic/Standard/script-lb.xml", [0x3C]), ("Pictures/a.png", [0])])
    #expect(classify(library, "application/zip").type == .openDocumentMacros)
    // A folder called Scripts in a plain archive is no OpenDocument.
    #expect(classify(SampleBytes.zip([("Scripts/build.txt", [0x41])]), "application/zip").type == .zipArchive)
  }

  /// Review 24: the walk stopped where the sizes did not lead to the next local header (a gap,
  /// a ZIP64 size), and the VBA project after it went unseen.
  @Test func theWalkGoesOnPastAGapOrAZIP64Size() throws {
    let package = SampleBytes.zip([
      ("[Content_Types].xml", Array("<Types/>".utf8)), ("word/document.xml", [0x3C]), ("word/vbaProject.bin", [0]),
    ])
    let second = try #require(package.withUnsafeBytes { ByteSearch.firstIndex(of: ContentClassifier.zipMagic, in: $0, from: 4) })
    var gap = package
    gap.insert(contentsOf: [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], at: second)
    var zip64 = package
    zip64.replaceSubrange(18..<22, with: [0xFF, 0xFF, 0xFF, 0xFF])
    for bytes in [gap, zip64] {
      #expect(classify(bytes, "application/zip").type == "org.openxmlformats.wordprocessingml.document.macroenabled")
    }
  }

  /// Review 24: a directory entry's name whose length counts more than one terminating NUL.
  @Test func aVBAStorageNameWithExtraNULsIsFound() {
    var workbook = SampleBytes.compoundFile([("Workbook", 2), ("_VBA_PROJECT_CUR", 1)])
    // The third directory entry (root, Workbook, the storage) in sector 1 (after the header's
    // sector): its name length at 64.
    let entry = 512 + 512 + 2 * 128
    workbook.replaceSubrange((entry + 64)..<(entry + 66), with: SampleBytes.le16(36))
    #expect(classify(workbook, "application/vnd.ms-excel").type == .macroEnabled)
  }

  /// A structured suffix (`+xml`) does not make XML of a type shared-mime-info says is a ZIP.
  @Test func aSuffixDoesNotOverrideASubclassOfZip() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("share-mime-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data("application/x-share-test.main+xml application/zip\n".utf8).write(to: directory.appendingPathComponent("subclasses"))
    let local = TypeRegistry.load(mimeDirectory: directory)
    let type = local.type(forMIMEType: "application/x-share-test.main+xml")
    #expect(local.conforms(type, to: .zipArchive))
    #expect(!local.conforms(type, to: .xml))
    #expect(local.conforms(local.type(forMIMEType: "application/x-share-test-other+xml"), to: .xml))
  }
}
