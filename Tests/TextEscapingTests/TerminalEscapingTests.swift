import Testing
import TextEscaping

/// Names from the network (Avahi records, peers' device names) on a terminal: the cases the
/// discovery layer needs, against the one escaping function.
@Suite struct TerminalEscapingTests {
  func escapeForTerminal(_ s: String) -> String { Escaping.escaped(s, maximumLength: .max) }

  @Test func escapeSequenceAndBellAreShownAsCodePoints() {
    #expect(escapeForTerminal("evil\u{1B}[31m\u{07}name") == "evil\\u{1B}[31m\\u{7}name")
  }

  @Test func everyC0ControlAndDelAreEscaped() {
    for value in UInt32(0)...0x1F {
      let scalar = Unicode.Scalar(value)!
      let escaped = escapeForTerminal("a" + String(Character(scalar)) + "b")
      #expect(!escaped.unicodeScalars.contains(scalar), "U+\(String(value, radix: 16)) survived")
    }
    #expect(escapeForTerminal("\u{7F}") == "\\u{7F}")
  }

  @Test func newlineTabAndCarriageReturnCannotBreakTheLine() {
    #expect(escapeForTerminal("a\nb\tc\rd") == "a\\u{A}b\\u{9}c\\u{D}d")
  }

  @Test func c1ControlsIncludingSingleByteCSIAreEscaped() {
    #expect(escapeForTerminal("\u{9B}31m") == "\\u{9B}31m")
    #expect(escapeForTerminal("\u{80}\u{9F}") == "\\u{80}\\u{9F}")
  }

  @Test func bidiOverridesAndIsolatesAreEscaped() {
    #expect(escapeForTerminal("abc\u{202E}gpj.exe") == "abc\\u{202E}gpj.exe")
    for value: UInt32 in [
      0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x2066, 0x2067, 0x2068, 0x2069,
    ] {
      let scalar = Unicode.Scalar(value)!
      #expect(
        escapeForTerminal(String(Character(scalar)))
          == "\\u{\(String(value, radix: 16, uppercase: true))}")
    }
  }

  @Test func lineAndParagraphSeparatorsAreEscaped() {
    #expect(escapeForTerminal("a\u{2028}b\u{2029}") == "a\\u{2028}b\\u{2029}")
  }

  @Test func backslashIsDoubledSoEscapesAreUnambiguous() {
    #expect(escapeForTerminal("a\\u{1B}") == "a\\\\u{1B}")
    #expect(escapeForTerminal("a\\u{1B}") != escapeForTerminal("a\u{1B}"))
  }

  @Test func printableTextIncludingNonASCIIIsKept() {
    let text = "Zoë’s Mac — 東京 📱 #2"
    #expect(escapeForTerminal(text) == text)
  }
}
