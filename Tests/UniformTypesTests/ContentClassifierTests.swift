import Foundation
import Testing

@testable import UniformTypes

@Suite("Content classification (share's checks on top of libmagic)")
struct ContentClassifierTests {
  let registry = TypeRegistry.system()

  func classify(_ head: [UInt8], _ mime: String, _ description: String = "", truncated: Bool = false) -> ContentType {
    ContentClassifier.classify(
      head: head, truncated: truncated, magic: MagicResult(mimeType: mime, description: description), registry: registry)
  }

  /// Review 35: libmagic calls any text that starts with a `[Version]` group Windows setup
  /// information; Windows' setup functions take only one with a signature.
  @Test func aVersionGroupIsSetupInformationOnlyWithASetupSignature() {
    let mime = "application/x-setupscript"
    let settings = classify(Array("[Version]\nnumber=3\nname=editor\n".utf8), mime)
    #expect(settings.type == .plainText, "\(settings)")
    for signature in ["$Windows NT$", "$CHICAGO$", "$windows 95$"] {
      let inf = classify(Array("[Version]\r\nSignature=\"\(signature)\"\r\n[DefaultInstall]\r\n".utf8), mime)
      #expect(inf.type == "com.microsoft.setup-information", "\(signature): \(inf)")
    }
  }

  @Test("a ZIP libmagic calls application/zip is recognised as Word, Excel or PowerPoint by its parts")
  func officeOpenXML() {
    #expect(classify(SampleBytes.docx, "application/zip").type == "org.openxmlformats.wordprocessingml.document")
    #expect(classify(SampleBytes.xlsx, "application/zip").type == "org.openxmlformats.spreadsheetml.sheet")
    let pptx = SampleBytes.zip([("[Content_Types].xml", [0x3C]), ("ppt/presentation.xml", [0x3C])])
    #expect(classify(pptx, "application/zip").type == "org.openxmlformats.presentationml.presentation")
    let generic = SampleBytes.zip([("_rels/.rels", [0x3C]), ("custom/part.xml", [0x3C])])
    #expect(classify(generic, "application/zip").type == .openXML)
    #expect(classify(SampleBytes.plainZip, "application/zip").type == .zipArchive)
    #expect(classify(SampleBytes.plainZip, "application/zip").refinement == nil)
  }

  /// Review 28: a 3MF model and XPS documents were "Office Open XML documents", filed with Word's.
  @Test("3MF models and XPS documents in the same container are not Office documents; a VBA project still makes one")
  func otherOpenPackagingConventions() {
    let model = SampleBytes.zip([("[Content_Types].xml", [0x3C]), ("_rels/.rels", [0x3C]), ("3D/3dmodel.model", [0x3C])])
    #expect(classify(model, "application/zip").type == "com.microsoft.3mf")
    let xps = SampleBytes.zip([("[Content_Types].xml", [0x3C]), ("FixedDocSeq.fdseq", [0x3C]), ("Documents/1/FixedDoc.fdoc", [0x3C])])
    #expect(classify(xps, "application/zip").type == .zipArchive)
    #expect(registry.conforms(registry.type(forFilename: "doc.oxps"), to: "public.composite-content"))
    let hidden = SampleBytes.zip([("[Content_Types].xml", [0x3C]), ("3D/3dmodel.model", [0x3C]), ("vbaProject.bin", [0])])
    #expect(classify(hidden, "application/zip").type == .macroEnabled)
  }

  @Test("OpenDocument, Android and Java archives are recognised from their first entries")
  func otherZipFamilies() {
    #expect(classify(SampleBytes.odt, "application/zip").type == "org.oasis-open.opendocument.text")
    let graphics = SampleBytes.zip([("mimetype", Array("application/vnd.oasis.opendocument.graphics".utf8))])
    #expect(registry.conforms(classify(graphics, "application/zip").type, to: .openDocument))
    #expect(classify(SampleBytes.apk, "application/zip").type == "com.android.package-archive")
    #expect(classify(SampleBytes.jar, "application/zip").type == "com.sun.java-archive")
    #expect(classify(SampleBytes.jar, "application/octet-stream").type == "com.sun.java-archive")
  }

  @Test("entries written with a data descriptor (sizes after the data) are still walked")
  func dataDescriptor() {
    var bytes = SampleBytes.zip([("[Content_Types].xml", Array("<Types/>".utf8)), ("word/document.xml", [0x3C])])
    // Set bit 3 and zero the first entry's sizes, as streaming writers do.
    bytes[6] |= 0x08
    for offset in 18..<26 { bytes[offset] = 0 }
    #expect(classify(bytes, "application/zip").type == "org.openxmlformats.wordprocessingml.document")
  }

