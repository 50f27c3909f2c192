import Foundation
import Testing

@testable import UniformTypes

/// Review 25 (a bypass hunt on the whole-package check): a package's parts and directories read
/// as Office and its parsers read them — attribute values never read as attributes, references
/// of any length, a part longer compressed than share reads, every workbook stream, a last sector
/// cut short, a DIFAT chain that loops, a directory size one byte too large.
@Suite struct PackageReadingTests {
  let registry = TypeRegistry.system()
  typealias Entry = WholePackageTests.Entry
  static let docm = WholePackageTests.docm

  func classify(_ bytes: [UInt8], _ mime: String = "application/zip") -> ContentType {
    bytes.withUnsafeBytes { all in
      ContentClassifier.classify(
        head: Array(bytes.prefix(ContentSniffer.headLength)), truncated: bytes.count > ContentSniffer.headLength,
        magic: MagicResult(mimeType: mime, description: ""), registry: registry, whole: ItemBytes(all))
    }
  }

  static func word(_ types: String, rels: String = "<Relationships/>", parts: [Entry] = []) -> [UInt8] {
    WholePackageTests.zip(
      [
        Entry("[Content_Types].xml", Array(types.utf8)), Entry("word/_rels/document.xml.rels", Array(rels.utf8)),
        Entry("word/document.xml", WholePackageTests.document),
      ] + parts)
  }

  static let macroMain = "application/vnd.ms-word.document.macroEnabled.main+xml"

