import Foundation
import Testing

@testable import TextEscaping

/// One hand-written JSON string writer, two styles: the journal's (only what its scanner reads
/// back) and `--json` output's (what JSONEncoder writes, then nothing that can steer a terminal).
@Suite struct JSONStringTests {
  static let tricky = "a\"b\\c\n\r\t\u{08}\u{0C}\u{1B}\u{7F}\u{85}\u{202E}\u{2028}é😀"

  @Test func theJournalStyleEscapesControlsAndNothingAboveC1() {
    #expect(
      JSONString.literal(Self.tricky, style: .journal)
        == "\"a\\\"b\\\\c\\n\\r\\t\\u0008\\u000c\\u001b\\u007f\\u0085\u{202E}\u{2028}é😀\"")
  }

  @Test func theOutputStyleWritesJSONEncodersEscapesAndHidesFormatCharacters() {
    #expect(
      JSONString.literal(Self.tricky, style: .output)
        == "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u001b\\u007f\\u0085\\u202e\\u2028é😀\"")
  }

  @Test(arguments: [JSONString.Style.journal, .output])
  func bothStylesDecodeToTheSameString(_ style: JSONString.Style) throws {
    let literal = JSONString.literal(Self.tricky, style: style)
    #expect(try JSONDecoder().decode(String.self, from: Data(literal.utf8)) == Self.tricky)
  }

  @Test func appendingAddsToWhatIsThere() {
    var bytes = Array("[".utf8)
    JSONString.append("x", style: .output, to: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == "[\"x\"")
  }

  /// Review 38: a name that is not UTF-8 (`caf\xE9.txt`, made by hand in the Inbox) was left out
  /// of `share inbox list`; listed now, its JSON writes the raw byte as PEP 383's lone
  /// surrogate, which Python's json and os.fsencode give back as the byte. The journal keeps
  /// the scalar `FileNameText` holds it as, which its own scanner reads back.
  @Test func aRawByteOfAFileNameIsALoneSurrogateInOutput() {
    let name = FileNameText.decoding([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x74])
    #expect(JSONString.literal(name, style: .output) == #""caf\udce9.t""#)
    #expect(JSONString.literal(name, style: .journal) == "\"" + name + "\"")
  }
}
