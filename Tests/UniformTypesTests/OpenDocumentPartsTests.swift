import Foundation
import Testing

@testable import UniformTypes

/// Review 28, finding 1: a zipped OpenDocument file whose `content.xml` bound a macro to
/// `dom:load` was accepted, while the same binding in a flat `.fodt` was refused.
@Suite("OpenDocument packages with scripts bound to events")
struct OpenDocumentPartsTests {
  typealias Entry = WholePackageTests.Entry
  static let policy = Result { try TypePolicy(registry: .system(), declarations: .builtinDefault) }

  static let namespaces = """
    xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" \
    xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" \
    xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" \
    xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" \
    xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
    """
  /// What review 28's file put into `content.xml`: a load event bound to a macro of the installation.
  static let listener = """
    <office:event-listeners><script:event-listener script:language="ooo:script" script:event-name="dom:load" \
    xlink:href="vnd.sun.star.script:Tools.Debug.WriteDbgInfo?language=Basic&amp;location=application"/></office:event-listeners>
    """
  static let body = "<office:body><office:text><text:p>Hello</text:p></office:text></office:body>"

  /// `content.xml` as LibreOffice writes it, with `scripts` inside its `office:scripts` and
  /// `filler` before the body.
  static func content(scripts: String = "", filler: String = "") -> [UInt8] {
    let scripts = scripts.isEmpty ? "<office:scripts/>" : "<office:scripts>\(scripts)</office:scripts>"
    return Array(
      (#"<?xml version="1.0" encoding="UTF-8"?><office:document-content \#(namespaces) office:version="1.3">"#
        + scripts + filler + body + "</office:document-content>").utf8)
  }

  /// `styles.xml`, with `inside` in a master page (where a shape's events are bound).
  static func styles(_ inside: String = "") -> [UInt8] {
    Array(
      (#"<?xml version="1.0" encoding="UTF-8"?><office:document-styles \#(namespaces) office:version="1.3">"#
        + #"<office:master-styles><style:master-page style:name="Standard">\#(inside)</style:master-page></office:master-styles>"#
        + "</office:document-styles>").utf8)
  }

  /// An odt as LibreOffice lays it out: `mimetype` stored and first, the XML parts deflated.
  static func odt(content: [UInt8] = content(), styles: [UInt8] = styles(), deflated: Bool = true) -> [UInt8] {
    let manifest = Array(
      #"<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/></manifest:manifest>"#
        .utf8)
    return WholePackageTests.zip([
      Entry("mimetype", Array("application/vnd.oasis.opendocument.text".utf8)),
      deflated ? Entry("content.xml", SampleBytes.storedDeflate(content), method: 8) : Entry("content.xml", content),
      Entry("styles.xml", SampleBytes.storedDeflate(styles), method: 8),
      Entry("meta.xml", Array("<office:document-meta \(namespaces)/>".utf8)),
      Entry("META-INF/manifest.xml", SampleBytes.storedDeflate(manifest), method: 8),
    ])
  }

