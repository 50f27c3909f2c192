import Foundation
import Testing

@testable import UniformTypes

/// Review 28, finding 3: every window of a MIME message or flat OpenDocument file was read as
/// text (decoded, lowercased, unfolded, split into lines), 0.6 s of CPU per MiB. The byte
/// searches that now come first must never pass over a window in which that reading finds
/// something: random texts made of the signs' pieces, cut, folded, quoted, in any case and
/// beside Unicode that joins or ends Characters, get the same answer both ways.
@Suite("Whole-text scans read as bytes first")
struct WholeTextScanTests {
  /// Pieces of what the text reading looks for, and what may come between or around them.
  static let mimePieces = [
    "MIME-Version: 1.0", "mime-version:", "Content-Type: multipart/related", "content-type:", "multipart/", "Content-Location:",
    "content-location: ", "file:///C:/x/", "editdata.mso", "EditData%2Emso", "editdata", ".mso", "application/x-mso",
    "Application/X-", "mso", "\"", "'", "Edit-Time-Data", "edit-", "time-", "data", "=", "=\r\n", "=\n", "ActiveMime", "Active",
    "Mime", "QWN0aXZl", "TWltZQ", "QWN0aXZlTWltZQ", "\r\n", "\n", "\r", " ", "\t", "\n ", "\r\n\t", ":", "/", "\\", "x", "é",
    "\u{301}", "\u{600}", "\u{85}", "\u{A0}", "\u{212A}", "İ",
  ]

  static let odfPieces = [
    "<", ">", "/", ":", "<?", "<!", " ", "\n", "\r\n", "\t", "office:", "script", "scripts", "library-embedded", "source-code",
    "event-listener", "event-listeners", "ooo:", "x", "é", "\u{301}", "\u{600}", "\u{85}", "\u{A0}", "\u{2028}", "<office:document ",
    "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\"", "presentation:", "\"", "=", "&#101;",
    " presentation:action=\"execute\"", " presentation:action=\"next-page\"", " script:macro-name=\"a\"",
    " xmlns:presentation=\"urn:oasis:names:tc:opendocument:xmlns:presentation:1.0\"", "event", "events", "libraries",
    "</office:script>", "<office:script/>", "</ooo:library-embedded>", " xmlns:presentation=\"http://openoffice.org/2000/presentation\"",
  ]

