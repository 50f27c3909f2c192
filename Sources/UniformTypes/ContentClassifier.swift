import TextEscaping

/// Turns libmagic's answer and the first bytes into a `ContentType`. Pure: no I/O, no libmagic.
///
/// On top of libmagic (see Inbox/TYPES.md, "Content"):
/// - empty content is marked `isEmpty`;
/// - "text" with NUL bytes and no UTF-16/32 byte-order mark is `public.data` (libmagic
///   reports some binary signatures without a MIME type as `text/plain`);
/// - PEM text is the certificate, key or request it holds, and an OpenSSH public key line a key;
/// - content whose first group is `[Desktop Entry]` is a desktop entry, `[Flatpak Ref]`/`[Flatpak
///   Repo]` a Flatpak reference/repository, even after a shebang line, and whatever follows it
///   (NUL bytes, binary data: GLib still loads it); text whose head holds comments only, of an
///   item that goes on past it, is taken for a desktop entry;
/// - other text starting with `#!` is a script, by interpreter (`sh`/`bash`… shell, `python*`,
///   `perl`, `ruby`, `php`, `node`, `pwsh`, `tclsh`; anything else `public.script`), also through `env`;
/// - XML whose root is an OpenDocument `office:document` (flat ODF) with a script element is an
///   OpenDocument file with macros (`ContentClassifier+FlatODF.swift`); Word 2003 XML, Flat OPC
///   and MHTML with a VBA project are macro-enabled (`ContentClassifier+OfficeText.swift`);
/// - content starting `\x7FELF` is a Unix executable whatever libmagic called it, and an AppImage
///   with `AI` and 1 or 2 at offset 8; content starting `dex\n035\0` a Dalvik executable;
/// - an OLE2 document whose directory (in the head) names a VBA project is macro-enabled;
/// - a ZIP (or unrecognised data starting `PK\3\4`) is looked into: an OpenDocument `mimetype`
///   first entry, Office Open XML parts (`[Content_Types].xml`, `_rels/`, `docProps/`, then
///   `word/` docx, `xl/` xlsx, `ppt/` pptx), an Android package (`AndroidManifest.xml`,
///   `classes.dex`) or a Java archive (`META-INF/MANIFEST.MF`).
package enum ContentClassifier {
  /// Classifies `head` given libmagic's `magic` result for the same bytes; `truncated` when the
  /// item goes on past `head`.
  package static func classify(
    head: UnsafeRawBufferPointer, truncated: Bool, magic: MagicResult, registry: TypeRegistry
  ) -> ContentType {
    let mime = MIMEType.normalized(magic.mimeType)
    var result = ContentType(
      type: registry.type(forMIMEType: mime), mimeType: mime, magicDescription: magic.description)
    if head.isEmpty {
      result.type = .data
      result.isEmpty = true
      return result
    }
    if startsWith(head, elfMagic) {
      refineELF(&result, head: head, mime: mime, registry: registry)
      return result
    }
    // Before the NUL rule, and whatever libmagic said: GLib still loads a desktop entry with
    // NUL bytes or binary data after its lines (review 13), and runs its Exec= as well.
    var firstGroup: String? = nil
    switch iniGroup(head, truncated: truncated) {
    case .found(.themeDescription, let group):
      if let (type, evidence) = themeDescription(head, truncated: truncated, group: group) {
        result.type = type
        result.refinement = evidence
        return result
      }
    case .found(let type, let group):
      result.type = type
      result.refinement = "\(group) group"
      return result
    case .beyondHead:
      // Only blank and comment lines so far: the file may still be a desktop entry, which is
      // what share then takes it for (review 15).
      result.type = .desktopEntry
      result.refinement = "text whose first group lies beyond the part share reads"
      return result
    case .other(let group):
      firstGroup = group
    }
    if isText(result.type, mime: mime, registry: registry) {
      refineText(&result, head: head, firstGroup: firstGroup, mime: mime, registry: registry)
      return result
    }
    refineBinary(&result, head: head, mime: mime, registry: registry)
    return result
  }

  /// What share knows better than libmagic about text: NUL bytes, PEM armor and SSH keys,
  /// documents with macros written as text, a `#!` line, a systemd unit or D-Bus service file by
  /// its `firstGroup` (from `iniGroup`), and whether a script is a keyword guess.
  private static func refineText(
    _ result: inout ContentType, head: UnsafeRawBufferPointer, firstGroup: String?, mime: String, registry: TypeRegistry
  ) {
    // Only libmagic's generic answer: a binary format it names (an OpenPGP keyring, whose
    // armored form shared-mime-info calls text) keeps its type.
    if mime == "text/plain", head.contains(0), !hasWideTextBOM(head) {
      result.type = .data
      result.refinement = "binary data (NUL bytes) that libmagic called \(mime)"
      return
    }
    if let (type, label) = pemType(head) ?? sshPublicKeyType(head) {
      result.type = type
      result.refinement = label
      return
    }
    if let element = flatOpenDocumentMacros(head) {
      result.type = .openDocumentMacros
      result.refinement = "flat OpenDocument file with macros (\(element))"
      return
    }
    if let evidence = officeTextMacros(head) {
      result.type = .macroEnabled
      result.refinement = evidence
      return
    }
    if !registry.conforms(result.type, to: .script), let (type, interpreter) = shebangType(head) {
      result.type = type
      result.refinement = "script for \(interpreter) (#! line)"
      return
    }
    if result.type == .plainText, let group = firstGroup, let type = serviceFileType(group), registry.conforms(type, to: .plainText) {
      result.type = type
      result.refinement = "\(group) group"
      return
    }
    result.isKeywordGuess = isKeywordGuess(result.type, head: head, registry: registry)
  }

  /// An ELF is a program whatever libmagic calls it. The kernel's loader checks the magic, the
  /// type (`e_type`) and the machine, never the byte-order byte (`EI_DATA`); libmagic reads it,
  /// and with 0, 2, 3 or 0xFF there answers application/octet-stream, which was accepted as
  /// data under any name, `holiday.jpg` included (review 15). libmagic's own ELF type stands.
  private static func refineELF(
    _ result: inout ContentType, head: UnsafeRawBufferPointer, mime: String, registry: TypeRegistry
  ) {
    if isAppImage(head) {
      result.type = .appImage
      result.refinement = "AppImage (ELF with AppImage signature)"
    } else if !registry.conforms(result.type, to: .unixExecutable) {
      result.type = .unixExecutable
      result.refinement = "ELF header (libmagic said \(mime.isEmpty ? "nothing" : mime))"
    }
  }

  /// What share knows better than libmagic about content that is not text: a `#!` line before
  /// it, a DOS COM guess without an MZ header, an NE module with no code, a pacman package in a
  /// tar, a VBA project in an OLE2 document, a ZIP's contents.
  private static func refineBinary(
    _ result: inout ContentType, head: UnsafeRawBufferPointer, mime: String, registry: TypeRegistry
  ) {
    if !registry.conforms(result.type, to: .script), let (type, interpreter) = binaryShebangType(head) {
      result.type = type
      result.refinement = "script for \(interpreter) (#! line before binary data)"
      return
    }
    // libmagic's DOS COM guess rests on a file's first bytes (a jump or a move): about one
    // random file in a hundred — an encrypted container, compressed data — gets it (outside
    // review: 36 of 3,000). A program DOS or Windows loads as an executable starts with MZ;
    // without it the guess is no evidence, and a COM file runs nowhere but in an emulator.
    if mime == "application/x-dosexec", !startsWith(head, [0x4D, 0x5A]), !startsWith(head, [0x5A, 0x4D]) {
      result.type = .data
      result.refinement = "data (libmagic's guess of a DOS COM program from its first bytes; no MZ header)"
      return
    }
    if result.type == .data, isDalvikExecutable(head) {
      result.type = dalvikExecutable
      result.refinement = "Dalvik executable (dex header)"
      return
    }
    if registry.conforms(result.type, to: "com.microsoft.windows-executable"), isResourceOnlyNEModule(head) {
      result.type = neResourceModule
      result.refinement = "NE module with no code segments and no entry point"
      return
    }
    if let evidence = packageInTar(head, type: result.type, registry: registry) {
      result.type = archPackage
      result.refinement = evidence
      return
    }
    // Only for what libmagic already named an OLE2 file, and not for the installers (msi)
    // in one: a legacy Office document whose directory names a VBA project runs it when opened.
    if registry.conforms(result.type, to: .compoundDocument), !registry.conforms(result.type, to: .installerPackage),
      let evidence = CompoundFile.macros(in: head)
    {
      result.type = .macroEnabled
      result.refinement = evidence
      return
    }
    if startsWith(head, [0x50, 0x4B, 0x03, 0x04]),
      result.type == .data || registry.conforms(result.type, to: .zipArchive),
      let (type, evidence) = zipType(head, registry: registry),
      type != result.type
    {
      result.type = type
      result.refinement = evidence
    }
  }

  /// `classify(head:truncated:magic:registry:)` for bytes in an array.
  package static func classify(head: [UInt8], truncated: Bool, magic: MagicResult, registry: TypeRegistry) -> ContentType {
    head.withUnsafeBytes { classify(head: $0, truncated: truncated, magic: magic, registry: registry) }
  }

  // MARK: - Text

  /// Whether content of `type` is text. libmagic calls an ini file whose first group it does not
  /// know (an Internet shortcut that starts with its property group) a "Generic INItialization
  /// configuration", not text.
  private static func isText(_ type: TypeIdentifier, mime: String, registry: TypeRegistry) -> Bool {
    registry.conforms(type, to: .text) || mime == "application/x-wine-extension-ini"
  }

  private static func hasWideTextBOM(_ head: UnsafeRawBufferPointer) -> Bool {
    startsWith(head, [0xFF, 0xFE]) || startsWith(head, [0xFE, 0xFF])
      || startsWith(head, [0x00, 0x00, 0xFE, 0xFF])
  }

  /// The script type named by a `#!` first line, and the interpreter's name.
  static func shebangType(_ head: UnsafeRawBufferPointer) -> (TypeIdentifier, String)? {
    let offset = startsWith(head, [0xEF, 0xBB, 0xBF]) ? 3 : 0
    guard head.count >= offset + 2, head[offset] == UInt8(ascii: "#"), head[offset + 1] == UInt8(ascii: "!")
    else { return nil }
    var end = offset + 2
    while end < head.count, end < offset + 512, head[end] != UInt8(ascii: "\n") { end += 1 }
    let line = String(decoding: UnsafeRawBufferPointer(rebasing: head[(offset + 2)..<end]), as: UTF8.self)
    var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
    guard !words.isEmpty else { return (.script, "an unnamed interpreter") }
    var interpreter = basename(words.removeFirst())
    if interpreter == "env" {
      // env [-S] [-i] [NAME=value...] program
      while let word = words.first, word.hasPrefix("-") || word.contains("=") { words.removeFirst() }
      interpreter = words.first.map(basename) ?? "env"
    }
    let name = interpreter.lowercased()
    let type: TypeIdentifier
    if ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "csh", "tcsh", "fish", "busybox", "yash"]
      .contains(name)
    {
      type = .shellScript
    } else if name.hasPrefix("python") || name.hasPrefix("pypy") {
      type = .pythonScript
    } else if name.hasPrefix("perl") {
      type = "public.perl-script"
    } else if name.hasPrefix("ruby") || name == "jruby" {
      type = "public.ruby-script"
    } else if name.hasPrefix("php") {
      type = "public.php-script"
    } else if ["node", "nodejs", "deno", "bun", "qjs", "gjs"].contains(name) {
      type = "com.netscape.javascript-source"
    } else if name == "pwsh" || name == "powershell" {
      type = "com.microsoft.powershell-script"
    } else if name.hasPrefix("tclsh") || name.hasPrefix("wish") || name == "expect" {
      type = "public.tcl-script"
    } else {
      type = .script
    }
    return (type, Escaping.escaped(interpreter, maximumLength: 40))
  }

  private static func basename(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }

  // MARK: - Binaries

  /// `\x7FELF`, the first four bytes of every ELF file.
  static let elfMagic: [UInt8] = [0x7F, 0x45, 0x4C, 0x46]

  /// ELF magic, then `AI` and type 1 or 2 in the ELF padding (AppImage type 1 and 2).
  static func isAppImage(_ head: UnsafeRawBufferPointer) -> Bool {
    head.count >= 11 && startsWith(head, elfMagic) && head[8] == UInt8(ascii: "A")
      && head[9] == UInt8(ascii: "I") && (head[10] == 1 || head[10] == 2)
  }

  /// What the ZIP local file headers in `head` show, with the evidence; nil for a plain ZIP.
  static func zipType(_ head: UnsafeRawBufferPointer, registry: TypeRegistry) -> (TypeIdentifier, String)? {
    let entries = zipEntries(head)
    let names = entries.map(\.name)
    if let first = entries.first, first.name == "mimetype", let declared = first.storedText {
      if let found = mimetypeEntryType(declared, registry: registry) {
        guard registry.conforms(found.0, to: .openDocument), let macros = openDocumentMacros(names) else { return found }
        return (.openDocumentMacros, "OpenDocument package with macros (\(Escaping.escaped(macros, maximumLength: 60)))")
      }
    }
    let isOOXML = names.contains { $0 == "[Content_Types].xml" || $0.hasPrefix("_rels/") || $0.hasPrefix("docProps/") }
    if isOOXML { return officeOpenXMLType(names, declared: declaredVBAProject(entries, head: head)) }
    if names.contains("META-INF/container.xml") {
      return ("org.idpf.epub-container", "EPUB container (META-INF/container.xml)")
    }
    if names.contains(where: { $0 == "AndroidManifest.xml" || $0 == "classes.dex" }) {
      return ("com.android.package-archive", "Android package (AndroidManifest.xml)")
    }
    if names.contains("META-INF/MANIFEST.MF") {
      return ("com.sun.java-archive", "Java archive (META-INF/MANIFEST.MF)")
    }
    return nil
  }

  /// A package that names its own type in a stored first entry `mimetype`: OpenDocument, EPUB.
  private static func mimetypeEntryType(_ declared: String, registry: TypeRegistry) -> (TypeIdentifier, String)? {
    let shown = Escaping.escaped(declared, maximumLength: 80)
    if declared.hasPrefix("application/vnd.oasis.opendocument.") {
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

  /// The Office Open XML document kind its parts show: `word/`, `xl/` or `ppt/`, macro-enabled
  /// when it carries a VBA project (`vbaProject.bin`, `vbaData.xml`, in any folder and any case:
  /// Office compares part names ignoring case), or when the package `declared` one under another
  /// name (`declaredVBAProject`).
  private static func officeOpenXMLType(_ names: [String], declared: String?) -> (TypeIdentifier, String) {
    let macros =
      names.first { name in
        let lowered = name.lowercased()
        let part = lowered.split(separator: "/").last
        // Excel 4.0 (XLM) macro sheets: `xl/macrosheets/`, `xl/intlmacrosheets/` (review 22).
        return part == "vbaproject.bin" || part == "vbadata.xml" || lowered.contains("macrosheets/")
      } ?? declared
    for (folder, plain, macroEnabled) in [
      ("word/", "org.openxmlformats.wordprocessingml.document", "org.openxmlformats.wordprocessingml.document.macroenabled"),
      ("xl/", "org.openxmlformats.spreadsheetml.sheet", "org.openxmlformats.spreadsheetml.sheet.macroenabled"),
      ("ppt/", "org.openxmlformats.presentationml.presentation", "org.openxmlformats.presentationml.presentation.macroenabled"),
    ] as [(String, TypeIdentifier, TypeIdentifier)] where names.contains(where: { $0.hasPrefix(folder) }) {
      if let macros { return (macroEnabled, "Office Open XML parts with macros (\(Escaping.escaped(macros, maximumLength: 60)))") }
      return (plain, "Office Open XML parts (\(folder))")
    }
    if let macros { return (.macroEnabled, "Office Open XML parts with macros (\(Escaping.escaped(macros, maximumLength: 60)))") }
    return (.openXML, "Office Open XML parts ([Content_Types].xml)")
  }

  struct ZipEntry {
    var name: String
    /// The first bytes of a stored (uncompressed) entry, as text, when they fit the head.
    var storedText: String?
    /// How the entry is compressed (0 stored, 8 deflated), and where its data lies in the head.
    var method = 0
    var data: Range<Int> = 0..<0
  }

  /// The local file headers found in `head`, in order: all of them the head holds (each takes
  /// at least 30 bytes), so a VBA project after many small parts is still seen.
  static func zipEntries(_ head: UnsafeRawBufferPointer) -> [ZipEntry] {
    var entries: [ZipEntry] = []
    var offset = 0
    while offset + 30 <= head.count,
      head[offset] == 0x50, head[offset + 1] == 0x4B, head[offset + 2] == 3, head[offset + 3] == 4
    {
      let flags = le16(head, offset + 6)
      let method = le16(head, offset + 8)
      let compressedSize = le32(head, offset + 18)
      let nameLength = le16(head, offset + 26)
      let extraLength = le16(head, offset + 28)
      let nameStart = offset + 30
      guard nameStart + nameLength <= head.count else { break }
      let name = String(decoding: UnsafeRawBufferPointer(rebasing: head[nameStart..<(nameStart + nameLength)]), as: UTF8.self)
      let dataStart = nameStart + nameLength + extraLength
      var entry = ZipEntry(name: name, storedText: nil, method: method)
      entry.data = min(dataStart, head.count)..<min(dataStart + compressedSize, head.count)
      if method == 0, compressedSize > 0, compressedSize <= 256, dataStart + compressedSize <= head.count {
        entry.storedText = String(
          decoding: UnsafeRawBufferPointer(rebasing: head[dataStart..<(dataStart + compressedSize)]), as: UTF8.self
        ).trimmingBlanks()
      }
      entries.append(entry)
      if flags & 0x8 != 0 && compressedSize == 0 {
        // Sizes follow the data: find the next local header by its signature.
        let next = ByteSearch.firstIndex(of: [0x50, 0x4B, 0x03, 0x04], in: head, from: dataStart)
        entries[entries.count - 1].data = min(dataStart, head.count)..<(next ?? head.count)
        guard let next else { break }
        offset = next
      } else {
        guard compressedSize != 0xFFFF_FFFF else { break }
        offset = dataStart + compressedSize
      }
    }
    return entries
  }

  // MARK: - Bytes

  static func startsWith(_ head: UnsafeRawBufferPointer, _ prefix: [UInt8]) -> Bool {
    guard head.count >= prefix.count else { return false }
    for (index, byte) in prefix.enumerated() where head[index] != byte { return false }
    return true
  }

  /// Little-endian integers in a head (ZIP headers, OLE2's `CompoundFile`).
  static func le16(_ head: UnsafeRawBufferPointer, _ offset: Int) -> Int {
    Int(head[offset]) | Int(head[offset + 1]) << 8
  }

  static func le32(_ head: UnsafeRawBufferPointer, _ offset: Int) -> Int {
    Int(head[offset]) | Int(head[offset + 1]) << 8 | Int(head[offset + 2]) << 16 | Int(head[offset + 3]) << 24
  }
}
