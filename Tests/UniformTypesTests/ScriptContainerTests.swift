import Foundation
import Testing

@testable import UniformTypes

/// Review 33, finding 7: an empty script container was refused as macros: LibreOffice's own
/// `CREDITS.fodt` (an embedded `Standard` library with no module) and the empty
/// `<office:script/>` of every OpenOffice.org 1.x `content.xml`.
@Suite("Empty script containers in OpenDocument XML")
struct ScriptContainerTests {
  typealias Parts = OpenDocumentPartsTests
  static let ooo = #"xmlns:ooo="http://openoffice.org/2004/office""#

  func check(_ bytes: [UInt8], as name: String) throws -> CheckReport {
    try Parts.policy.get().check(writing: bytes, as: name)
  }

  func element(_ xml: String) -> String? {
    Array(xml.utf8).withUnsafeBytes {
      ContentClassifier.openDocumentMacroElement(in: $0, bindings: ContentClassifier.PrefixBindings(reading: $0))
    }
  }

  @Test("an empty script element or Standard library is no macro, flat or zipped")
  func emptyContainersAreAccepted() throws {
    for scripts in [
      "<office:script/>", #"<office:script script:language="ooo:Basic" />"#, "<office:script>\n </office:script >",
      #"<office:script script:language="ooo:Basic"><ooo:libraries \#(Self.ooo)><ooo:library-embedded ooo:name="Standard"/></ooo:libraries></office:script>"#,
      #"<office:script script:language="ooo:Basic"> <ooo:libraries \#(Self.ooo)> <ooo:library-embedded ooo:name="Standard"> </ooo:library-embedded> <ooo:libraries/> </ooo:libraries> </office:script>"#,
    ] {
      let flat = try check(Parts.fodt(scripts: scripts), as: "CREDITS.fodt")
      #expect(flat.verdict.accepted, "\(scripts): \(flat.verdict)")
      let zipped = try check(Parts.odt(content: Parts.content(scripts: scripts)), as: "CREDITS.odt")
      #expect(zipped.verdict.accepted, "\(scripts): \(zipped.verdict)")
    }
  }

  @Test("a container with a module, source code, a linked library, text or a comment is still macros")
  func containersWithAnythingInThemAreRefused() throws {
    let module = #"<ooo:module ooo:name="Module1"><ooo:source-code>Sub Main: Shell("xterm"): End Sub</ooo:source-code></ooo:module>"#
    for scripts in [
      #"<office:script script:language="ooo:Basic"><ooo:libraries \#(Self.ooo)><ooo:library-embedded ooo:name="Standard">\#(module)</ooo:library-embedded></ooo:libraries></office:script>"#,
      #"<office:script script:language="ooo:Basic"><ooo:libraries \#(Self.ooo)><ooo:library-linked ooo:name="Lib" xlink:href="file:///tmp/lib.xlb/"/></ooo:libraries></office:script>"#,
      #"<office:script script:language="javascript">alert(1)</office:script>"#,
      "<office:script><!-- --></office:script>",
      #"<ooo:library-embedded \#(Self.ooo) ooo:name="Standard">\#(module)</ooo:library-embedded>"#,
    ] {
      let flat = try check(Parts.fodt(scripts: scripts), as: "letter.fodt")
      #expect(!flat.verdict.accepted && flat.content?.type == .openDocumentMacros, "\(scripts): \(flat.verdict)")
      let zipped = try check(Parts.odt(content: Parts.content(scripts: scripts)), as: "letter.odt")
      #expect(!zipped.verdict.accepted && zipped.content?.type == .openDocumentMacros, "\(scripts): \(zipped.verdict)")
    }
  }

  @Test("a container the bytes end inside is taken for macros, not for empty")
  func anUnfinishedContainerIsMacros() {
    #expect(element("<office:script>") == "office:script")
    #expect(element("<office:script><ooo:libraries>") == "office:script")
    #expect(element(#"<office:script a="/>"#) == "office:script")
    #expect(element("<office:script/><x/>") == nil)
  }
}