  @Test("a VBA project makes an OOXML package macro-enabled in any folder and any case, and after many small parts")
  func vbaProjectAnywhereInTheHead() {
    let macroSlide: TypeIdentifier = "org.openxmlformats.presentationml.presentation.macroenabled"
    #expect(classify(SampleBytes.sldm, "application/zip").type == macroSlide)
    let upper = SampleBytes.zip([("[Content_Types].xml", [0x3C]), ("ppt/slides/slide1.xml", [0x3C]), ("PPT/VBAPROJECT.BIN", [0])])
    #expect(classify(upper, "application/zip").type == macroSlide)
    let atRoot = SampleBytes.zip([("[Content_Types].xml", [0x3C]), ("xl/workbook.xml", [0x3C]), ("vbaProject.bin", [0])])
    #expect(classify(atRoot, "application/zip").type == "org.openxmlformats.spreadsheetml.sheet.macroenabled")
    // 200 parts before the VBA project, all within the head (the walk used to stop at 64).
    let parts = (0..<200).map { ("word/media/image\($0).xml", [UInt8(0x3C)]) }
    let late = SampleBytes.zip([("[Content_Types].xml", [0x3C])] + parts + [("word/vbaProject.bin", [0])])
    #expect(late.count < ContentSniffer.headLength)
    #expect(classify(late, "application/zip").type == "org.openxmlformats.wordprocessingml.document.macroenabled")
    // A part that only ends in the name is not a VBA project.
    let lookalike = SampleBytes.zip([("[Content_Types].xml", [0x3C]), ("word/notvbaProject.bin", [0])])
    #expect(classify(lookalike, "application/zip").type == "org.openxmlformats.wordprocessingml.document")
  }

  /// Found by review 15: a .doc with a `Macros` storage, or an .xls with `_VBA_PROJECT_CUR`, was
  /// a plain Office document.
  @Test func aLegacyOfficeDocumentWithAVBAProjectInItsDirectoryIsMacroEnabled() {
    let word = [("WordDocument", UInt8(2)), ("1Table", 2)]
    #expect(classify(SampleBytes.compoundFile(word), "application/msword").type == "com.microsoft.word.doc")
    for (name, mime) in [
      ("Macros", "application/msword"), ("_VBA_PROJECT_CUR", "application/vnd.ms-excel"), ("VBA", "application/x-ole-storage"),
      ("_VBA_PROJECT", "application/cdfv2"), ("macros", "application/msword"),
    ] {
      let content = classify(SampleBytes.compoundFile(word + [(name, 1)]), mime)
      #expect(content.type == .macroEnabled, "\(name)")
      #expect(content.label == "OLE2 document with a VBA project (\(name))")
    }
    // A directory of two sectors apart, found through the FAT; 4,096-byte sectors (version 4).
    let many = (0..<6).map { ("Stream\($0)", UInt8(2)) } + [("Macros", 1)]
    #expect(classify(SampleBytes.compoundFile(many, directory: [3, 1]), "application/msword").type == .macroEnabled)
    #expect(classify(SampleBytes.compoundFile(many, sectorShift: 12, directory: [2]), "application/msword").type == .macroEnabled)
    // The installer an msi is, and a directory past the head, keep libmagic's type.
    #expect(classify(SampleBytes.compoundFile(word + [("Macros", 1)]), "application/x-msi").type == "com.microsoft.windows-installer")
    let far = SampleBytes.compoundFile(word + [("Macros", 1)], sectorShift: 12, directory: [20])
    #expect(classify(Array(far.prefix(ContentSniffer.headLength)), "application/msword").type == "com.microsoft.word.doc")
    // A FAT that loops back ends the walk.
    var loop = SampleBytes.compoundFile(word, directory: [1, 2])
    loop.replaceSubrange(512 + 8..<512 + 12, with: SampleBytes.le32(1))
    #expect(classify(loop, "application/msword").type == "com.microsoft.word.doc")
    // Random sector numbers, sizes and names in the header, the FAT and the directory never crash the walk.
    let base = SampleBytes.compoundFile(many, directory: [1, 2])
    var seed: UInt64 = 15
    for _ in 0..<500 {
      var bytes = base
      for byte in SampleBytes.random(count: 24, seed: seed) {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1
        bytes[0x1E + Int(seed >> 33) % (bytes.count - 0x1E)] = byte
      }
      #expect([.macroEnabled, "com.microsoft.word.doc"].contains(classify(bytes, "application/msword").type))
    }
  }

