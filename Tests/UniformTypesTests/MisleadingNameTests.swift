import Foundation
import Testing

@testable import UniformTypes

/// Everyday files whose type was named wrongly (review 16): a name that means several types, a
/// name the content contradicts, a text format whose name refines plain text. Each is judged
/// from real bytes, through libmagic, under the default declarations.
@Suite("Names that mislead: the content settles what a name means")
struct MisleadingNameTests {
  static let policy = Result { try TypePolicy(registry: .system(), declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  func judge(_ name: String, _ head: [UInt8]) throws -> Verdict {
    try Self.policy.get().judge(name: name, head: head, totalSize: Int64(head.count), sniffer: try Self.sniffer.get())
  }

  @Test("Windows' blocked attachments that open Access or run what they hold are refused by name (review 43)")
  func blockedAttachments() throws {
    for name in [
      "pack.vbox-extpack", "tool.alfredworkflow", "orders.mam", "form.maf", "system.mdw", "addin.mdt", "behaviour.htc", "inbox.xnk",
      "profile.ops", "m.vsmacros", "p.printerexport",
    ] {
      let verdict = try Self.policy.get().judge(name: name, kind: .file)
      #expect(!verdict.accepted, "\(name): \(verdict.reason)")
    }
    // Not MATLAB's data files, nor gettext's ITS rules.
    for name in ["results.mat", "glade.its"] {
      #expect(try Self.policy.get().judge(name: name, kind: .file).type.rawValue.hasPrefix("com.microsoft") == false, "\(name)")
    }
  }

  @Test("Rust source that starts with an inner attribute is Rust, not a script (review 43)")
  func rustInnerAttributes() throws {
    for text in [
      "#![cfg(feature = \"serde\")]\n\nextern crate serde;\nuse self::serde::de::Deserialize;\n",
      "#![no_std]\n\nuse core::panic::PanicInfo;\n",
    ] {
      let verdict = try judge("serde.rs", SampleBytes.utf8(text))
      #expect(verdict.accepted, "\(verdict.reason)")
    }
    #expect(try !judge("serde.rs", SampleBytes.utf8("#!/bin/sh\nrm -rf ~\n")).accepted)
  }

  @Test(".ts is TypeScript when it is text, a Qt Linguist file when it is one, and video when it is a transport stream")
  func typeScript() throws {
    let source = SampleBytes.utf8("export interface Point {\n  x: number;\n  y: number;\n}\ndeclare function draw(p: Point): void;\n")
    for name in ["lib.es2015.promise.d.ts", "a.ts", "worker.mts"] {
      let verdict = try judge(name, source)
      #expect(verdict.accepted && verdict.type == "com.microsoft.typescript" && verdict.decidedBy == "Text", "\(name): \(verdict.reason)")
      #expect(verdict.reason == "accepted: TypeScript source (\"Text\")", "\(verdict.reason)")
    }
    let linguist = SampleBytes.utf8(
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE TS>\n<TS version=\"2.1\" language=\"de_DE\">\n<context>\n"
        + "    <name>MainWindow</name>\n</context>\n</TS>\n")
    let translation = try judge("app_de.ts", linguist)
    #expect(translation.accepted && translation.type == "dyn.mime.text/vnd.trolltech.linguist", "\(translation.reason)")
    let video = try judge("clip.ts", SampleBytes.mpegTS)
    #expect(video.accepted && video.type == "dyn.mime.video/mp2t" && video.decidedBy == "Video", "\(video.reason)")
    #expect(try Self.policy.get().judge(name: "a.ts", kind: .file).type == "com.microsoft.typescript")
  }

  @Test(".key is a PEM key only when the content is PEM text; a Keynote presentation (a ZIP) is one")
  func keynoteOrKey() throws {
    let keynote = SampleBytes.zip([
      ("Index/Document.iwa", [0, 1, 2, 3]), ("Metadata/Properties.plist", SampleBytes.utf8("<plist/>\n")),
    ])
    let presentation = try judge("doc.key", keynote)
    #expect(presentation.accepted && presentation.type == "com.apple.iwork.keynote.key", "\(presentation.reason)")
    #expect(presentation.reason == "accepted: Keynote presentation (\"Other documents\")", "\(presentation.reason)")
    let pem = SampleBytes.utf8("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIKk0\n-----END PRIVATE KEY-----\n")
    let key = try judge("server.key", pem)
    #expect(key.accepted && key.type == "public.private-key" && key.match == .same, "\(key.reason)")
    #expect(try Self.policy.get().judge(name: "server.key", kind: .file).type == "public.private-key")
  }

  @Test(".pem is whatever PEM it holds: a certificate, a key or a request")
  func pemFiles() throws {
    for (label, type) in [
      ("CERTIFICATE", "public.x509-certificate"), ("PRIVATE KEY", "public.private-key"),
      ("CERTIFICATE REQUEST", "public.certificate-request"),
    ] {
      let verdict = try judge("made.pem", SampleBytes.utf8("-----BEGIN \(label)-----\nMIIB\n-----END \(label)-----\n"))
      #expect(verdict.accepted && verdict.type == TypeIdentifier(type) && verdict.match == .same, "\(label): \(verdict.reason)")
      #expect(!verdict.reason.contains("though its name says"), "\(verdict.reason)")
    }
  }

  @Test("a name that may mean an excluded type is refused as it, whatever else the name and the content may be")
  func excludedMeaningWins() throws {
    // .ws is a Windows script to share and a WonderSwan game to shared-mime-info; Windows runs it.
    let rom = [UInt8](repeating: 0xEA, count: 64) + [0, 0x12, 0x34, 0x56]
    let verdict = try judge("game.ws", rom)
    #expect(!verdict.accepted && verdict.rule == .excludedName && verdict.type == "com.microsoft.vbscript", "\(verdict.reason)")
    #expect(!(try Self.policy.get().judge(name: "game.ws", kind: .file).accepted))
  }

  @Test(".pub is an OpenSSH public key when its text is one, and a Publisher document when it is an OLE2 file")
  func openSSHPublicKeys() throws {
    let blob = "AAAAC3NzaC1lZDI1NTE5AAAAIF9yZ2hlbGxvLXNoYXJlLXRlc3Qta2V5LWJ5dGVzISE"
    for line in [
      "ssh-ed25519 \(blob) alice@laptop", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 bob", "ecdsa-sha2-nistp256 AAAAE2VjZHNh carol",
      "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29t dave",
    ] {
      let verdict = try judge("id_ed25519.pub", SampleBytes.utf8(line + "\n"))
      #expect(verdict.accepted && verdict.type == "org.openssh.public-key" && verdict.match == .same, "\(line): \(verdict.reason)")
      #expect(verdict.decidedBy == "Certificates and keys", "\(verdict.reason)")
    }
    let pasted = try judge("key.txt", SampleBytes.utf8("ssh-ed25519 \(blob) alice@laptop\n"))
    #expect(pasted.type == "org.openssh.public-key" && pasted.match == .contentRefinesName, "\(pasted.reason)")
    let notes = try judge("notes.pub", SampleBytes.utf8("Opening hours of the pub on the corner\n"))
    #expect(notes.accepted && notes.type == .plainText, "\(notes.reason)")
    #expect(notes.reason == "accepted: plain text (\"Text\"), though its name says OpenSSH public key", "\(notes.reason)")
    let publisher = try judge("flyer.pub", SampleBytes.compoundFile([("Contents", 2), ("Quill", 1)]))
    #expect(publisher.accepted && publisher.type == "dyn.mime.application/vnd.ms-publisher", "\(publisher.reason)")
    // Review 37: with macros it is refused as what its name means for an OLE2 file, not as a key.
    let macros = try judge("flyer.pub", SampleBytes.compoundFile([("Contents", 2), ("Quill", 1), ("VBA", 1)]))
    #expect(!macros.accepted && macros.type == "com.microsoft.office.macro-enabled", "\(macros.reason)")
    #expect(macros.reason.contains("not a Microsoft Publisher document"), "\(macros.reason)")
  }

  @Test("a name of a text kind that shows in its bytes (RTF) is not taken for text that does not show it")
  func textKindTheContentContradicts() throws {
    let verdict = try judge("letter.rtf", SampleBytes.utf8("Dear Ann,\nsee you on Monday.\n"))
    #expect(verdict.accepted && verdict.type == .plainText && verdict.match == nil, "\(verdict.reason)")
    let rtf = try judge("letter.rtf", SampleBytes.rtf)
    #expect(rtf.accepted && rtf.type == "public.rtf" && rtf.match == .same, "\(rtf.reason)")
  }

  @Test(".spl is a Flash movie only when its bytes are one: a vim spell file is data")
  func flashOrSpellFile() throws {
    let spell = SampleBytes.utf8("VIMspell2") + [0, 1, 0, 0, 0, 0x0A] + SampleBytes.utf8("usaucagbnz") + [2, 1, 0, 0, 0, 1, 0x27]
    let verdict = try judge("en.ascii.spl", spell)
    #expect(verdict.accepted && verdict.type == .data, "\(verdict.reason)")
    // Version 10, 64 bytes long, a 550 × 400 frame, 24 frames a second, one frame.
    let swf: [UInt8] =
      Array("FWS".utf8) + [0x0A, 0x40, 0, 0, 0, 0x78, 0, 0x05, 0x5F, 0, 0, 0x0F, 0xA0, 0, 0, 0x18, 0x01, 0, 0x44, 0x11, 0x08]
    for name in ["intro.swf", "intro.spl"] {
      let movie = try judge(name, swf + [UInt8](repeating: 0, count: 8))
      #expect(movie.type == "com.adobe.shockwave-flash" && movie.match == .same, "\(name): \(movie.reason)")
    }
  }

  @Test(
    "a 3D model or drawing written as text is the model its name says, as its binary form is",
    arguments: [
      ("made.stl", "solid x\nendsolid x\n", "public.standard-tesselated-geometry-format"),
      (
        "cube.stl",
        "solid cube\n  facet normal 0 0 -1\n    outer loop\n      vertex 0 0 0\n      vertex 1 0 0\n"
          + "      vertex 1 1 0\n    endloop\n  endfacet\nendsolid cube\n", "public.standard-tesselated-geometry-format"
      ),
      ("made.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "public.geometry-definition-format"),
      ("mesh.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n0\n", "public.polygon-file-format"),
      ("part.step", "ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n", "public.step-model"),
      ("draw.dxf", "0\nSECTION\n2\nENTITIES\n0\nENDSEC\n0\nEOF\n", "com.autodesk.dxf"),
      ("model.gltf", "{\"asset\":{\"version\":\"2.0\"}}\n", "org.khronos.gltf"),
    ] as [(String, String, String)])
  func modelsAsText(name: String, text: String, type: String) throws {
    let verdict = try judge(name, SampleBytes.utf8(text))
    #expect(verdict.accepted && verdict.type == TypeIdentifier(type), "\(name): \(verdict.reason)")
    #expect(verdict.decidedBy == "3D models and drawings" && verdict.match == .nameRefinesContent, "\(verdict.reason)")
  }

  @Test("a binary STL is still an STL, and a script or a desktop entry named .stl is still refused")
  func modelsAsTextRefineOnlyPlainText() throws {
    let binary = SampleBytes.utf8("binary stl header") + [UInt8](repeating: 0, count: 63) + [1, 0, 0, 0] + [UInt8](repeating: 0, count: 50)
    let model = try judge("part.stl", binary)
    #expect(model.accepted && model.type == "public.standard-tesselated-geometry-format", "\(model.reason)")
    let script = try judge("part.stl", SampleBytes.utf8("#!/bin/sh\nrm -rf ~\n"))
    #expect(!script.accepted && script.type == "public.shell-script", "\(script.reason)")
    let entry = try judge("part.obj", SampleBytes.utf8("[Desktop Entry]\nType=Application\nExec=sh -c id\n"))
    #expect(!entry.accepted && entry.type == "org.freedesktop.desktop-entry", "\(entry.reason)")
  }

  @Test("go.mod and go.sum are Go module files, not MOD tracker songs")
  func goModules() throws {
    let files = [
      ("go.mod", "module example.com/hello\n\ngo 1.22\n\nrequire golang.org/x/text v0.14.0\n"),
      ("go.sum", "golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=\n"),
    ]
    for (name, text) in files {
      let verdict = try judge(name, SampleBytes.utf8(text))
      #expect(verdict.accepted && verdict.type == "org.golang.go-module" && verdict.decidedBy == "Text", "\(name): \(verdict.reason)")
      #expect(!verdict.reason.contains("though its name says"), "\(verdict.reason)")
    }
    #expect(try Self.policy.get().judge(name: "song.mod", kind: .file).type == "dyn.mime.audio/x-mod")
  }

  @Test("a .gnumeric file (gzip-compressed XML) is a Gnumeric spreadsheet, not a gzip archive")
  func gnumeric() throws {
    let xml = SampleBytes.utf8(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gnm:Workbook xmlns:gnm=\"http://www.gnumeric.org/v10.dtd\">\n"
        + "<gnm:Sheets/></gnm:Workbook>\n")
    let verdict = try judge("regress.gnumeric", SampleBytes.gzip(xml))
    #expect(verdict.accepted && verdict.type == "org.gnome.gnumeric" && verdict.match == .nameRefinesContent, "\(verdict.reason)")
    #expect(verdict.reason == "accepted: Gnumeric spreadsheet (\"Other documents\")", "\(verdict.reason)")
  }

  /// Review 35 (and 33's `.mf`): Vim scripts and METAFONT sources whose words made libmagic guess
  /// JavaScript, Python or Ruby were refused as those; they run only inside their programs. And
  /// names that run something by a double-click were accepted: `.rbw`, Excel's `.rqy`/`.oqy`,
  /// PowerShell's `.cdxml`/`.pssc`, Raku's `.raku`.
  @Test func vimScriptsAreSourceAndRunnableNamesAreRefused() throws {
    // What libmagic calls Python, JavaScript and Ruby from their words.
    let guessed = [
      "from os import path\nimport sys as s\n", "\"use strict\";\nfunction f() { return 1; }\nmodule.exports = f;\n",
      "require \"json\"\nclass Foo < Bar\n  def x\n  end\nend\n",
    ]
    for (name, words) in zip(["pythoncomplete.vim", "rust.vim", "gen9.mf"], guessed) {
      let verdict = try judge(name, SampleBytes.utf8(words))
      #expect(verdict.accepted && verdict.decidedBy == "Text", "\(name): \(verdict.reason)")
    }
    let text = SampleBytes.utf8("puts 'hello'\n")
    for name in ["tool.rbw", "query.rqy", "cube.oqy", "module.cdxml", "session.pssc", "script.raku"] {
      let verdict = try judge(name, text)
      #expect(!verdict.accepted, "\(name): \(verdict.reason)")
    }
  }
}
