import Foundation
import Testing

@testable import UniformTypes

/// The real-world files issue 13 found misjudged, each reduced to what went wrong.
@Suite("Reconciliation of names and contents seen in real files")
struct ReconciliationTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  func content(mime: String) -> ContentType {
    ContentType(type: Self.registry.type(forMIMEType: mime), mimeType: mime, magicDescription: "")
  }

  @Test("globs of equal weight are all candidates, and the content settles which one the name means")
  func globTiesAreSettledByContent() throws {
    let candidates = Self.registry.types(forFilename: "keys.gpg")
    #expect(candidates.count == 3 && candidates.contains("org.openpgp.key"), "\(candidates)")
    let policy = try Self.policy.get()
    #expect(policy.settledNameType(of: "keys.gpg", content: content(mime: "application/pgp-keys")) == "org.openpgp.key")
    #expect(policy.judge(name: "keys.gpg", content: content(mime: "application/pgp-keys")).decidedBy == "Certificates and keys")
  }

  @Test("fonts: font/ttf and libmagic's font/sfnt are one TrueType type; .otf is an OpenType font, not an OpenDocument template")
  func fonts() throws {
    #expect(Self.registry.type(forMIMEType: "font/sfnt") == Self.registry.type(forFilename: "DejaVuSans.ttf"))
    #expect(Self.registry.type(forFilename: "Cantarell.otf") == "public.opentype-font")
    #expect(Self.registry.type(forMIMEType: "application/vnd.ms-opentype") == "public.opentype-font")
    let verdict = try Self.policy.get().judge(name: "Cantarell-Regular.otf", content: content(mime: "application/vnd.ms-opentype"))
    #expect(verdict.accepted && verdict.match == .same && verdict.decidedBy == "Fonts", "\(verdict.reason)")
  }

  @Test(".pyc and .class have one type each, by name and by content, and are refused as executables")
  func compiledCode() throws {
    #expect(Self.registry.type(forFilename: "m.pyc") == Self.registry.type(forMIMEType: "application/x-bytecode.python"))
    #expect(Self.registry.type(forFilename: "A.class") == Self.registry.type(forMIMEType: "application/x-java-applet"))
    let pyc = try Self.policy.get().judge(name: "m.pyc", content: content(mime: "application/x-bytecode.python"))
    #expect(!pyc.accepted && pyc.rule == .excludedContent && pyc.reason.contains("does not accept executables"), "\(pyc.reason)")
  }

  @Test("a PEM certificate (text) agrees with its .crt name and is accepted as a certificate")
  func pemCertificate() throws {
    let head = Array("-----BEGIN CERTIFICATE-----\nMIIFazCCA1OgAwIBAgIRAIIQz7DSQONZRGPgu2OCiwAwDQYJKoZIhvcNAQELBQAw\n".utf8)
    let classified = ContentClassifier.classify(
      head: head, truncated: false, magic: MagicResult(mimeType: "text/plain", description: "PEM certificate"), registry: Self.registry)
    #expect(classified.type == "public.x509-certificate")
    let verdict = try Self.policy.get().judge(name: "ISRG_Root_X1.crt", content: classified)
    #expect(verdict.accepted && verdict.match == .same && verdict.decidedBy == "Certificates and keys", "\(verdict.reason)")
  }

  @Test("an Office Open XML package with a VBA project is macro-enabled and refused, also when named .docx")
  func macroEnabledDocuments() throws {
    let docm = SampleBytes.zip([
      ("[Content_Types].xml", SampleBytes.contentTypesXML), ("word/document.xml", Array("<w:document/>".utf8)),
      ("word/vbaProject.bin", SampleBytes.oleHeader),
    ])
    let policy = try Self.policy.get()
    for name in ["report.docm", "report.docx"] {
      let verdict = policy.judge(name: name, head: docm, sniffer: try Self.sniffer.get())
      #expect(!verdict.accepted && verdict.type == "org.openxmlformats.wordprocessingml.document.macroenabled", "\(verdict.reason)")
      #expect(verdict.reason.contains("does not accept macro-enabled Office documents"), "\(verdict.reason)")
    }
    #expect(policy.judge(name: "report.docx", head: SampleBytes.docx, sniffer: try Self.sniffer.get()).accepted)
  }

  @Test("disk images, unnamed data and an .mp4 libmagic cannot read are accepted by default")
  func everydayKinds() throws {
    let policy = try Self.policy.get()
    #expect(policy.judge(name: "big.iso", kind: .file).decidedBy == "Disk images")
    let unknown = policy.judge(name: "clip.mp4", content: content(mime: "application/octet-stream"))
    #expect(unknown.accepted && unknown.type == .data && unknown.rule == .accepted, "\(unknown.reason)")
  }
}
