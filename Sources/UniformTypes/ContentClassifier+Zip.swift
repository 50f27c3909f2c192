import TextEscaping

/// ZIP packages: what their local file headers show (OpenDocument, Office Open XML, EPUB,
/// Android and Java programs), and when that settles a ZIP's type over libmagic's answer.
extension ContentClassifier {
  /// A ZIP's entries settle its type where libmagic said no more than ZIP (or data, or text),
  /// and wherever they show code: macros, a Java or Android program. libmagic names a package
  /// by its first entries, which a sender chooses and Office or Java need not read.
  ///
  /// The entries are the local headers in `head` and, for a complete item (`whole`), its
  /// central directory's: what a package reader opens (`ZipDirectory`).
  static func refineZip(_ result: inout ContentType, head: UnsafeRawBufferPointer, whole: ItemBytes?, registry: TypeRegistry) {
    let generic = result.type == .data || result.type == .zipArchive || isText(result.type, mime: result.mimeType, registry: registry)
    let view = ZipView(walked: zipEntries(head), directory: whole.flatMap(ZipDirectory.listing(of:)))
    guard let (type, evidence) = zipType(view, in: whole ?? ItemBytes(head), registry: registry) else {
      if isText(result.type, mime: result.mimeType, registry: registry) {
        result.type = .zipArchive
        result.refinement = "ZIP archive (libmagic said \(result.mimeType.isEmpty ? "nothing" : result.mimeType))"
      }
      return
    }
    let runsCode = [.macroEnabled, .executable, .installerPackage].contains { registry.conforms(type, to: $0) }
    guard type != result.type, generic || runsCode || registry.conforms(result.type, to: .zipArchive) else { return }
    result.type = type
    result.refinement = evidence
  }

  /// What an OLE2 file's encrypted package is when Excel's built-in password opens it
  /// (`OfficeEncryption`): the package's type, as if sent plain; nil when it needs a password
  /// someone must type, or holds no package share knows.
  static func encryptedPackageType(_ bytes: ItemBytes, registry: TypeRegistry) -> (TypeIdentifier, String)? {
    let opens = "opened with Excel's built-in password"
    switch OfficeEncryption.open(bytes) {
    case .closed:
      return nil
    case .notDecrypted(let why):
      return (.macroEnabled, "Office document Excel's built-in password may open, not decrypted: \(why)")
    case .opened(let package):
      return package.withUnsafeBytes { raw -> (TypeIdentifier, String)? in
        guard startsWith(raw, zipMagic) else { return nil }
        let whole = ItemBytes(raw)
        let head = UnsafeRawBufferPointer(rebasing: raw.prefix(ContentSniffer.headLength))
        let view = ZipView(walked: zipEntries(head), directory: ZipDirectory.listing(of: whole))
        return zipType(view, in: whole, registry: registry).map { ($0.0, "\(opens): \($0.1)") }
      }
    }
  }

  /// A ZIP's entries as share sees them: the local headers a walk of the head found, then the
  /// central directory's (when the item is complete and has one).
  struct ZipView {
    var entries: [ZipEntry]
    /// The first entry of each list (a `mimetype` entry names a package's type only there).
    var firsts: [ZipEntry]
    /// Whether every entry the central directory lists is in `entries`.
    var isComplete: Bool

    init(walked: [ZipEntry], directory: ZipDirectory.Listing?) {
      entries = walked + (directory?.entries ?? [])
      firsts = [walked.first, directory?.entries.first].compactMap { $0 }
      isComplete = directory?.isComplete ?? true
    }
  }

