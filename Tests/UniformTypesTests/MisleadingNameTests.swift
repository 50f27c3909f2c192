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
}
