import Foundation
import Testing

@testable import UniformTypes

/// Review 18, finding 2: flat OpenDocument files carry Basic inline and bind it to events.
@Suite("Flat OpenDocument (one XML file) with macros")
struct FlatOpenDocumentTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  static let root = """
    <?xml version="1.0" encoding="UTF-8"?>
    <office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" \
    xmlns:ooo="http://openoffice.org/2004/office" xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" \
    xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">

    """
  static let body = """
     <office:body><office:text><text:p xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">Hello</text:p></office:text></office:body>
    </office:document>

    """
  /// As LibreOffice writes a document's Basic library, with a load event that runs it.
  static let macro = Array(
    (root + """
       <office:scripts>
        <office:script script:language="ooo:Basic">
         <ooo:libraries xmlns:ooo="http://openoffice.org/2004/office">
          <ooo:library-embedded ooo:name="Standard">
           <ooo:module ooo:name="Module1">
            <ooo:source-code>Sub Main
        Shell("xterm")
      End Sub</ooo:source-code>
           </ooo:module>
          </ooo:library-embedded>
         </ooo:libraries>
        </office:script>
        <office:event-listeners><script:event-listener script:language="ooo:script" script:event-name="dom:load" \
      xlink:href="vnd.sun.star.script:Standard.Module1.Main?language=Basic&amp;location=document"/></office:event-listeners>
       </office:scripts>

      """ + body).utf8)

  func judge(_ name: String, _ bytes: [UInt8]) throws -> Verdict {
    try Self.policy.get().judge(name: name, head: bytes, totalSize: Int64(bytes.count), sniffer: try Self.sniffer.get())
  }

  /// Review 24: a processing instruction holding `>`, a DOCTYPE with an internal subset before
  /// the root, and the file in UTF-16, hid the root from share, not from LibreOffice.
  @Test func theRootIsFoundAsAParserFindsIt() throws {
    let text = String(decoding: Self.macro, as: UTF8.self)
    let declaration = #"<?xml version="1.0" encoding="UTF-8"?>"#
    let variants = [
      text.replacingOccurrences(of: declaration, with: declaration + #"<?note a="<office:document>"?>"#),
      text.replacingOccurrences(of: declaration, with: declaration + #"<!DOCTYPE office:document [ <!ENTITY x "<y>"> ]>"#),
    ]
    for variant in variants {
      #expect(!(try judge("letter.fodt", Array(variant.utf8))).accepted, "\(variant.prefix(120))")
    }
    let utf16: [UInt8] = [0xFF, 0xFE] + text.replacingOccurrences(of: "UTF-8", with: "UTF-16").utf16.flatMap { SampleBytes.le16(Int($0)) }
    #expect(!(try judge("letter.fodt", utf16)).accepted)
  }

  @Test("a flat ODF with an embedded Basic library is refused as an OpenDocument file with macros, under any name")
  func embeddedBasicIsRefused() throws {
    for name in ["letter.fodt", "sheet.fods", "slides.fodp", "drawing.fodg", "notes.xml", "notes.txt"] {
      let verdict = try judge(name, Self.macro)
      #expect(!verdict.accepted, "\(name): \(verdict.reason)")
      #expect(verdict.decidedBy == "com.microsoft.office.macro-enabled", "\(name): \(verdict.reason)")
    }
  }

  @Test("an event listener alone, or script elements under other prefixes, still make it macro-enabled")
  func anyPrefixAndEventListeners() throws {
    let listener = Array(
      (Self.root + #"<office:event-listeners><script:event-listener script:event-name="dom:load" "#
        + #"xlink:href="vnd.sun.star.script:Tools.Misc.Run?location=application"/></office:event-listeners>"# + Self.body)
        .utf8)
    #expect(!(try judge("a.fodt", listener)).accepted)
    let prefixed = Array(
      #"<?xml version="1.0"?><d:document xmlns:d="urn:oasis:names:tc:opendocument:xmlns:office:1.0"><d:scripts><d:script><b:libraries xmlns:b="http://openoffice.org/2004/office"><b:library-embedded b:name="L"><b:module b:name="M"/></b:library-embedded></b:libraries></d:script></d:scripts></d:document>"#
        .utf8)
    #expect(!(try judge("a.fods", prefixed)).accepted)
  }

  /// Review 37: a click on a link whose URL runs a script or macro, or on Writer's "Run macro"
  /// field, runs it as a click action does; a link to a web page stays a link.
  @Test func linksThatRunMacrosAndRunMacroFieldsAreMacros() throws {
    let text =
      #"xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0""#
    func document(_ inner: String) -> [UInt8] {
      Array(
        (Self.root + "<office:body><office:text \(text)><text:p>\(inner)</text:p></office:text></office:body></office:document>\n").utf8)
    }
    let macros = [
      #"<text:a xlink:type="simple" xlink:href="vnd.sun.star.script:Tools.Misc.Run?language=Basic&amp;location=application">x</text:a>"#,
      #"<text:a xlink:href="macro:///Tools.Misc.Run">x</text:a>"#,
      #"<draw:a xlink:href="VND.SUN.STAR.SCRIPT:a.b.c?location=document"><draw:frame/></draw:a>"#,
      #"<text:execute-macro text:name="Tools.Misc.Run">run</text:execute-macro>"#,
      #"<text:a xlink:href="&#118;nd.sun.star.script:a.b.c">x</text:a>"#,
      // Review 46: an image map's area and a form's URL button open their URL on a click too.
      #"<draw:frame><draw:image-map><draw:area-rectangle svg:x="0" svg:y="0" xlink:href="vnd.sun.star.script:a.b.c?location=document"/></draw:image-map></draw:frame>"#,
      #"<form:button form:button-type="url" xlink:href="macro:///Tools.Misc.Run"/>"#,
    ]
    for inner in macros {
      #expect(ContentClassifier.flatOpenDocumentMacros(document(inner)) != nil, "\(inner)")
      #expect(!(try judge("letter.fodt", document(inner))).accepted, "\(inner)")
    }
    for inner in [
      #"<text:a xlink:type="simple" xlink:href="https://example.org/macro/execute">a page</text:a>"#,
      #"<draw:image-map><draw:area-circle xlink:href="https://example.org/"/></draw:image-map><form:button form:button-type="push"/>"#,
    ] {
      #expect(ContentClassifier.flatOpenDocumentMacros(document(inner)) == nil, "\(inner)")
      #expect(try judge("letter.fodt", document(inner)).accepted, "\(inner)")
    }
  }

  @Test("a flat ODF without scripts, and other XML with script elements, stay accepted as text")
  func plainFlatDocumentsAndOtherXMLAreText() throws {
    let plain = Array((Self.root + "<office:scripts/>\n" + Self.body).utf8)
    let verdict = try judge("letter.fodt", plain)
    #expect(verdict.accepted, "\(verdict.reason)")
    let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>"#.utf8)
    #expect(ContentClassifier.flatOpenDocumentMacros(svg) == nil)
    let quoted = Array(("<notes>urn:oasis:names:tc:opendocument:xmlns:office:1.0 <source-code/></notes>").utf8)
    #expect(ContentClassifier.flatOpenDocumentMacros(quoted) == nil)
  }
}

extension ContentClassifier {
  static func flatOpenDocumentMacros(_ bytes: [UInt8]) -> String? {
    bytes.withUnsafeBytes { flatOpenDocumentMacros($0) }
  }
}
