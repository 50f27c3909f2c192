import Testing
import Wire

/// A WireError's description goes into logs and onto terminals: whatever the peer sent in it is
/// shown escaped, never raw.
@Suite struct WireErrorTests {
  /// Found by the Wire fuzzer (Fuzz/Wire): an unknown message type carried its raw bytes, so a
  /// receiver could write escape sequences to the sender's terminal through `share send`'s error.
  @Test func anUnknownMessageTypeIsShownEscaped() throws {
    let hostile = #"{"type":"\u001b]52;c;cHduZWQ=\u0007\u001b[2J"}"#
    let error = try #require(throws: WireError.self) { try MessageCodec.decode(Array(hostile.utf8)) }
    let text = error.description
    #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(text.debugDescription)")
    #expect(text.contains(#"\u{1B}]52;c;cHduZWQ=\u{7}"#), "\(text)")
  }
}