  /// The same document as one flat file (`office:document`).
  static func fodt(scripts: String = "") -> [UInt8] {
    let scripts = scripts.isEmpty ? "<office:scripts/>" : "<office:scripts>\(scripts)</office:scripts>"
    return Array(
      (#"<?xml version="1.0" encoding="UTF-8"?><office:document \#(namespaces) office:version="1.3" "#
        + #"office:mimetype="application/vnd.oasis.opendocument.text">"# + scripts + body + "</office:document>").utf8)
  }

  func check(_ bytes: [UInt8], as name: String) throws -> CheckReport {
    try Self.policy.get().check(writing: bytes, as: name)
  }

  @Test("an event listener in content.xml or styles.xml refuses the package as an OpenDocument file with macros, naming it")
  func aBoundEventRefusesThePackage() throws {
    for (part, bytes) in [
      ("content.xml", Self.odt(content: Self.content(scripts: Self.listener))),
      ("styles.xml", Self.odt(styles: Self.styles("<draw:frame>\(Self.listener)</draw:frame>"))),
    ] {
      let report = try check(bytes, as: "letter.odt")
      #expect(!report.verdict.accepted, "\(part): \(report.verdict)")
      #expect(report.content?.type == .openDocumentMacros, "\(part): \(String(describing: report.content))")
      #expect(report.content?.refinement?.contains("script:event-listener in \(part)") == true, "\(String(describing: report.content))")
    }
  }

  @Test("a package without one is accepted, and the flat and zipped forms of a document get the same verdict")
  func flatAndZippedFormsAgree() throws {
    let plain = try check(Self.odt(), as: "letter.odt")
    #expect(plain.verdict.accepted, "\(plain.verdict)")
    for scripts in ["", Self.listener, #"<office:script script:language="ooo:Basic"/>"#] {
      let zipped = try check(Self.odt(content: Self.content(scripts: scripts)), as: "letter.odt")
      let flat = try check(Self.fodt(scripts: scripts), as: "letter.fodt")
      #expect(zipped.verdict.accepted == flat.verdict.accepted, "\(scripts): \(zipped.verdict) / \(flat.verdict)")
      // Refused, both by the same exclusion, as the same type (accepted, each by its own group).
      guard !flat.verdict.accepted else { continue }
      #expect(zipped.verdict.decidedBy == flat.verdict.decidedBy, "\(scripts): \(zipped.verdict) / \(flat.verdict)")
      #expect(zipped.content?.type == .openDocumentMacros && flat.content?.type == .openDocumentMacros)
    }
  }

  /// An Impress click action (next slide) is an event listener in everyday presentations; one
  /// that runs a program is refused.
  @Test("a slide's click action is no macro, unless it runs something")
  func clickActionsThatRunNothingAreAccepted() throws {
    func frame(_ action: String) -> String {
      #"<draw:frame><office:event-listeners><presentation:event-listener script:event-name="dom:click" presentation:action="\#(action)"/></office:event-listeners></draw:frame>"#
    }
    let next = try check(Self.odt(styles: Self.styles(frame("next-page"))), as: "talk.odt")
    #expect(next.verdict.accepted, "\(next.verdict)")
    let run = try check(Self.odt(styles: Self.styles(frame("execute"))), as: "talk.odt")
    #expect(!run.verdict.accepted && run.content?.type == .openDocumentMacros, "\(run.verdict)")
  }

  @Test("a listener megabytes into a part is found, and an element cut by a window's end is not judged by its first half")
  func largePartsAreReadWhole() throws {
    // Paragraphs up to where the first 1 MiB window ends just after `<office:script` (stored,
    // so that windows fall where the part's bytes do).
    let head = Self.content(scripts: "").count - Self.body.count - "</office:document-content>".count
    let unit = "<text:p>a</text:p>"
    let toCut = (1 << 20) - head - "<office:script".count
    let filler = String(repeating: unit, count: toCut / unit.count) + String(repeating: " ", count: toCut % unit.count)
    let cut = Self.content(filler: filler + "<office:scripts/>" + String(repeating: unit, count: 100_000))
    #expect(Array(cut[((1 << 20) - 14)..<(1 << 20)]) == Array("<office:script".utf8))
    let accepted = try check(Self.odt(content: cut, deflated: false), as: "letter.odt")
    #expect(accepted.verdict.accepted, "\(accepted.verdict)")
    let late = Self.content(filler: String(repeating: unit, count: 200_000) + Self.listener)
    let refused = try check(Self.odt(content: late), as: "letter.odt")
    #expect(!refused.verdict.accepted && refused.content?.type == .openDocumentMacros, "\(refused.verdict)")
  }

  @Test("parts larger than share reads are a sign, not accepted unread")
  func partsPastTheBudgetAreASign() {
    let bytes = Self.odt(content: Self.content(filler: String(repeating: "<text:p>a</text:p>", count: 200_000)))
    let entries = bytes.withUnsafeBytes { ZipDirectory.listing(of: ItemBytes($0))?.entries ?? [] }
    let sign = bytes.withUnsafeBytes { ContentClassifier.openDocumentPartMacros(entries, in: ItemBytes($0), budget: 1 << 20) }
    #expect(sign?.contains("content.xml and the parts before it are larger than share reads") == true, "\(String(describing: sign))")
  }

  /// Review 33, finding 2: the zipped parts compared a click action's undecoded tag, and
  /// exempted any element spelled `presentation:event-listener`, whatever its prefix was bound to.
  @Test("a click action that runs a program written with character references is refused, zipped as flat")
  func referencesInAClickActionAreRead() throws {
    for action in ["&#101;xecute", "&#x76;erb", "&#x65;&#x78;ecute"] {
      let listener =
        #"<office:event-listeners><presentation:event-listener script:event-name="dom:click" presentation:action="\#(action)" xlink:href="/usr/bin/xcalc"/></office:event-listeners>"#
      let zipped = try check(Self.odt(styles: Self.styles("<draw:frame>\(listener)</draw:frame>")), as: "talk.odp")
      #expect(!zipped.verdict.accepted && zipped.content?.type == .openDocumentMacros, "\(action): \(zipped.verdict)")
      let flat = try check(Self.fodt(scripts: listener), as: "talk.fodp")
      #expect(!flat.verdict.accepted && flat.content?.type == .openDocumentMacros, "\(action): \(flat.verdict)")
    }
  }

  @Test("a click action is one by its namespace: presentation: bound to the script namespace is a script binding")
  func clickActionsGoByNamespace() throws {
    let script = "urn:oasis:names:tc:opendocument:xmlns:script:1.0"
    let presentation = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
    let loadBinding =
      #"<office:event-listeners><presentation:event-listener xmlns:presentation="\#(script)" script:language="StarBasic" script:event-name="dom:load" script:macro-name="Tools.Debug.WriteDbgInfo" script:location="application"/></office:event-listeners>"#
    // Everything a harmless click has, but the prefix is the script namespace's.
    let rebound =
      #"<office:event-listeners xmlns:presentation="\#(script)"><presentation:event-listener script:event-name="dom:click" presentation:action="next-page"/></office:event-listeners>"#
    for listener in [loadBinding, rebound] {
      let zipped = try check(Self.odt(content: Self.content(scripts: listener)), as: "letter.odt")
      #expect(!zipped.verdict.accepted && zipped.content?.type == .openDocumentMacros, "\(listener): \(zipped.verdict)")
      let flat = try check(Self.fodt(scripts: listener), as: "letter.fodt")
      #expect(!flat.verdict.accepted && flat.content?.type == .openDocumentMacros, "\(listener): \(flat.verdict)")
    }
    // Another prefix bound to the presentation namespace is a click action like Impress's own.
    let otherPrefix =
      #"<draw:frame xmlns:p="\#(presentation)"><office:event-listeners><p:event-listener script:event-name="dom:click" p:action="next-page"/></office:event-listeners></draw:frame>"#
    let click = try check(Self.odt(styles: Self.styles(otherPrefix)), as: "talk.odt")
    #expect(click.verdict.accepted, "\(click.verdict)")
  }
}