  /// What a ZIP's entries show, with the evidence; nil for a plain ZIP.
  ///
  /// Code first, whatever else the package says it is: a package may be two kinds at once, and
  /// the application a name opens it with reads its own kind's parts (a `mimetype` entry first
  /// made a Word package with a VBA project an OpenDocument text, which Word opens as a docm).
  static func zipType(_ view: ZipView, in bytes: ItemBytes, registry: TypeRegistry) -> (TypeIdentifier, String)? {
    let entries = view.entries
    let names = entries.map(\.name)
    // Part names compare without regard to ASCII case, as OPC and Office compare them (review
    // 24: `[Content_types].xml` and `_Rels/` made a docm a plain ZIP).
    let lowered = names.map { $0.lowercased() }
    let isOOXML = lowered.contains { $0 == "[content_types].xml" || $0.hasPrefix("_rels/") || $0.hasPrefix("docprops/") }
    let office = isOOXML ? officeOpenXMLType(lowered, declared: declaredVBAProject(entries, in: bytes, allParts: view.isComplete)) : nil
    if let office, registry.conforms(office.0, to: .macroEnabled) { return office }
    let declared = view.firsts.lazy.filter { $0.name == "mimetype" }.compactMap { first in
      first.storedText(in: bytes).flatMap { mimetypeEntryType($0, registry: registry) }
    }.first
    // An OpenDocument package LibreOffice loads by its manifest, whatever its `mimetype` entry
    // (deflated, not first, or none: review 24), with a Basic library or scripts; its parts may
    // lie past the head (a large picture first), a Basic library's own files do not. (A
    // package that names another kind, an EPUB, may have a `Scripts/` folder of its own.)
    let openDocumentParts = ["mimetype", "meta-inf/manifest.xml", "content.xml", "basic/script-lc.xml"]
    if declared.map({ registry.conforms($0.0, to: .openDocument) }) ?? true,
      lowered.contains(where: { openDocumentParts.contains($0) || $0.hasSuffix("/script-lb.xml") })
    {
      if let macros = openDocumentMacros(names) {
        return (.openDocumentMacros, "OpenDocument package with macros (\(Escaping.escaped(macros, maximumLength: 60)))")
      }
      // Scripts bound to events in its XML, as a flat file's are (review 28).
      if let binding = openDocumentPartMacros(entries, in: bytes) {
        return (.openDocumentMacros, "OpenDocument package with macros (\(binding))")
      }
    }
    // A VBA project or a macro sheet in any other ZIP.
    if let part = names.first(where: { isMacroPart($0.lowercased()) }) {
      return (.macroEnabled, "a ZIP with macros (\(Escaping.escaped(part, maximumLength: 60)))")
    }
    // A program too, before the kinds that do not run (the fuzzer: a jar that also listed
    // `[Content_Types].xml` in its directory became a plain Office package once complete).
    if let program = zipProgram(names, lowered: lowered) { return program }
    if let found = declared ?? office { return found }
    if names.contains("META-INF/container.xml") {
      return ("org.idpf.epub-container", "EPUB container (META-INF/container.xml)")
    }
    return nil
  }

  /// The program or installer a ZIP's entries show (`lowered`: their names in lowercase), or nil:
  /// an Android or Java program, a Windows app package (MSIX, AppX: an OPC package, once an
  /// "Office Open XML document", with `AppxManifest.xml`, `AppxBlockMap.xml` or a bundle's
  /// manifest) or an iOS app (`Payload/NAME.app/`). Review 33: the last two were refused only by
  /// their names, and accepted as `.zip`.
  private static func zipProgram(_ names: [String], lowered: [String]) -> (TypeIdentifier, String)? {
    if names.contains(where: { $0 == "AndroidManifest.xml" || $0 == "classes.dex" }) {
      return ("com.android.package-archive", "Android package (AndroidManifest.xml)")
    }
    if names.contains("META-INF/MANIFEST.MF") {
      return ("com.sun.java-archive", "Java archive (META-INF/MANIFEST.MF)")
    }
    let appx = ["appxmanifest.xml", "appxblockmap.xml", "appxmetadata/appxbundlemanifest.xml"]
    if let index = lowered.firstIndex(where: { appx.contains($0) }) {
      return ("com.microsoft.msix-package", "Windows app package (\(Escaping.escaped(names[index], maximumLength: 60)))")
    }
    // iOS installs the app bundle a folder under `Payload/` holds, whatever the ZIP is called.
    let app = lowered.firstIndex { name in
      let segments = name.split(separator: "/", omittingEmptySubsequences: false)
      return segments.count >= 2 && segments[0] == "payload" && segments[1].hasSuffix(".app") && segments[1].count > 4
        && (segments.count > 2 || name.hasSuffix("/"))
    }
    if let app { return ("com.apple.itunes.ipa", "iOS app (\(Escaping.escaped(names[app], maximumLength: 60)))") }
    return nil
  }

