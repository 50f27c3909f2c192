import Foundation
import Testing
import TextEscaping

@Suite("Peer text: escaped and capped wherever it is shown")
struct PeerTextTests {
  /// OSC 52 (write the clipboard), OSC 8 (a hyperlink), clear screen, colour, a CSI without ESC,
  /// a bidi override and a newline.
  static let attack =
    "\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}]8;;https://evil.example/\u{07}click\u{1B}]8;;\u{07}\u{1B}[2J\u{1B}[31mred\u{9B}0m\u{202E}gpj.exe\nnext"

  /// Characters a terminal acts on: C0 (but none is left, not even a newline), DEL, C1, and
  /// invisible format characters (bidi overrides, zero-width).
  static func raw(_ text: String) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { scalar in
      scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format
    }
  }

  @Test func interpolationPrintAndDescribingAreEscaped() {
    let text = PeerText(Self.attack)
    let shown = ["\(text)", String(describing: text), String(reflecting: text), text.description, text.shown(limit: 1000)]
    for form in shown {
      #expect(Self.raw(form).isEmpty, "raw \(Self.raw(form)) in \(form.debugDescription)")
      #expect(form.contains("\\u{1B}]52;c;") && form.contains("\\u{202E}gpj.exe"), "\(form)")
    }
    #expect(String(reflecting: text).hasPrefix("\"") && String(reflecting: text).hasSuffix("\""))
  }

  @Test func dumpAndMirrorShowOnlyTheEscapedForm() {
    var dumped = ""
    dump(PeerText(Self.attack), to: &dumped)
    #expect(Self.raw(dumped).filter { $0 != "\n" }.isEmpty, "raw \(Self.raw(dumped)) in \(dumped.debugDescription)")
    #expect(Mirror(reflecting: PeerText(Self.attack)).children.allSatisfy { Self.raw("\($0.value)").isEmpty })
  }

  @Test func aFifteenMebibyteNameIsShownCut() {
    let huge = PeerText(String(repeating: "B", count: 15 << 20))
    #expect(huge.description.unicodeScalars.count == PeerText.displayLength + 1)
    #expect(huge.description.hasSuffix("…"))
    #expect(huge.shown(limit: 20) == String(repeating: "B", count: 20) + "…")
    let escapes = PeerText(String(repeating: "\u{1B}", count: 100_000))
    #expect(escapes.description.unicodeScalars.count <= PeerText.displayLength + 1)
  }

  @Test func printableTextIsShownAsItIs() {
    let name = "Zoë’s Mac — 東京 📱 #2"
    #expect("\(PeerText(name))" == name)
    #expect(PeerText("back\\slash").description == "back\\\\slash")
  }

  @Test func theRawValueIsReachableOnlyByItsNamedAccessor() {
    #expect(PeerText(Self.attack).unescaped == Self.attack)
    #expect(PeerText("a") == PeerText("a") && PeerText("a") != PeerText("b"))
    #expect(PeerText("").isEmpty && !PeerText("x").isEmpty)
  }

  @Test func jsonCarriesTheValueWithControlCharactersEscaped() throws {
    let data = try JSONEncoder().encode(["name": PeerText(Self.attack)])
    let json = String(decoding: data, as: UTF8.self)
    #expect(!json.unicodeScalars.contains { $0.value < 0x20 }, "\(json.debugDescription)")
    let back = try JSONDecoder().decode([String: PeerText].self, from: data)
    #expect(back["name"]?.unescaped == Self.attack)
  }

  @Test func jsonCutsAValueOverTheCapOnACharacterBoundary() throws {
    let huge = String(repeating: "é", count: PeerText.maximumEncodedBytes)  // 2 bytes each
    let decoded = try JSONDecoder().decode(PeerText.self, from: JSONEncoder().encode(PeerText(huge))).unescaped
    #expect(decoded.utf8.count <= PeerText.maximumEncodedBytes + "…".utf8.count)
    #expect(decoded.hasSuffix("…") && decoded.dropLast().allSatisfy { $0 == "é" })
    let fits = String(repeating: "a", count: PeerText.maximumEncodedBytes)
    #expect(try JSONDecoder().decode(PeerText.self, from: JSONEncoder().encode(PeerText(fits))).unescaped == fits)
  }
}