  @Test("ZIP refinement never overrides what libmagic identified as something else")
  func zipRefinementIsBounded() {
    #expect(classify(SampleBytes.docx, "application/x-pie-executable").type == .unixExecutable)
    #expect(classify(Array("PK\u{3}\u{4}".utf8), "application/zip").type == .zipArchive)
  }

  @Test(
    "a #! line makes text a script, by interpreter, also through env",
    arguments: [
      ("#!/bin/sh\necho", "public.shell-script"), ("#!/usr/bin/env bash\n", "public.shell-script"),
      ("#! /bin/zsh -f\n", "public.shell-script"), ("#!/usr/bin/env -S python3 -u\n", "public.python-script"),
      ("#!/usr/bin/python3.11\n", "public.python-script"), ("#!/usr/bin/env LANG=C perl -w\n", "public.perl-script"),
      ("#!/usr/bin/ruby\n", "public.ruby-script"), ("#!/usr/bin/env node\n", "com.netscape.javascript-source"),
      ("#!/usr/bin/awk -f\n", "public.script"), ("#!\n", "public.script"), ("\u{FEFF}#!/bin/sh\n", "public.shell-script"),
      ("#!/usr/bin/tclsh8.6\n", "public.tcl-script"), ("#!/usr/bin/env wish\n", "public.tcl-script"),
    ] as [(String, String)])
  func shebangs(text: String, expected: String) {
    #expect(classify(Array(text.utf8), "text/plain").type == TypeIdentifier(expected))
  }

  @Test(
    "#! names an interpreter by a path or by a known name; other text after it is not a #! line (review 43)",
    arguments: [
      ("#!python3\nprint(1)\n", "public.python-script"), ("#!bash\necho\n", "public.shell-script"),
      ("#!  mawk -f\n", "public.script"), ("#![no_std]\n#![no_main]\n", "public.plain-text"),
      ("#![cfg(feature = \"serde\")]\n\nextern crate serde;\n", "public.plain-text"), ("#!MLF!#\n\"*/a01.lab\"\n", "public.plain-text"),
    ] as [(String, String)])
  func shebangWords(text: String, expected: String) {
    #expect(classify(Array(text.utf8), "text/plain").type == TypeIdentifier(expected))
  }

  @Test("libmagic's own script type is kept")
  func libmagicScriptKept() {
    #expect(classify(Array("#!/bin/sh\n".utf8), "text/x-shellscript").type == .shellScript)
  }

