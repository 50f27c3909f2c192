import Foundation
import Testing

@testable import UniformTypes

/// Review 24's open HIGH: a package was judged by what its first 64 KiB showed, local headers
/// walked one after another — a fake local header inside a stored entry's data, local names
/// unlike the central directory's, or a VBA project (an OLE2 directory, a macro sheet) past the
/// head got a macro document in as a plain one. A complete item is now judged again with all of
/// it there to read: a ZIP by its central directory, an OLE2 file through its whole FAT.
@Suite struct WholePackageTests {
  let registry = TypeRegistry.system()

  /// What the head alone shows (an item that goes on past it).
  func classifyHead(_ bytes: [UInt8], _ mime: String = "application/zip") -> ContentType {
    let head = Array(bytes.prefix(ContentSniffer.headLength))
    return ContentClassifier.classify(
      head: head, truncated: bytes.count > head.count, magic: MagicResult(mimeType: mime, description: ""), registry: registry)
  }

  /// What the whole item shows: its head, and all of it to read.
  func classifyWhole(_ bytes: [UInt8], _ mime: String = "application/zip") -> ContentType {
    let head = Array(bytes.prefix(ContentSniffer.headLength))
    return bytes.withUnsafeBytes { all in
      ContentClassifier.classify(
        head: head, truncated: bytes.count > head.count, magic: MagicResult(mimeType: mime, description: ""), registry: registry,
        whole: ItemBytes(all))
    }
  }

  static let docm: TypeIdentifier = "org.openxmlformats.wordprocessingml.document.macroenabled"
  static let docx: TypeIdentifier = "org.openxmlformats.wordprocessingml.document"

  /// One entry of `zip(_:)`: its name in the local header and in the central directory, its
  /// data, and whether its local header leaves the sizes to a data descriptor after the data.
  struct Entry {
    var local: String
    var central: String
    var data: [UInt8]
    var descriptor = false
    /// 8 when `data` is a deflate stream.
    var method = 0

    init(_ name: String, _ data: [UInt8], central: String? = nil, descriptor: Bool = false, method: Int = 0) {
      (local, self.central, self.data, self.descriptor, self.method) = (name, central ?? name, data, descriptor, method)
    }
  }

  /// A ZIP of stored entries, with its central directory and end record.
  static func zip(_ entries: [Entry]) -> [UInt8] {
    typealias B = SampleBytes
    var out: [UInt8] = []
    var central: [UInt8] = []
    for entry in entries {
      let (local, name, data) = (Array(entry.local.utf8), Array(entry.central.utf8), entry.data)
      let crc = B.crc32(data)
      let size = UInt32(data.count)
      let offset = UInt32(out.count)
      let flags = entry.descriptor ? 0x8 : 0
      let shown: (UInt32, UInt32, UInt32) = entry.descriptor ? (0, 0, 0) : (crc, size, size)
      out += B.le32(0x0403_4B50) + B.le16(20) + B.le16(flags) + B.le16(entry.method) + B.le16(0) + B.le16(0x21)
      out += B.le32(shown.0) + B.le32(shown.1) + B.le32(shown.2) + B.le16(local.count) + B.le16(0) + local + data
      if entry.descriptor { out += B.le32(0x0807_4B50) + B.le32(crc) + B.le32(size) + B.le32(size) }
      central += B.le32(0x0201_4B50) + B.le16(20) + B.le16(20) + B.le16(flags) + B.le16(entry.method) + B.le16(0) + B.le16(0x21)
      central += B.le32(crc) + B.le32(size) + B.le32(size) + B.le16(name.count) + B.le16(0) + B.le16(0) + B.le16(0) + B.le16(0)
      central += B.le32(0) + B.le32(offset) + name
    }
    let centralOffset = UInt32(out.count)
    out += central
    out += B.le32(0x0605_4B50) + B.le16(0) + B.le16(0) + B.le16(entries.count) + B.le16(entries.count)
    out += B.le32(UInt32(central.count)) + B.le32(centralOffset) + B.le16(0)
    return out
  }