  @Test func anAttributeValueIsNeverReadAsAttributes() {
    // An NBSP before `ContentType=` inside another attribute's value: a string search took
    // it for the attribute and the real one after it went unseen.
    let types =
      #"<Types><Override xmlns:z=" ContentType='application/xml'" PartName="/word/document.xml" "#
      + #"ContentType="\#(Self.macroMain)"/></Types>"#
    #expect(classify(Self.word(types)).type == Self.docm)
    let rels =
      #"<Relationships><Relationship xmlns:z=" Type='" Id="r1" "#
      + #"Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" Target="x.dat" xmlns:y="'"/></Relationships>"#
    #expect(classify(Self.word("<Types/>", rels: rels)).type == Self.docm)
    // Written plainly, with no macro-enabled type, it is a document.
    #expect(
      classify(Self.word(#"<Types><Override xmlns:z="a" PartName="/word/document.xml" ContentType="application/xml"/></Types>"#)).type
        == WholePackageTests.docx)
  }

  @Test func aCharacterReferenceWithManyLeadingZerosIsRead() {
    let spelled = Self.macroMain.replacingOccurrences(of: "v", with: "&#0000000000000000000118;")
    #expect(classify(Self.word(#"<Types><Override PartName="/word/document.xml" ContentType="\#(spelled)"/></Types>"#)).type == Self.docm)
    let head = Array(#"<w:binData w:name="editdata&#0000000000000046;mso">QQ==</w:binData>"#.utf8)
    #expect(head.withUnsafeBytes(ContentClassifier.textDocumentMacros) != nil)
  }

  @Test func aPartLongerCompressedThanShareReadsIsASign() {
    let types = Array("<Types>".utf8) + SampleBytes.random(count: ItemBytes.maximumRead + 10) + Array("</Types>".utf8)
    let bytes = WholePackageTests.zip([
      Entry("[Content_Types].xml", SampleBytes.storedDeflate(types), method: 8), Entry("word/document.xml", WholePackageTests.document),
    ])
    let content = classify(bytes)
    #expect(content.type == Self.docm && content.refinement?.contains("larger than share reads") == true, "\(content)")
  }

  @Test func everyWorkbookStreamIsLookedInto() {
    // A harmless `Book` listed before the `Workbook` Excel reads.
    let macro = WholePackageTests.bof + ExcelMacroSheetTests.boundSheet("Auto_Open", type: 1)
    var bytes = WholePackageTests.workbook(macro + [UInt8](repeating: 0, count: 5000), at: 20)
    #expect(classify(bytes, "application/vnd.ms-excel").type == .macroEnabled)
    // The same file with the first directory entry renamed `Book` and a second `Book` stream
    // entry (empty) before it in the directory changes nothing.
    let directory = 2 * 4096 + 128
    let book = Array("Book".utf16).flatMap { SampleBytes.le16(Int($0)) }
    var decoy = Array(bytes[directory..<(directory + 128)])
    decoy.replaceSubrange(0..<64, with: book + [UInt8](repeating: 0, count: 64 - book.count))
    decoy.replaceSubrange(64..<66, with: SampleBytes.le16(book.count + 2))
    decoy.replaceSubrange(116..<124, with: SampleBytes.le32(0xFFFF_FFFE) + SampleBytes.le32(0))
    bytes.replaceSubrange((directory + 256)..<(directory + 384), with: bytes[directory..<(directory + 128)])
    bytes.replaceSubrange(directory..<(directory + 128), with: decoy)
    #expect(classify(bytes, "application/vnd.ms-excel").type == .macroEnabled)
  }

  @Test func aLastSectorCutShortIsReadAsZeros() {
    var bytes = SampleBytes.compoundFile([("WordDocument", 2), ("Macros", 1)], sectorShift: 12, directory: [20])
    bytes.removeLast(4096 - 3 * 128)
    #expect(bytes.count > ContentSniffer.headLength)
    #expect(classify(bytes, "application/msword").type == .macroEnabled)
  }

  @Test func aDIFATChainThatLoopsReadsNoMoreThanTheFileNeeds() {
    var bytes = SampleBytes.compoundFile([("WordDocument", 2)], directory: [1])
    bytes += [UInt8](repeating: 0, count: 512 * 200)
    // DIFAT: starts at sector 2, a million sectors long, each naming itself next.
    bytes.replaceSubrange(0x44..<0x4C, with: SampleBytes.le32(2) + SampleBytes.le32(1_000_000))
    let difat = 3 * 512
    bytes.replaceSubrange((difat + 508)..<(difat + 512), with: SampleBytes.le32(2))
    let sectors = bytes.withUnsafeBytes { CompoundFile.Sectors(ItemBytes($0)) }
    #expect((sectors?.fat.count ?? .max) <= 109 + 127 + 4, "\(sectors?.fat.count ?? -1)")
  }

  @Test func aDirectorySizeTooLargeIsReadToTheEndRecord() {
    var bytes = WholePackageTests.zip([
      Entry("[Content_Types].xml", WholePackageTests.types), Entry("word/document.xml", WholePackageTests.document),
      Entry("word/media/image1.png", SampleBytes.random(count: 70_000)), Entry("word/vbaProject.bin", CompoundFile.signature),
    ])
    let size = bytes.count - 22 + 12
    let stated = bytes[size..<(size + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    bytes.replaceSubrange(size..<(size + 4), with: SampleBytes.le32(stated + 1))
    #expect(classify(bytes).type == Self.docm)
  }

  @Test func defaultsAreMatchedByTheExtensionAfterTheLastDot() {
    let defaults = (0..<3000).map { #"<Default Extension="x\#($0)" ContentType="application/vnd.ms-office.vbaProject"/>"# }.joined()
    let plain = Self.word("<Types>\(defaults)</Types>", parts: (0..<100).map { Entry("word/media/p\($0).png", [0]) })
    #expect(classify(plain).type == WholePackageTests.docx)
    let project = Self.word("<Types>\(defaults)</Types>", parts: [Entry("word/stuff.x2999", CompoundFile.signature)])
    #expect(classify(project).type == Self.docm)
  }

  @Test func aProgramThatAlsoListsOfficePartsStaysAProgram() {
    // Found by the Packages fuzzer: the head showed a Java archive, the whole item (its
    // directory listing `[Content_Types].xml` too) a plain Office package.
    let jar = WholePackageTests.zip([
      Entry("META-INF/MANIFEST.MF", Array("Manifest-Version: 1.0\nMain-Class: A\n".utf8)), Entry("A.class", [0xCA, 0xFE, 0xBA, 0xBE]),
      Entry("[Content_Types].xml", WholePackageTests.types),
    ])
    #expect(classify(jar).type == "com.sun.java-archive")
  }

  /// Review 37: a slide show runs a program (`ppaction://program`) or activates an embedded
  /// object (`ppaction://ole`) on a click or a mouse-over of a shape; a jump to a slide or a web
  /// link is an everyday action.
  @Test func slideActionsThatRunProgramsAreMacros() {
    func deck(_ action: String, in part: String = "ppt/slides/slide1.xml") -> [UInt8] {
      let slide =
        #"<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree><p:sp><p:nvSpPr>"#
        + #"<p:cNvPr id="2" name="x"><a:hlinkMouseOver r:id="rId2" action="\#(action)"/></p:cNvPr></p:nvSpPr></p:sp></p:spTree></p:cSld></p:sld>"#
      return SampleBytes.zip([
        ("[Content_Types].xml", Array("<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>".utf8)),
        ("ppt/presentation.xml", Array("<p:presentation/>".utf8)), (part, Array(slide.utf8)),
      ])
    }
    let macroEnabled: TypeIdentifier = "org.openxmlformats.presentationml.presentation.macroenabled"
    for action in ["ppaction://program", "ppaction://ole?verb=0", "PPAction://Program", "ppaction&#58;//program"] {
      #expect(classify(deck(action)).type == macroEnabled, "\(action)")
    }
    #expect(classify(deck("ppaction://program", in: "ppt/slideLayouts/slideLayout1.xml")).type == macroEnabled)
    for action in ["ppaction://hlinksldjump", "ppaction://hlinkshowjump?jump=nextslide", ""] {
      #expect(classify(deck(action)).type == "org.openxmlformats.presentationml.presentation", "\(action)")
    }
  }

  /// Review 46: a slide's timeline that runs an embedded object's OLE verb as the slide appears
  /// (the 2014 "Sandworm" documents); media played by a call command is everyday.
  @Test func anAnimationThatRunsAnEmbeddedObjectIsAMacro() {
    func deck(_ command: String) -> [UInt8] {
      let slide =
        #"<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:timing><p:tnLst><p:par><p:cTn id="1">"#
        + #"<p:childTnLst>\#(command)</p:childTnLst></p:cTn></p:par></p:tnLst></p:timing></p:sld>"#
      return SampleBytes.zip([
        ("[Content_Types].xml", Array("<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>".utf8)),
        ("ppt/presentation.xml", Array("<p:presentation/>".utf8)), ("ppt/slides/slide1.xml", Array(slide.utf8)),
      ])
    }
    let verb = #"<p:cmd type="verb" cmd="0"><p:cBhvr><p:cTn id="3" dur="1000"/><p:tgtEl><p:spTgt spid="4"/></p:tgtEl></p:cBhvr></p:cmd>"#
    let content = classify(deck(verb))
    #expect(content.type == "org.openxmlformats.presentationml.presentation.macroenabled", "\(content)")
    #expect(content.refinement?.contains("runs an embedded object") == true, "\(content)")
    let media = #"<p:cmd type="call" cmd="playFrom(0.0)"><p:cBhvr><p:cTn id="3" dur="1000"/></p:cBhvr></p:cmd>"#
    #expect(classify(deck(media)).type == "org.openxmlformats.presentationml.presentation")
  }
}