  static func text(from pieces: [String], using generator: inout some RandomNumberGenerator) -> [UInt8] {
    let count = Int.random(in: 0...24, using: &generator)
    var bytes = Array((0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined().utf8)
    // Now and then a stray byte that is no UTF-8, where the text reading sees U+FFFD.
    if Bool.random(using: &generator), !bytes.isEmpty { bytes.insert(0xC3, at: Int.random(in: 0..<bytes.count, using: &generator)) }
    return bytes
  }

  /// Calls `compare` on 20,000 random texts of `pieces` (as bytes, and the text itself); returns
  /// how many of them the text reading found a sign in (`compare`'s answer).
  static func sampled(_ pieces: [String], _ compare: (UnsafeRawBufferPointer, String) -> Bool) -> Int {
    var generator = SystemRandomNumberGenerator()
    var found = 0
    for _ in 0..<20_000 {
      let bytes = text(from: pieces, using: &generator)
      if bytes.withUnsafeBytes({ compare($0, String(decoding: bytes, as: UTF8.self)) }) { found += 1 }
    }
    return found
  }

  @Test("a MIME message's signs of a VBA project are found by the byte searches first wherever the text reading finds them")
  func mhtmlAgreesWithTheTextReading() {
    let found = Self.sampled(Self.mimePieces) { head, text in
      let asText = ContentClassifier.mhtmlMacrosReadAsText(head)
      #expect(ContentClassifier.mhtmlMacros(head) == asText, "\(text.debugDescription)")
      return asText != nil
    }
    // The pieces make signs often enough for the comparison to mean something.
    #expect(found > 100, "\(found)")
  }

  @Test("a macro element is looked for wherever the bytes may hold one, and found wherever a reading by Characters found one")
  func openDocumentElementsAgreeWithTheTextReading() {
    let found = Self.sampled(Self.odfPieces) { head, text in
      let bindings = ContentClassifier.PrefixBindings(reading: head)
      let asBytes = ContentClassifier.openDocumentMacroElement(in: head, bindings: bindings)
      let asText = Self.characterReading(text[...], bindings: bindings)
      #expect(asBytes == nil || ContentClassifier.mayHoldOpenDocumentMacroElement(head), "\(text.debugDescription)")
      // A combining mark (U+0301) or a prepended one (U+0600) joins a `<`, `?` or `>` into
      // another Character, which the reading by Characters then did not take for markup; an XML
      // parser, like the bytes, does.
      let joins = text.unicodeScalars.contains { $0 == "\u{301}" || $0 == "\u{600}" }
      #expect(asText == nil || asBytes != nil || joins, "\(text.debugDescription)")
      return asText != nil
    }
    #expect(found > 100, "\(found)")
  }

  /// The element search as it read Characters before review 33 (finding 6: 0.4 s of CPU per
  /// MiB of click actions), the reference the byte reading must find at least as much as (it
  /// reads a tag to its end past a quoted `>`, where this stopped).
  static func characterReading(_ text: Substring, bindings: ContentClassifier.PrefixBindings) -> String? {
    var rest = text
    while let open = rest.firstIndex(of: "<") {
      rest = rest[rest.index(after: open)...]
      // A name holds no `<` (the byte reading stops there too: review 35's quadratic scan).
      let name = rest.prefix { !($0 == ">" || $0 == "/" || $0 == "<" || $0.isWhitespace) }
      guard !name.isEmpty, name.first != "?", name.first != "!" else { continue }
      let parts = name.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      let local = parts.last.map(String.init) ?? ""
      guard ContentClassifier.flatOpenDocumentMacroElements.contains(local) else { continue }
      // An empty container, as the byte reading decides it (the bytes after the name).
      if local == "script" || local == "library-embedded",
        Array(rest[name.endIndex...].utf8).withUnsafeBytes({ after in
          Array(name.utf8).withUnsafeBytes { ContentClassifier.isEmptyScriptContainer(after, name: $0, local: Array(local.utf8)) }
        })
      {
        continue
      }
      let tag = Array(rest.prefix { $0 != ">" }.utf8)
      if local == "event-listener" || local == "event", parts.count == 2, bindings.isPresentation(String(parts[0])),
        !tag.withUnsafeBytes(ContentClassifier.clickActionRuns)
      {
        continue
      }
      return String(name)
    }
    return nil
  }

  @Test("a sign split by a quoted-printable soft break, a line break in base64 or quotes is still looked for as text")
  func splitSignsPassTheByteSearches() {
    for text in [
      "MIME-Version: 1.0\r\n\r\n<link rel=3DEdit-Ti=\r\nme-Data href=3D\"x\">",
      "MIME-Version: 1.0\n\nQWN0aXZl\r\nTWltZQ==",
      "MIME-Version: 1.0\nContent-Type: \"application/x-\"mso\n",
      "MIME-Version: 1.0\nContent-Location: file:///C:/editdata%2Emso\n",
    ] {
      Array(text.utf8).withUnsafeBytes { head in
        #expect(ContentClassifier.mhtmlMacros(head) != nil, "\(text.debugDescription)")
      }
    }
    let plain = Array("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nQUJD\r\n".utf8)
    plain.withUnsafeBytes { #expect(!ContentClassifier.mayShowMHTMLMacros($0)) }
    Array("<office:document-content><office:scripts/><office:body/>".utf8).withUnsafeBytes {
      #expect(!ContentClassifier.mayHoldOpenDocumentMacroElement($0))
    }
  }
}
