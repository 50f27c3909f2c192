import Foundation
import Testing

@testable import UniformTypes

/// Review 35: Office documents written as text with macros, refused as they are, were accepted
/// once their head no longer showed the form or libmagic called them something else: 70 KB of
/// XML comment (or one long folded MIME header) first, UTF-16 without a byte-order mark, seven
/// bytes at 32 KiB that made libmagic say "ISO 9660", a binary MIME part right after the headers.
@Suite struct HiddenTextFormTests {
  let registry = TypeRegistry.system()
  typealias T = OfficeTextMacroTests

  /// The whole item classified, libmagic having said `mime`.
  func classify(_ bytes: [UInt8], _ mime: String) -> ContentType {
    let head = Array(bytes.prefix(ContentSniffer.headLength))
    return bytes.withUnsafeBytes { all in
      ContentClassifier.classify(
        head: head, truncated: bytes.count > head.count, magic: MagicResult(mimeType: mime, description: ""), registry: registry,
        whole: ItemBytes(all))
    }
  }

  func expectMacros(_ bytes: [UInt8], _ mime: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let content = classify(bytes, mime)
    #expect(
      [TypeIdentifier.macroEnabled, .openDocumentMacros].contains(content.type), "\(content)", sourceLocation: sourceLocation)
  }

  static let comment = SampleBytes.utf8("<!--" + String(repeating: "padding ", count: 9000) + "-->\n")

  @Test func aPrologOrHeaderLongerThanTheHeadIsReadPast() {
    let word = T.wordXML(#"<w:binData w:name="editdata.mso">QWN0aXZlTWltZQAAAfAEAAAA</w:binData>"#)
    let declaration = Array(word.prefix { $0 != 0x0A }) + [0x0A]
    expectMacros(declaration + Self.comment + word.dropFirst(declaration.count), "text/xml")
    let mime = T.mhtml("Content-Location: file:///C:/x_files/editdata.mso\nContent-Type: application/x-mso\n\nQWN0aXZlTWltZQ==")
    let folded = SampleBytes.utf8(
      "X-Pad: " + String(repeating: "x", count: 70) + String(repeating: "\n " + String(repeating: "x", count: 70), count: 1000) + "\n")
    expectMacros(folded + mime, "text/plain")
  }

  @Test func aTextFormIsLookedIntoWhateverLibmagicCalledIt() {
    let word = T.wordXML(#"<w:binData w:name="editdata.mso">QWN0aXZlTWltZQAAAfAEAAAA</w:binData>"#)
    for mime in ["application/x-iso9660-image", "application/octet-stream"] { expectMacros(word, mime) }
    // UTF-16 without a byte-order mark, as a parser reads `<?` (3C 00 3F 00).
    let wide = String(decoding: word, as: UTF8.self).utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    for mime in ["application/octet-stream", "text/plain", "text/xml"] { expectMacros(wide, mime) }
    // A binary part right after the message's headers.
    let binary = SampleBytes.utf8("MIME-Version: 1.0\nContent-Type: multipart/related; boundary=\"B\"\n\n--B\n") + [0x89, 0x50, 0, 0, 1, 2]
    expectMacros(binary + T.mhtml("Content-Type: application/x-mso\n\nQWN0aXZlTWltZQ=="), "application/octet-stream")
  }

  @Test func everydayTextAndDataAreNotTakenForTheForms() {
    let plain = SampleBytes.utf8(String(repeating: "Subject: a line of notes\n", count: 3000))
    for (bytes, mime) in [
      (
        SampleBytes.utf8("<?xml version=\"1.0\"?>\n") + Self.comment + SampleBytes.utf8("<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n"),
        "image/svg+xml"
      ),
      (plain, "text/plain"), (Array(repeating: 0x3C, count: 70_000), "application/octet-stream"),
    ] {
      let content = classify(bytes, mime)
      #expect(![TypeIdentifier.macroEnabled, .openDocumentMacros].contains(content.type), "\(content)")
    }
  }
}

/// Review 35: a Windows program with `CD001` written into its padding at 32 KiB was an "ISO disk
/// image" to libmagic, accepted under any name but the excluded ones.
@Suite struct PEWhateverLibmagicSaysTests {
  let registry = TypeRegistry.system()

  static func program() -> [UInt8] {
    var bytes = [UInt8](repeating: 0xCC, count: 40_000)
    bytes.replaceSubrange(0..<2, with: Array("MZ".utf8))
    bytes.replaceSubrange(0x3C..<0x40, with: SampleBytes.le32(0x80))
    bytes.replaceSubrange(0x80..<0x84, with: Array("PE".utf8) + [0, 0])
    bytes.replaceSubrange(32_769..<32_774, with: Array("CD001".utf8))
    return bytes
  }

  @Test func aPEIsAWindowsProgramWhateverLibmagicCalledIt() {
    for mime in ["application/x-iso9660-image", "application/octet-stream", "image/jpeg"] {
      let content = Self.program().withUnsafeBytes {
        ContentClassifier.classify(
          head: UnsafeRawBufferPointer(rebasing: $0.prefix(ContentSniffer.headLength)), truncated: false,
          magic: MagicResult(mimeType: mime, description: ""), registry: registry)
      }
      #expect(registry.conforms(content.type, to: "com.microsoft.windows-executable"), "\(mime): \(content)")
    }
    // MZ without a PE signature where e_lfanew points stays what libmagic said.
    var plain = Self.program()
    plain[0x80] = 0
    let content = plain.withUnsafeBytes {
      ContentClassifier.classify(
        head: UnsafeRawBufferPointer(rebasing: $0.prefix(ContentSniffer.headLength)), truncated: false,
        magic: MagicResult(mimeType: "application/x-iso9660-image", description: ""), registry: registry)
    }
    #expect(!registry.conforms(content.type, to: "com.microsoft.windows-executable"), "\(content)")
  }
}
