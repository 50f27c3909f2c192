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
/// - content starting `ID;`, which Excel opens as a SYLK sheet under any name, is one when it
///   holds a formula or marks itself a macro sheet (`ContentClassifier+SYLK.swift`);
/// - an OLE2 document whose directory (in the head) names a VBA project is macro-enabled;
/// - a ZIP (or unrecognised data starting `PK\3\4`) is looked into: an OpenDocument `mimetype`
///   first entry, Office Open XML parts (`[Content_Types].xml`, `_rels/`, `docProps/`, then
///   `word/` docx, `xl/` xlsx, `ppt/` pptx), an Android package (`AndroidManifest.xml`,
///   `classes.dex`) or a Java archive (`META-INF/MANIFEST.MF`).
package enum ContentClassifier {
  /// Classifies `head` given libmagic's `magic` result for the same bytes; `truncated` when the
  /// item goes on past `head`. `whole`: all of a complete item that goes on past its head, for
  /// the checks that read a package's directory wherever it lies (`needsWhole`); a head that is
  /// not truncated is the whole item.
  package static func classify(
    head: UnsafeRawBufferPointer, truncated: Bool, magic: MagicResult, registry: TypeRegistry, whole: ItemBytes? = nil
  ) -> ContentType {
    let mime = MIMEType.normalized(magic.mimeType)
    var result = ContentType(
      type: registry.type(forMIMEType: mime), mimeType: mime, magicDescription: magic.description)
    if head.isEmpty {
      result.type = .data
      result.isEmpty = true
      return result
    }
    if refineProgram(&result, head: head, mime: mime, registry: registry) { return result }
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
    case .found(.desktopEntry, let group) where isFolderSettings(head, truncated: truncated):
      result.type = .folderSettings
      result.refinement = "\(group) group of a folder's icon and name only"
      return result
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
      if let start = desktopEntryStart(head) {
        result.type = .desktopEntry
        result.refinement = start
        return result
      }
    }
    // Before the text rules, whatever libmagic said: Office opens these under any name.
    let saidText = isText(result.type, mime: mime, registry: registry)
    if let (type, evidence) = officeContentUnderAnyName(head, whole: truncated ? whole : nil, saidText: saidText) {
      result.type = type
      result.refinement = evidence
      return result
    }
    // A ZIP or an OLE2 file is never text, whatever its first entries made libmagic call it
    // (review 23: a `visio/` entry made a Word package "Visio drawing", XML, not looked into).
    if saidText, !startsWith(head, zipMagic), !startsWith(head, compoundFileMagic) {
      refineText(&result, head: head, firstGroup: firstGroup, mime: mime, registry: registry, whole: truncated ? whole : nil)
      return result
    }
    refineBinary(&result, head: head, mime: mime, registry: registry, whole: whole ?? (truncated ? nil : ItemBytes(head)))
    return result
  }

  /// Office content that runs something under any name, in words: a SYLK sheet with a macro or
  /// a formula (Excel opens content that starts `ID;` as SYLK, a CSV's included; review 33), or
  /// Office's container of a VBA project on its own — Word's "Web Page" form of a document with
  /// macros is an HTML file and, beside it, `NAME_files/editdata.mso`, which starts so (review
  /// 33 M4: a folder of the two was accepted); nothing but Office reads one.
  /// An Office document written as text with macros counts too whatever libmagic said
  /// (`ContentClassifier+TextForms.swift`); when it `saidText`, `refineText` looks for them.
  static func officeContentUnderAnyName(_ head: UnsafeRawBufferPointer, whole: ItemBytes?, saidText: Bool) -> (TypeIdentifier, String)? {
    if startsWith(head, activeMimeMagic) {
      return (.macroEnabled, "ActiveMime container (a VBA project, as Word keeps one in editdata.mso)")
    }
    if let evidence = sylkMacros(head, whole: whole) { return (sylkSheet, evidence) }
    if let version = biffMacroSheet(head) { return (.macroEnabled, "Excel \(version) macro sheet (BIFF)") }
    guard !saidText, isTextDocumentForm(head) else { return nil }
    return textDocumentMacros(head) ?? whole.flatMap { wholeTextDocumentMacros(head, whole: $0) }
  }

  /// The Excel version of a raw BIFF2, BIFF3 or BIFF4 file that says in its BOF record it is a
  /// macro sheet (type 0x0040), whose `Auto_Open` runs when Excel opens it under any name
  /// (review 35: accepted as data as `.xls`); nil for anything else.
  static func biffMacroSheet(_ head: UnsafeRawBufferPointer) -> String? {
    guard head.count >= 8, head[0] == 0x09, let version = [0x00: "2.x", 0x02: "3.0", 0x04: "4.0"][head[1]],
      (4...16).contains(le16(head, 2)), le16(head, 6) == 0x0040
    else { return nil }
    return version
  }

  /// Whether a head's verdict may change once all of the item is there: a ZIP, whose central
  /// directory is at its end, an OLE2 file, whose directory may be anywhere, an Office
  /// document written as text, whose VBA project may come after its pages, or a SYLK sheet,
  /// whose macro may come after its cells.
  package static func needsWhole(_ head: UnsafeRawBufferPointer) -> Bool {
    startsWith(head, zipMagic) || startsWith(head, compoundFileMagic) || isTextDocumentForm(head) || isSYLK(head)
  }

  static let zipMagic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
  /// ActiveMime's header: the word, then two NUL bytes (text that starts with the word is text).
  static let activeMimeMagic = Array("ActiveMime".utf8) + [0, 0]
  static let compoundFileMagic: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]

  /// What share knows better than libmagic about text: NUL bytes, PEM armor and SSH keys,
  /// documents with macros written as text, a `#!` line, a systemd unit or D-Bus service file by
  /// its `firstGroup` (from `iniGroup`), and whether a script is a keyword guess.
  private static func refineText(
    _ result: inout ContentType, head: UnsafeRawBufferPointer, firstGroup: String?, mime: String, registry: TypeRegistry,
    whole: ItemBytes?
  ) {
    // Only libmagic's generic answer: a binary format it names (an OpenPGP keyring, whose
    // armored form shared-mime-info calls text) keeps its type.
    if mime == "text/plain", head.contains(0), !startsAsWideText(head) {
      result.type = .data
      result.refinement = "binary data (NUL bytes) that libmagic called \(mime)"
      return
    }
    if let (type, label) = pemType(head) ?? sshPublicKeyType(head) {
      result.type = type
      result.refinement = label
      return
    }
    if let (type, evidence) = textDocumentMacros(head) ?? whole.flatMap({ wholeTextDocumentMacros(head, whole: $0) }) {
      result.type = type
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
    if mime == "application/x-setupscript", !hasSetupSignature(head) {
      result.type = .plainText
      result.refinement = "text (a [Version] group without a Windows setup signature, which libmagic took for INF)"
      return
    }
    result.isKeywordGuess = isKeywordGuess(result.type, head: head, registry: registry)
  }

  /// Whether a head libmagic calls Windows setup information (a `[Version]` group first) has
  /// a signature Windows' setup functions require of one (`Signature=` with `$Windows NT$`,
  /// `$Chicago$` or `$Windows 95$`): without it they refuse the file, and an `.ini` of an
  /// application's own with a `[Version]` group is only text (review 35: refused as INF).
  static func hasSetupSignature(_ head: UnsafeRawBufferPointer) -> Bool {
    ["$windows nt$", "$chicago$", "$windows 95$"].contains { ByteSearch.containsIgnoringCase($0, in: head) }
  }

  /// Whether `head` is a program `result` now says so of. A PE is a Windows program whatever
  /// libmagic called it (review 35: "ISO 9660" for `CD001` written into its padding at 32 KiB);
  /// when libmagic named one, the binary rules go on (an installer's type).
  private static func refineProgram(
    _ result: inout ContentType, head: UnsafeRawBufferPointer, mime: String, registry: TypeRegistry
  ) -> Bool {
    if startsWith(head, elfMagic) {
      refineELF(&result, head: head, mime: mime, registry: registry)
      return true
    }
    if let (type, evidence) = launcherByContent(head) {
      result.type = type
      result.refinement = evidence
      return true
    }
    if isFat64MachO(head), !registry.conforms(result.type, to: machO) {
      result.type = machO
      result.refinement = "Mach-O universal binary, 64-bit header (libmagic said \(mime.isEmpty ? "nothing" : mime))"
      return true
    }
    let windows: TypeIdentifier = "com.microsoft.windows-executable"
    guard isPEProgram(head), !registry.conforms(result.type, to: windows), !registry.conforms(result.type, to: .installerPackage)
    else { return false }
    result.type = windows
    result.refinement = "PE header (libmagic said \(mime.isEmpty ? "nothing" : mime))"
    return true
  }

  static let machO: TypeIdentifier = "com.apple.mach-o-binary"

  /// A universal (fat) Mach-O binary with 64-bit offsets (`FAT_MAGIC_64`, 0xCAFEBABF, big-endian,
  /// then 1 to 64 architectures), which macOS loads as it loads one with `0xCAFEBABE` and which
  /// libmagic 5.44 does not know (review 37: accepted as data under any name). No Java class
  /// starts so (theirs is `0xCAFEBABE`).
  static func isFat64MachO(_ head: UnsafeRawBufferPointer) -> Bool {
    guard head.count >= 8, startsWith(head, [0xCA, 0xFE, 0xBA, 0xBF]) else { return false }
    let count = head[4...7].reduce(0) { $0 << 8 | Int($1) }
    return (1...64).contains(count)
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
    _ result: inout ContentType, head: UnsafeRawBufferPointer, mime: String, registry: TypeRegistry, whole: ItemBytes?
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
    if let (type, evidence) = installerPackage(head, type: result.type, registry: registry) {
      result.type = type
      result.refinement = evidence
      return
    }
    // Any OLE2 file, whatever libmagic named it (review 23: a SummaryInformation application
    // name, which Office does not read, made an xls "Crystal Reports"), but the installers
    // (msi), refused as such: a legacy Office document whose directory names a VBA project
    // runs it when opened.
    if startsWith(head, compoundFileMagic), !registry.conforms(result.type, to: .installerPackage),
      let evidence = CompoundFile.macros(in: head) ?? whole.flatMap(CompoundFile.macros(inWhole:))
    {
      result.type = .macroEnabled
      result.refinement = evidence
      return
    }
    if startsWith(head, compoundFileMagic), let whole, let (type, evidence) = encryptedPackageType(whole, registry: registry) {
      result.type = type
      result.refinement = evidence
      return
    }
    if startsWith(head, compoundFileMagic), isText(result.type, mime: mime, registry: registry) {
      result.type = .compoundDocument
      result.refinement = "OLE2 compound file (libmagic said \(mime))"
    }
    if startsWith(head, zipMagic) { refineZip(&result, head: head, whole: whole, registry: registry) }
  }

  /// `classify(head:truncated:magic:registry:whole:)` for bytes in an array.
  package static func classify(
    head: [UInt8], truncated: Bool, magic: MagicResult, registry: TypeRegistry, whole: ItemBytes? = nil
  ) -> ContentType {
    head.withUnsafeBytes { classify(head: $0, truncated: truncated, magic: magic, registry: registry, whole: whole) }
  }

  // MARK: - Text

  /// Whether content of `type` is text. libmagic calls an ini file whose first group it does not
  /// know (an Internet shortcut that starts with its property group) a "Generic INItialization
  /// configuration", not text.
  static func isText(_ type: TypeIdentifier, mime: String, registry: TypeRegistry) -> Bool {
    registry.conforms(type, to: .text) || mime == "application/x-wine-extension-ini"
  }

  private static func startsAsWideText(_ head: UnsafeRawBufferPointer) -> Bool {
    isWideText(head) || startsWith(head, [0x00, 0x00, 0xFE, 0xFF])
  }

  /// The script type named by a `#!` first line, and the interpreter's name: a line whose first
  /// word is a path (`#!/bin/sh`, `#! /usr/bin/env python3`), as the kernel runs it, or an
  /// interpreter named without one (`#!python3`, which launchers rewrite). Anything else after
  /// `#!` names no interpreter: Rust's inner attributes (`#![no_std]`, review 43: 9 of 348 `.rs`
  /// files of five Debian crates were refused as scripts), HTK label files (`#!MLF!#`).
  static func shebangType(_ head: UnsafeRawBufferPointer) -> (TypeIdentifier, String)? {
    let offset = startsWith(head, [0xEF, 0xBB, 0xBF]) ? 3 : 0
    guard head.count >= offset + 2, head[offset] == UInt8(ascii: "#"), head[offset + 1] == UInt8(ascii: "!")
    else { return nil }
    var end = offset + 2
    while end < head.count, end < offset + 512, head[end] != UInt8(ascii: "\n") { end += 1 }
    let line = String(decoding: UnsafeRawBufferPointer(rebasing: head[(offset + 2)..<end]), as: UTF8.self)
    var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
    guard let first = words.first else { return (.script, "an unnamed interpreter") }
    guard first.hasPrefix("/") || interpreterType(basename(first)) != nil else { return nil }
    var interpreter = basename(words.removeFirst())
    if interpreter == "env" {
      // env [-S] [-i] [NAME=value...] program
      while let word = words.first, word.hasPrefix("-") || word.contains("=") { words.removeFirst() }
      interpreter = words.first.map(basename) ?? "env"
    }
    return (interpreterType(interpreter) ?? .script, Escaping.escaped(interpreter, maximumLength: 40))
  }

  /// The script type of an interpreter known by its name (`env` itself: a script), nil for
  /// other names.
  static func interpreterType(_ interpreter: String) -> TypeIdentifier? {
    let name = interpreter.lowercased()
    if ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "csh", "tcsh", "fish", "busybox", "yash"].contains(name) {
      return .shellScript
    }
    if name.hasPrefix("python") || name.hasPrefix("pypy") { return .pythonScript }
    if name.hasPrefix("perl") { return "public.perl-script" }
    if name.hasPrefix("ruby") || name == "jruby" { return "public.ruby-script" }
    if name.hasPrefix("php") { return "public.php-script" }
    if ["node", "nodejs", "deno", "bun", "qjs", "gjs"].contains(name) { return "com.netscape.javascript-source" }
    if name == "pwsh" || name == "powershell" { return "com.microsoft.powershell-script" }
    if name.hasPrefix("tclsh") || name.hasPrefix("wish") || name == "expect" { return "public.tcl-script" }
    if [
      "env", "awk", "gawk", "mawk", "nawk", "sed", "lua", "luajit", "rscript", "osascript", "make", "runhaskell", "escript", "guile",
      "sbcl", "julia",
    ]
    .contains(name) {
      return .script
    }
    return nil
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