  /// A package that names its own type in a stored first entry `mimetype`: OpenDocument (and
  /// OpenOffice.org 1.x's `application/vnd.sun.xml.*` before it, whose `Basic/` LibreOffice
  /// loads as an odt's: review 33), EPUB.
  private static func mimetypeEntryType(_ declared: String, registry: TypeRegistry) -> (TypeIdentifier, String)? {
    let shown = Escaping.escaped(declared, maximumLength: 80)
    if declared.hasPrefix("application/vnd.oasis.opendocument.") || declared.hasPrefix("application/vnd.sun.xml.") {
      let type = registry.type(forMIMEType: declared)
      return (registry.conforms(type, to: .openDocument) ? type : .openDocument, "OpenDocument mimetype entry (\(shown))")
    }
    let type = registry.type(forMIMEType: declared)
    guard MIMEType.isValid(declared), registry.conforms(type, to: .zipArchive) else { return nil }
    return (type, "mimetype entry (\(shown))")
  }

  /// The first part of an OpenDocument package that holds macros: a Basic library (`Basic/`) or
  /// scripts (`Scripts/`: Python, JavaScript, BeanShell), which LibreOffice runs much as Office
  /// runs a VBA project (review 16: a `.odt` with a Basic module that calls `Shell` was accepted).
  private static func openDocumentMacros(_ names: [String]) -> String? {
    names.first { name in
      let lowered = name.lowercased()
      return lowered.hasPrefix("basic/") || lowered.hasPrefix("scripts/")
    }
  }

  /// Whether a (lowercased) part name is a VBA project or an Excel 4.0 (XLM) macro sheet
  /// (`xl/macrosheets/`, `xl/intlmacrosheets/`: review 22).
  static func isMacroPart(_ lowered: String) -> Bool {
    let part = lastSegment(lowered)
    return part.elementsEqual("vbaproject.bin".utf8) || part.elementsEqual("vbadata.xml".utf8)
      || ByteSearch.contains("macrosheets/", in: lowered)
  }