  @Test("an ini file whose first group is [Desktop Entry] is a desktop entry, after comments, blank lines, a BOM or #!")
  func desktopEntries() {
    let forms = [
      "[Desktop Entry]\nExec=x\n", "# comment\n\n[Desktop Entry]\n", "\u{FEFF}[Desktop Entry]\n",
      "#!/usr/bin/env xdg-open\n[Desktop Entry]\n", "  [Desktop Entry]  \r\nExec=x\r\n", "[KDE Desktop Entry]\n",
    ]
    for form in forms { #expect(classify(Array(form.utf8), "text/plain").type == .desktopEntry, "\(form.debugDescription)") }
    // Followed by NUL bytes or binary data, whatever libmagic calls it: GLib still loads it (review 13).
    for magic in ["text/plain", "application/octet-stream"] {
      for tail: [UInt8] in [[0], [0, 0xFF, 0x7F, 0x00, 0x13], Array(repeating: 0, count: 4000)] {
        let head = Array("[Desktop Entry]\nType=Application\nExec=xterm\n".utf8) + tail
        #expect(classify(head, magic).type == .desktopEntry, "\(magic), \(tail.count) bytes after")
      }
      // A NUL line before the group, or a NUL right after it: GLib reads lines up to a NUL (review 14).
      for form in ["\0\n[Desktop Entry]\nExec=id\n", "[Desktop Entry]\0\nExec=id\n", "\0junk\n[Desktop Entry]\0x\nExec=id\n"] {
        #expect(classify(Array(form.utf8), magic).type == .desktopEntry, "\(magic), \(form.debugDescription)")
      }
    }
    #expect(classify(Array("[Flatpak Ref]\nName=x\n".utf8), "text/plain").type == "org.flatpak.flatpakref")
    // Not GLib's first group, but within the 33 bytes where shared-mime-info (KDE) looks for
    // it: a desktop entry to KDE, which reads its group wherever it stands (review 37). Further
    // on, text.
    #expect(classify(Array("[Other]\n[Desktop Entry]\n".utf8), "text/plain").type == .desktopEntry)
    #expect(classify(Array("Hello\n[Desktop Entry]\n".utf8), "text/plain").type == .desktopEntry)
    let further = "Hello, this line is longer than the 48 bytes KDE reads.\n[Desktop Entry]\n"
    #expect(classify(Array(further.utf8), "text/plain").type == .plainText)
  }

  /// Found by review 15: GLib loads each of these (checked with GIO's
  /// `g_desktop_app_info_new_from_filename`), and each was plain text.
  @Test func aDesktopEntryAfterManyCommentsOrAFormFeedIsStillOne() {
    let entry = "[Desktop Entry]\nType=Application\nName=x\nExec=sh -c id\n"
    let forms = [
      String(repeating: "#c\n", count: 201) + entry, String(repeating: "\n", count: 201) + entry,
      String(repeating: "# a comment line\n", count: 3000) + entry, "\u{0C}\n" + entry, "\u{0C}" + entry,
      "  \u{0C} # x\n\r\r\n" + entry,
    ]
    for form in forms {
      let head = Array(form.utf8)
      #expect(head.count < ContentSniffer.headLength)
      #expect(classify(head, "text/plain").type == .desktopEntry, "\(form.prefix(40).debugDescription)")
    }
    // GLib does not skip a vertical tab (C's isspace does): one blank too many only refuses more.
    #expect(classify(Array(("\u{0B}" + entry).utf8), "text/plain").type == .desktopEntry)
    let flatpak = String(repeating: "\n", count: 500) + "[Flatpak Ref]\nName=x\n"
    #expect(classify(Array(flatpak.utf8), "text/plain").type == "org.flatpak.flatpakref")
  }

  /// Found by review 15: one comment line longer than the head pushed the group out of it.
  @Test func aHeadThatEndsAmongCommentsOfALongerFileMayBeADesktopEntry() {
    let limit = ContentSniffer.headLength
    let entry = "[Desktop Entry]\nType=Application\nName=x\nExec=sh -c id\n"
    let longLine = Array(("#" + String(repeating: "a", count: 70_000) + "\n" + entry).utf8)
    let heads: [[UInt8]] = [
      Array(longLine.prefix(limit)),
      Array(String(repeating: "# comment\n", count: 7000).utf8.prefix(limit)),
      Array(String(repeating: "\n", count: limit).utf8),
      // The group line starts in the head and ends past it.
      Array(String(repeating: "#\n", count: limit / 2 - 4).utf8) + Array("[Deskt".utf8),
    ]
    for head in heads {
      let content = classify(head, "text/plain", truncated: true)
      #expect(content.type == .desktopEntry, "\(head.suffix(20))")
      #expect(content.label == "text whose first group lies beyond the part share reads")
    }
    // The whole file: comments only are text.
    #expect(classify(Array("# just notes\n\n# more\n".utf8), "text/plain").type == .plainText)
    #expect(classify(Array(String(repeating: "# x\n", count: 100).utf8), "text/plain", truncated: false).type == .plainText)
    // A first line that is no group, or another group, decides on its own, as do NUL bytes (binary data).
    for head in [
      Array(("# c\n" + String(repeating: "a", count: limit)).utf8.prefix(limit)),
      Array(("# c\n[Other]" + String(repeating: " ", count: limit)).utf8.prefix(limit)),
      [UInt8](repeating: 0, count: limit),
    ] {
      #expect(classify(head, "application/octet-stream", truncated: true).type != .desktopEntry, "\(head.prefix(12))")
    }
  }

  @Test("text with NUL bytes and no UTF-16 byte-order mark is binary data")
  func nulBytes() {
    let squash = classify(SampleBytes.squashfs, "text/plain", "Squashfs filesystem")
    #expect(squash.type == .data)
    #expect(squash.refinement?.contains("NUL") == true)
    #expect(classify(SampleBytes.utf16LE("hi"), "text/plain").type == .plainText)
  }

  @Test("an ELF with the AppImage signature is an AppImage; other ELFs are not")
  func appImages() throws {
    #expect(classify(try SampleBytes.appImage(), "application/x-pie-executable").type == .appImage)
    var typeOne = try SampleBytes.elf()
    typeOne[8] = UInt8(ascii: "A")
    typeOne[9] = UInt8(ascii: "I")
    typeOne[10] = 1
    #expect(classify(typeOne, "application/x-executable").type == .appImage)
    #expect(classify(try SampleBytes.elf(), "application/x-sharedlib").type == .unixExecutable)
  }

  /// Found by review 15: the kernel runs an ELF whatever its byte-order byte (EI_DATA) says, and
  /// libmagic calls one with 0, 2, 3 or 0xFF there application/octet-stream.
  @Test func anELFIsAnExecutableWhateverLibmagicCallsIt() throws {
    for order: UInt8 in [0, 2, 3, 0xFF] {
      var elf = try SampleBytes.elf()
      elf[5] = order
      let content = classify(elf, "application/octet-stream")
      #expect(content.type == .unixExecutable, "EI_DATA \(order)")
      #expect(content.label == "ELF header (libmagic said application/octet-stream)")
      var appImage = try SampleBytes.appImage()
      appImage[5] = order
      #expect(classify(appImage, "application/octet-stream").type == .appImage, "EI_DATA \(order)")
    }
    #expect(classify(try SampleBytes.elf(), "text/plain").type == .unixExecutable)
    // libmagic's own ELF answer stands, with its words.
    let named = classify(try SampleBytes.elf(), "application/x-pie-executable", "ELF 64-bit LSB pie executable")
    #expect(named.type == .unixExecutable && named.refinement == nil)
  }

  @Test("empty content is marked empty")
  func empty() {
    let empty = classify([], "application/x-empty", "empty")
    #expect(empty.isEmpty && empty.type == .data)
  }

  @Test("the label is the first clause of libmagic's description, escaped and short")
  func labels() {
    #expect(
      classify([0x7F], "application/x-executable", "ELF 64-bit LSB pie executable, x86-64, version 1").label
        == "ELF 64-bit LSB pie executable")
    #expect(classify([1], "application/octet-stream", "data").label == "unrecognised data")
    #expect(!classify([1], "application/octet-stream", "evil \u{1B}[2J").label.contains("\u{1B}"))
    #expect(classify([1], "application/octet-stream", "").label == "application/octet-stream")
  }