  static let types = Array(#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#.utf8)
  static let document = Array("<w:document/>".utf8)

  @Test func aVBAProjectPastTheHeadIsFoundInTheCentralDirectory() {
    let picture = SampleBytes.random(count: 80_000)
    let bytes = Self.zip([
      Entry("[Content_Types].xml", Self.types), Entry("word/document.xml", Self.document),
      Entry("word/media/image1.png", picture), Entry("word/vbaProject.bin", CompoundFile.signature),
    ])
    #expect(classifyHead(bytes).type == Self.docx, "the head shows a plain document")
    let whole = classifyWhole(bytes)
    #expect(whole.type == Self.docm, "\(whole)")
    #expect(whole.refinement?.contains("word/vbaproject.bin") == true, "\(whole)")
  }

  @Test func typesCheckJudgesAFileWithAllOfItThere() throws {
    let policy = try TypePolicy(registry: .system(), declarations: .builtinDefault)
    let bytes = Self.zip([
      Entry("[Content_Types].xml", Self.types), Entry("word/document.xml", Self.document),
      Entry("word/media/image1.png", SampleBytes.random(count: 80_000)), Entry("word/vbaProject.bin", CompoundFile.signature),
    ])
    let report = try policy.check(writing: bytes, as: "report.docx")
    #expect(!report.verdict.accepted && report.verdict.rule == .excludedContent, "\(report.verdict)")
    #expect(report.content?.type == Self.docm)
    // The same head in an item not yet complete (what a receiver judges as the bytes come) passes.
    let head = Array(bytes.prefix(ContentSniffer.headLength))
    let early = policy.judge(name: "report.docx", head: head, totalSize: Int64(bytes.count), sniffer: try ContentSniffer())
    #expect(early.accepted, "\(early)")
  }

  @Test func aMimetypeEntryFirstDoesNotHideAWordPackagesProject() {
    // A valid OPC package may hold a part called `mimetype` (its content type an Override):
    // first, stored, naming OpenDocument text, it made a docm an ODT, which Word opens as a docm.
    let declared = Array(
      (#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"#
        + #"<Override PartName="/mimetype" ContentType="text/plain"/>"#
        + #"<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.macroEnabled.main+xml"/></Types>"#)
        .utf8)
    let odt = Array("application/vnd.oasis.opendocument.text".utf8)
    let byPart = Self.zip([
      Entry("mimetype", odt), Entry("[Content_Types].xml", Self.types), Entry("word/document.xml", Self.document),
      Entry("word/vbaProject.bin", CompoundFile.signature),
    ])
    #expect(classifyHead(byPart).type == Self.docm, "\(classifyHead(byPart))")
    let byDeclaration = Self.zip([
      Entry("mimetype", odt), Entry("[Content_Types].xml", declared), Entry("word/document.xml", Self.document),
    ])
    #expect(classifyHead(byDeclaration).type == Self.docm)
    // An OpenDocument text without Office parts stays one; an EPUB with a Scripts folder too.
    #expect(classifyHead(Self.zip([Entry("mimetype", odt), Entry("content.xml", [0x3C])])).type == "org.oasis-open.opendocument.text")
    let epub = Self.zip([
      Entry("mimetype", Array("application/epub+zip".utf8)), Entry("META-INF/container.xml", [0x3C]), Entry("Scripts/a.js", [0x3C]),
    ])
    #expect(classifyHead(epub).type == "org.idpf.epub-container")
  }

  @Test func localNamesUnlikeTheCentralDirectorysDoNotHideAProject() {
    // Review 24's 07: harmless local names, the real ones where Office reads them.
    let bytes = Self.zip([
      Entry("[Content_Types].xml", Self.types), Entry("word/document.xml", Self.document),
      Entry("word/media/image9.bin", CompoundFile.signature, central: "word/vbaProject.bin"),
    ])
    let whole = classifyWhole(bytes)
    #expect(whole.type == Self.docm, "\(whole)")
    // Without the central directory (a walk of the local headers) it was a plain document.
    let walked = ContentClassifier.ZipView(walked: bytes.withUnsafeBytes(ContentClassifier.zipEntries), directory: nil)
    let type = bytes.withUnsafeBytes { ContentClassifier.zipType(walked, in: ItemBytes($0), registry: registry)?.0 }
    #expect(type == Self.docx)
  }

  @Test func aFakeLocalHeaderInsideAnEntrysDataDoesNotEndTheLook() {
    // Review 24's 05: a data-descriptor entry whose data holds a local header claiming almost
    // 4 GiB; the signature search lands on it and the walk jumps past everything after.
    let fake =
      SampleBytes.le32(0x0403_4B50) + SampleBytes.le16(20) + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
      + SampleBytes.le32(0xFFFF_FFF0) + SampleBytes.le32(0xFFFF_FFF0) + SampleBytes.le16(1) + SampleBytes.le16(0) + [0x78]
    let bytes = Self.zip([
      Entry("docProps/pad.jpeg", fake + SampleBytes.random(count: 200), descriptor: true),
      Entry("[Content_Types].xml", Self.types), Entry("word/document.xml", Self.document),
      Entry("word/vbaProject.bin", CompoundFile.signature),
    ])
    let walked = ContentClassifier.ZipView(walked: bytes.withUnsafeBytes(ContentClassifier.zipEntries), directory: nil)
    #expect(!walked.entries.contains { $0.name == "word/vbaProject.bin" }, "the walk is misled (the premise)")
    // Short enough to be its own head: judged with all of it there from the start.
    let content = classifyHead(bytes)
    #expect(content.type == Self.docm, "\(content)")
  }

  @Test func aDefaultThatMakesAnExtensionAProjectIsASignInAPackageTooLargeToList() {
    let declared = Array(
      (#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"#
        + #"<Default Extension="dat" ContentType="application/vnd.ms-office.vbaProject"/></Types>"#).utf8)
    var entries = [Entry("[Content_Types].xml", declared), Entry("word/document.xml", Self.document)]
    entries += (0..<(ZipDirectory.keptOthers + 10)).map { Entry("word/media/p\($0).png", [0x89]) }
    var bytes = Self.zip(entries + [Entry("word/zz.dat", CompoundFile.signature)])
    let listing = bytes.withUnsafeBytes { ZipDirectory.listing(of: ItemBytes($0)) }
    #expect(listing?.isComplete == false)
    #expect(classifyWhole(bytes).type == Self.docm)
    // Without such a Default, a package of many pictures is a plain document.
    bytes = Self.zip([Entry("[Content_Types].xml", Self.types)] + entries.dropFirst())
    #expect(classifyWhole(bytes).type == Self.docx)
  }

  @Test func aContentTypesPartLargerThanShareReadsIsASign() {
    let padded =
      Array(#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"#.utf8)
      + [UInt8](repeating: 0x20, count: ContentClassifier.packagePartLimit) + Array("</Types>".utf8)
    let bytes = Self.zip([Entry("[Content_Types].xml", padded), Entry("word/document.xml", Self.document)])
    let content = classifyWhole(bytes)
    #expect(content.type == Self.docm && content.refinement?.contains("larger than share reads") == true, "\(content)")
  }

  @Test func aDirectoryListingOnePartManyTimesCostsABoundedRead() {
    // One stored `.rels` part of 1 MiB, which the central directory lists 100 times under
    // different names: share reads 32 MiB of parts at most, and calls the rest a sign.
    typealias B = SampleBytes
    let part = Array("<Relationships>".utf8) + [UInt8](repeating: 0x20, count: 1 << 20) + Array("</Relationships>".utf8)
    let name = Array("_rels/.rels".utf8)
    var bytes = B.le32(0x0403_4B50) + B.le16(20) + B.le16(0) + B.le16(0) + B.le16(0) + B.le16(0x21) + B.le32(0)
    bytes += B.le32(UInt32(part.count)) + B.le32(UInt32(part.count)) + B.le16(name.count) + B.le16(0) + name + part
    var central: [UInt8] = []
    for index in 0..<100 {
      let listed = Array("word/_rels/p\(index).rels".utf8)
      central += B.le32(0x0201_4B50) + B.le16(20) + B.le16(20) + B.le16(0) + B.le16(0) + B.le16(0) + B.le16(0x21) + B.le32(0)
      central += B.le32(UInt32(part.count)) + B.le32(UInt32(part.count)) + B.le16(listed.count) + B.le16(0) + B.le16(0)
      central += B.le16(0) + B.le16(0) + B.le32(0) + B.le32(0) + listed
    }
    let start = UInt32(bytes.count)
    bytes += central + B.le32(0x0605_4B50) + B.le16(0) + B.le16(0) + B.le16(100) + B.le16(100)
    bytes += B.le32(UInt32(central.count)) + B.le32(start) + B.le16(0)
    let content = classifyWhole(bytes)
    #expect(registry.conforms(content.type, to: .macroEnabled), "\(content)")
    #expect(content.refinement?.contains("larger in all") == true, "\(content)")
    // Listed ten times, the same part is read and shows nothing.
    let few = Array(bytes.prefix(Int(start))) + Array(central.prefix(10 * (46 + 19)))
    let ending = B.le32(0x0605_4B50) + B.le16(0) + B.le16(0) + B.le16(10) + B.le16(10) + B.le32(10 * 65) + B.le32(start) + B.le16(0)
    #expect(classifyWhole(few + ending).type == Self.docx, "\(classifyWhole(few + ending))")
  }

  @Test func aPlainArchiveAndARealDocumentStayWhatTheyAre() {
    let archive = Self.zip([Entry("photos/a.jpg", SampleBytes.random(count: 70_000)), Entry("notes.txt", Array("hi\n".utf8))])
    #expect(classifyWhole(archive).type == .zipArchive)
    let document = Self.zip([
      Entry("[Content_Types].xml", Self.types), Entry("word/document.xml", Self.document),
      Entry("word/media/image1.png", SampleBytes.random(count: 70_000)),
    ])
    #expect(classifyWhole(document).type == Self.docx)
    // An end record pointing nowhere: the local headers are all there is.
    var broken = document
    broken[broken.count - 6] ^= 0x7F
    #expect(classifyWhole(broken).type == Self.docx)
  }

  // MARK: OLE2

  /// A version 4 compound file (4,096-byte sectors) of a root and a `Workbook` stream whose
  /// bytes start at sector `at`, chained through the FAT; in the mini stream (held by the root's
  /// chain, from the same sector) when shorter than 4,096 bytes.
  static func workbook(_ stream: [UInt8], at start: Int) -> [UInt8] {
    var bytes = SampleBytes.compoundFile([("Workbook", 2)], sectorShift: 12, directory: [1])
    let size = 4096
    let sectors = (stream.count + size - 1) / size
    func put(_ value: UInt32, at offset: Int) { bytes.replaceSubrange(offset..<(offset + 4), with: SampleBytes.le32(value)) }
    // The FAT (sector 0): the stream's chain.
    for index in 0..<sectors { put(index + 1 < sectors ? UInt32(start + index + 1) : 0xFFFF_FFFE, at: size + 4 * (start + index)) }
    // The directory (sector 1): the root holds the mini stream, or the Workbook its own.
    let directory = 2 * size
    if stream.count < size {
      put(UInt32(start), at: directory + 116)
      put(UInt32(stream.count), at: directory + 120)
      put(0, at: directory + 128 + 116)
    } else {
      put(UInt32(start), at: directory + 128 + 116)
    }
    put(UInt32(stream.count), at: directory + 128 + 120)
    bytes += [UInt8](repeating: 0, count: (start + 1) * size - bytes.count)
    bytes += stream + [UInt8](repeating: 0, count: sectors * size - stream.count)
    return bytes
  }

  static let bof: [UInt8] = [0x09, 0x08, 0x10, 0x00] + [UInt8](repeating: 0, count: 16)

  @Test func aMacroSheetPastTheHeadIsFoundThroughTheWorkbooksChain() {
    let sheets = ExcelMacroSheetTests.boundSheet("Sheet1", type: 0)
    let macro = ExcelMacroSheetTests.boundSheet("Auto_Open", state: 2, type: 1)
    // Records of blanks before it, so the sheet lies in the stream's third sector.
    let padding = (0..<3).flatMap { _ in [0x3C, 0x00] + SampleBytes.le16(4000) + [UInt8](repeating: 0x20, count: 4000) }
    let bytes = Self.workbook(Self.bof + padding + sheets + macro, at: 20)
    #expect(bytes.count > ContentSniffer.headLength)
    #expect(classifyHead(bytes, "application/vnd.ms-excel").type == "com.microsoft.excel.xls", "the head shows none")
    let whole = classifyWhole(bytes, "application/vnd.ms-excel")
    #expect(whole.type == .macroEnabled && whole.refinement?.contains("Auto_Open") == true, "\(whole)")
    // In the mini stream (a workbook under 4,096 bytes), past the head too.
    let small = Self.workbook(Self.bof + sheets + macro, at: 20)
    #expect(classifyWhole(small, "application/vnd.ms-excel").type == .macroEnabled)
    // The same workbook with a worksheet only is a workbook.
    let plain = Self.workbook(Self.bof + padding + sheets, at: 20)
    #expect(classifyWhole(plain, "application/vnd.ms-excel").type == "com.microsoft.excel.xls")
  }

  @Test func aVBAProjectInADirectorySectorPastTheHeadIsFound() {
    // The directory in sector 20 of 4,096 bytes: 86 KiB into the file.
    var bytes = SampleBytes.compoundFile([("WordDocument", 2), ("Macros", 1)], sectorShift: 12, directory: [20])
    #expect(bytes.count > ContentSniffer.headLength)
    #expect(classifyHead(bytes, "application/msword").type == "com.microsoft.word.doc")
    #expect(classifyWhole(bytes, "application/msword").type == .macroEnabled)
    // Without the project, the same file is a Word document.
    bytes = SampleBytes.compoundFile([("WordDocument", 2)], sectorShift: 12, directory: [20])
    #expect(classifyWhole(bytes, "application/msword").type == "com.microsoft.word.doc")
  }

  @Test func aDirectoryChainThroughAFATSectorTheDIFATListsIsRead() {
    // Version 3 (512-byte sectors, 128 FAT entries each): the header lists 109 FAT sectors, so
    // the link from sector 13,957 (the directory's first) to sector 4 (its second, holding the
    // project) is in the 110th, which only the DIFAT chain (sector 2) names.
    let size = 512
    let first = 109 * 128 + 5
    let template = SampleBytes.compoundFile([("WordDocument", 2), ("A", 2), ("B", 2), ("Macros", 1)], directory: [1, 2])
    var header = Array(template[0..<size])
    func put(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
      bytes.replaceSubrange(offset..<(offset + 4), with: SampleBytes.le32(value))
    }
    put(110, at: 0x2C, in: &header)
    put(UInt32(first), at: 0x30, in: &header)
    put(2, at: 0x44, in: &header)
    put(1, at: 0x48, in: &header)
    for index in 0..<109 { put(0, at: 0x4C + 4 * index, in: &header) }
    let free = (0..<128).flatMap { _ in SampleBytes.le32(0xFFFF_FFFF) }
    var (fat0, fat1, difat) = (free, free, free)
    for (entry, value) in [(0, 0xFFFF_FFFD), (1, 0xFFFF_FFFD), (2, 0xFFFF_FFFC), (4, 0xFFFF_FFFE)] as [(Int, UInt32)] {
      put(value, at: 4 * entry, in: &fat0)
    }
    put(4, at: 4 * (first % 128), in: &fat1)
    put(1, at: 0, in: &difat)
    put(0xFFFF_FFFE, at: 4 * 127, in: &difat)
    let secondDirectory = Array(template[(3 * size)..<(4 * size)])
    var bytes = header + fat0 + fat1 + difat + [UInt8](repeating: 0, count: size) + secondDirectory
    bytes += [UInt8](repeating: 0, count: (first + 1) * size - bytes.count)
    bytes += Array(template[(2 * size)..<(3 * size)])
    #expect(classifyWhole(bytes, "application/msword").type == .macroEnabled)
    // The same file whose DIFAT chain names no FAT sector: the second sector cannot be reached.
    put(0xFFFF_FFFF, at: 3 * size, in: &bytes)
    #expect(classifyWhole(bytes, "application/msword").type == "com.microsoft.word.doc")
  }

  // MARK: Documents written as text

  /// `text` with `padding` bytes of a harmless kind (blank HTML, XML comments) put `at` its
  /// marker, so that what follows lies past the head.
  static func padded(_ text: String, at marker: String, with filler: String) -> [UInt8] {
    let padding = String(repeating: filler, count: 100_000 / filler.utf8.count + 1)
    return Array(text.replacingOccurrences(of: marker, with: padding + marker).utf8)
  }

  @Test func aProjectPastTheHeadOfADocumentWrittenAsTextIsFound() throws {
    let mhtml = String(
      decoding: OfficeTextMacroTests.mhtml(
        "Content-Location: file:///C:/x_files/editdata.mso\nContent-Transfer-Encoding: base64\n\nQWN0aXZlTWltZQAAAfAE"),
      as: UTF8.self)
    let wordXML = String(
      decoding: OfficeTextMacroTests.wordXML(#"<w:binData w:name="editdata.mso">QWN0aXZlTWltZQ==</w:binData>"#), as: UTF8.self)
    let flatOPC = String(
      decoding: OfficeTextMacroTests.flatOPC(
        mainType: OfficeTextMacroTests.documentType,
        parts: #"<pkg:part pkg:name="/word/vbaProject.bin" pkg:contentType="application/octet-stream"/>"#),
      as: UTF8.self)
    for (name, bytes) in [
      ("mhtml", Self.padded(mhtml, at: "</body>", with: "<p>Invoice</p>\n")),
      ("Word 2003 XML", Self.padded(wordXML, at: "<w:docSuppData>", with: "<!-- padding -->\n")),
      ("Flat OPC", Self.padded(flatOPC, at: "<pkg:part pkg:name=\"/word/vbaProject.bin\"", with: "<!-- padding -->\n")),
    ] {
      #expect(bytes.count > ContentSniffer.headLength)
      #expect(!registry.conforms(classifyHead(bytes, "text/plain").type, to: .macroEnabled), "\(name): the head shows none")
      let whole = classifyWhole(bytes, "text/plain")
      #expect(whole.type == .macroEnabled, "\(name): \(whole)")
    }
    // A long note that only mentions the forms stays text.
    let note = Array(
      ("MIME-Version and multipart/ messages, mso-application and xmlPackage:\n" + String(repeating: "words ", count: 30_000)).utf8)
    #expect(classifyWhole(note, "text/plain").type == .plainText)
  }
}
