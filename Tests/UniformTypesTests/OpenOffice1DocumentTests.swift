import Foundation
import Testing

@testable import UniformTypes

/// Review 33, finding 3: an OpenOffice.org 1.x document (`.sxw`, `.sxc`, …) with a Basic library
/// was accepted under any name, filed as an archive: its `mimetype` entry named a kind share took
/// for no OpenDocument, so its `Basic/` and its event bindings were never looked for.
@Suite("OpenOffice.org 1.x documents")
struct OpenOffice1DocumentTests {
  typealias Entry = WholePackageTests.Entry
  static let policy = OpenDocumentPartsTests.policy

  static let namespaces = """
    xmlns:office="http://openoffice.org/2000/office" xmlns:text="http://openoffice.org/2000/text" \
    xmlns:script="http://openoffice.org/2000/script" xmlns:presentation="http://openoffice.org/2000/presentation" \
    xmlns:draw="http://openoffice.org/2000/drawing"
    """

  /// `content.xml` as OpenOffice.org 1.1 wrote it: an empty `office:script` first, then `inside`.
  static func content(_ inside: String = "") -> [UInt8] {
    Array(
      (#"<?xml version="1.0" encoding="UTF-8"?><office:document-content \#(namespaces) office:class="text" office:version="1.0">"#
        + "<office:script/>\(inside)<office:body><text:p>Minutes</text:p></office:body></office:document-content>").utf8)
  }

  /// Its Basic library as OpenOffice.org 1.1 wrote one: a module that calls `Shell`.
  static let basic = [
    Entry(
      "Basic/script-lc.xml",
      Array(
        #"<library:libraries xmlns:library="http://openoffice.org/2000/library"><library:library library:name="Standard" library:link="false"/></library:libraries>"#
          .utf8)),
    Entry(
      "Basic/Standard/script-lb.xml",
      Array(
        #"<library:library xmlns:library="http://openoffice.org/2000/library" library:name="Standard"><library:element library:name="Module1"/></library:library>"#
          .utf8)),
    Entry(
      "Basic/Standard/Module1.xml",
      Array(
        #"<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Module1">Sub Main&#10;Shell(&quot;xcalc&quot;)&#10;End Sub</script:module>"#
          .utf8)),
  ]

  /// A package laid out as OpenOffice.org 1.1 wrote it: `mimetype` stored and first.
  static func package(_ mime: String = "application/vnd.sun.xml.writer", content: [UInt8] = content(), more: [Entry] = []) -> [UInt8] {
    let manifest =
      #"<manifest:manifest xmlns:manifest="http://openoffice.org/2001/manifest"><manifest:file-entry manifest:media-type="\#(mime)" manifest:full-path="/"/></manifest:manifest>"#
    return WholePackageTests.zip(
      [
        Entry("mimetype", Array(mime.utf8)), Entry("content.xml", SampleBytes.storedDeflate(content), method: 8),
        Entry("META-INF/manifest.xml", Array(manifest.utf8)),
      ] + more)
  }

  func check(_ bytes: [UInt8], as name: String) throws -> CheckReport {
    try Self.policy.get().check(writing: bytes, as: name)
  }

  @Test("a plain sxw, sxc or stw is an office document, despite its empty office:script")
  func plainDocumentsAreOfficeDocuments() throws {
    for (mime, name) in [
      ("application/vnd.sun.xml.writer", "minutes.sxw"), ("application/vnd.sun.xml.calc", "sheet.sxc"),
      ("application/vnd.sun.xml.writer.template", "letter.stw"), ("application/vnd.sun.xml.impress", "talk.sxi"),
    ] {
      let report = try check(Self.package(mime), as: name)
      #expect(report.verdict.accepted && report.verdict.decidedBy == "Office documents", "\(name): \(report.verdict)")
    }
  }

  @Test("one with a Basic library is refused as an OpenDocument file with macros, under any name")
  func aBasicLibraryRefusesItUnderAnyName() throws {
    for (mime, name) in [
      ("application/vnd.sun.xml.writer", "minutes.sxw"), ("application/vnd.sun.xml.writer", "minutes.odt"),
      ("application/vnd.sun.xml.writer", "minutes.doc"), ("application/vnd.sun.xml.writer", "minutes"),
      ("application/vnd.sun.xml.calc", "sheet.sxc"), ("application/vnd.sun.xml.calc", "sheet.zip"),
    ] {
      let report = try check(Self.package(mime, more: Self.basic), as: name)
      #expect(!report.verdict.accepted && report.content?.type == .openDocumentMacros, "\(name): \(report.verdict)")
    }
  }

  @Test("a macro bound with OpenOffice.org 1.x's script:event is refused; a click action that runs nothing is not")
  func eventBindingsAreMacros() throws {
    let load =
      #"<office:events><script:event script:language="StarBasic" script:event-name="office:load" script:macro-name="Tools.Debug.WriteDbgInfo" script:location="application"/></office:events>"#
    let bound = try check(Self.package(content: Self.content(load)), as: "minutes.sxw")
    #expect(!bound.verdict.accepted && bound.content?.type == .openDocumentMacros, "\(bound.verdict)")
    #expect(bound.content?.refinement?.contains("script:event in content.xml") == true, "\(String(describing: bound.content))")
    func click(_ action: String) -> [UInt8] {
      Self.content(
        #"<draw:page><draw:rect><office:events><presentation:event script:event-name="on-click" presentation:action="\#(action)"/></office:events></draw:rect></draw:page>"#
      )
    }
    let next = try check(Self.package("application/vnd.sun.xml.impress", content: click("next-page")), as: "talk.sxi")
    #expect(next.verdict.accepted, "\(next.verdict)")
    let run = try check(Self.package("application/vnd.sun.xml.impress", content: click("execute")), as: "talk.sxi")
    #expect(!run.verdict.accepted && run.content?.type == .openDocumentMacros, "\(run.verdict)")
  }
}