  @Test("random heads with random libmagic answers never crash the classifier")
  func fuzz() {
    let mimes = ["application/zip", "text/plain", "application/x-executable", "application/octet-stream", "bogus", ""]
    var seed: UInt64 = 42
    for round in 0..<2000 {
      var bytes = SampleBytes.random(count: round % 300, seed: seed)
      seed = seed &* 6_364_136_223_846_793_005 &+ 1
      if round % 3 == 0, bytes.count >= 4 { bytes.replaceSubrange(0..<4, with: [0x50, 0x4B, 3, 4]) }
      if round % 5 == 0, bytes.count >= 2 { bytes.replaceSubrange(0..<2, with: Array("#!".utf8)) }
      if round % 7 == 0, bytes.count >= 30 {
        // A local header claiming huge sizes and name lengths.
        bytes.replaceSubrange(18..<30, with: [0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF])
      }
      let result = classify(bytes, mimes[round % mimes.count])
      #expect(registry.isKnown(result.type))
    }
  }

  /// Review 37: GLib knows a Flatpak bundle and a JNLP launcher by their bytes and opens them in
  /// the installer or Java Web Start whatever they are called; they were data and XML here.
  @Test func flatpakBundlesAndJNLPLaunchersAreKnownByTheirBytes() {
    for prefix in ["flatpak", "xdg-app"] {
      let bundle = Array(prefix.utf8) + [0, 1, 0, 0x89, 0xE5] + [UInt8](repeating: 0x41, count: 64)
      #expect(classify(bundle, "application/octet-stream").type == "org.flatpak.flatpak", "\(prefix)")
    }
    let launcher = Array("<?xml version=\"1.0\"?>\n<jnlp spec=\"1.0+\" codebase=\"http://198.18.0.1/\">\n".utf8)
    #expect(classify(launcher, "text/xml").type == "com.sun.java-web-start")
    let later = Array(("<?xml version=\"1.0\"?>\n<!-- " + String(repeating: "x", count: 260) + " -->\n<jnlp>\n").utf8)
    #expect(classify(later, "text/xml").type != "com.sun.java-web-start", "past GLib's 256 bytes")
    #expect(classify(Array("flatpak\0\u{1}\0".utf8), "application/octet-stream").type != "org.flatpak.flatpak")
  }
}