  /// A part name's last segment, as bytes: what follows its last `/` (trailing ones dropped,
  /// as `split` drops empty segments). Over UTF-8, not Characters: it runs per entry of a
  /// directory of up to 65,536 names.
  static func lastSegment(_ name: String) -> Substring.UTF8View {
    var utf8 = name.utf8[...]
    while utf8.last == UInt8(ascii: "/") { utf8 = utf8.dropLast() }
    guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return utf8 }
    return utf8[utf8.index(after: slash)...]
  }

  /// The Office Open XML document kind its parts show (`names` lowercased): `word/`, `xl/`, `ppt/` or `visio/`, macro-enabled
  /// when it carries a VBA project (`vbaProject.bin`, `vbaData.xml`, in any folder and any case:
  /// Office compares part names ignoring case), or when the package `declared` one under another
  /// name (`declaredVBAProject`).
  private static func officeOpenXMLType(_ names: [String], declared: String?) -> (TypeIdentifier, String) {
    let macros = names.first { isMacroPart($0) } ?? declared
    for (folder, plain, macroEnabled) in [
      ("word/", "org.openxmlformats.wordprocessingml.document", "org.openxmlformats.wordprocessingml.document.macroenabled"),
      ("xl/", "org.openxmlformats.spreadsheetml.sheet", "org.openxmlformats.spreadsheetml.sheet.macroenabled"),
      ("ppt/", "org.openxmlformats.presentationml.presentation", "org.openxmlformats.presentationml.presentation.macroenabled"),
      ("visio/", "com.microsoft.visio.drawing", "com.microsoft.visio.drawing.macroenabled"),
    ] as [(String, TypeIdentifier, TypeIdentifier)] where names.contains(where: { $0.hasPrefix(folder) }) {
      if let macros { return (macroEnabled, "Office Open XML parts with macros (\(Escaping.escaped(macros, maximumLength: 60)))") }
      return (plain, "Office Open XML parts (\(folder))")
    }
    if let macros { return (.macroEnabled, "Office Open XML parts with macros (\(Escaping.escaped(macros, maximumLength: 60)))") }
    // Packages of the same container that are no Office documents (review 28: a 3MF model and
    // an XPS document were "Office Open XML documents", filed with Word's): a 3MF model by its
    // model part; an XPS or OpenXPS document by its fixed-document parts, a ZIP whose name says
    // which of the two.
    if names.contains(where: { $0.hasPrefix("3d/") && $0.hasSuffix(".model") }) { return ("com.microsoft.3mf", "3MF parts (3D/*.model)") }
    if names.contains(where: { $0.hasSuffix(".fdseq") || $0.hasSuffix(".fdoc") }) {
      return (.zipArchive, "XPS parts (a fixed document sequence)")
    }
    return (.openXML, "Office Open XML parts ([Content_Types].xml)")
  }

  struct ZipEntry {
    var name: String
    /// How the entry is compressed (0 stored, 8 deflated).
    var method = 0
    /// Where its compressed bytes lie in the item, as a walk of the local headers found them
    /// (perhaps past the head's end).
    var data: Range<Int>? = nil
    /// A central directory entry's: where its local header lies, and its compressed size.
    var localHeader: Int? = nil
    var compressedSize = 0

    /// Up to `limit` of its compressed bytes, as far as the item holds them; nil when none.
    func compressed(in bytes: ItemBytes, limit: Int) -> [UInt8]? {
      guard let data = dataRange(in: bytes) else { return nil }
      return bytes.read(data.lowerBound..<min(data.upperBound, data.lowerBound + limit))
    }

    /// Where its compressed bytes lie in the item (perhaps past its end); nil when a central
    /// directory entry's local header is not there.
    func dataRange(in bytes: ItemBytes) -> Range<Int>? {
      if let data { return data }
      guard let localHeader, compressedSize > 0, let header = bytes.read(localHeader..<(localHeader + 30)), header.count == 30,
        header.starts(with: ContentClassifier.zipMagic)
      else { return nil }
      let start = header.withUnsafeBytes { localHeader + 30 + ContentClassifier.le16($0, 26) + ContentClassifier.le16($0, 28) }
      return start..<(start + compressedSize)
    }

    /// A stored entry's text, trimmed, when it is all in the item and 256 bytes at most (a
    /// `mimetype` entry).
    func storedText(in bytes: ItemBytes) -> String? {
      let size = data.map { $0.count } ?? compressedSize
      guard method == 0, (1...256).contains(size), let text = compressed(in: bytes, limit: size), text.count == size else { return nil }
      return String(decoding: text, as: UTF8.self).trimmingBlanks()
    }
  }

  /// The local file headers found in `head`, in order: all of them the head holds (each takes
  /// at least 30 bytes), so a VBA project after many small parts is still seen.
  static func zipEntries(_ head: UnsafeRawBufferPointer) -> [ZipEntry] {
    var entries: [ZipEntry] = []
    var offset = 0
    while offset + 30 <= head.count {
      // Where the sizes do not lead to the next local header (a gap, a data descriptor with
      // sizes in the header too, a ZIP64 size: review 24 stopped the walk so and hid the
      // parts after), the next header is looked for by its signature; the central directory's
      // own signature ends the entries.
      if !startsWith(UnsafeRawBufferPointer(rebasing: head[offset...]), zipMagic) {
        guard let next = ByteSearch.firstIndex(of: zipMagic, in: head, from: offset),
          ByteSearch.firstIndex(of: [0x50, 0x4B, 0x01, 0x02], in: head, from: offset).map({ $0 > next }) ?? true
        else { break }
        offset = next
        continue
      }
      let flags = le16(head, offset + 6)
      let method = le16(head, offset + 8)
      let compressedSize = le32(head, offset + 18)
      let nameLength = le16(head, offset + 26)
      let extraLength = le16(head, offset + 28)
      let nameStart = offset + 30
      guard nameStart + nameLength <= head.count else { break }
      let name = String(decoding: UnsafeRawBufferPointer(rebasing: head[nameStart..<(nameStart + nameLength)]), as: UTF8.self)
      let dataStart = nameStart + nameLength + extraLength
      entries.append(ZipEntry(name: name, method: method, data: dataStart..<(dataStart + compressedSize)))
      if flags & 0x8 != 0 && compressedSize == 0 {
        // Sizes follow the data: find the next local header by its signature.
        let next = ByteSearch.firstIndex(of: [0x50, 0x4B, 0x03, 0x04], in: head, from: dataStart)
        entries[entries.count - 1].data = dataStart..<max(dataStart, next ?? head.count)
        guard let next else { break }
        offset = next
      } else {
        // A ZIP64 size (0xFFFFFFFF here, the real one in the extra field): on from the data.
        offset = compressedSize == 0xFFFF_FFFF ? dataStart : dataStart + compressedSize
      }
    }
    return entries
  }
}
