import Testing
import TextEscaping

@Suite("Escaping untrusted text")
struct EscapingTests {
  @Test("control characters, bidi overrides and zero-width characters are written as \\u{…}")
  func escapes() {
    #expect(Escaping.escaped("a\u{1B}[2Jb") == "a\\u{1B}[2Jb")
    #expect(Escaping.escaped("x\u{202E}y\u{200B}z\u{85}") == "x\\u{202E}y\\u{200B}z\\u{85}")
    #expect(Escaping.escaped("tab\there\nnl\0") == "tab\\u{9}here\\u{A}nl\\u{0}")
    #expect(Escaping.escaped("back\\slash") == "back\\\\slash")
    #expect(Escaping.escaped("Crème brûlée 東京 🙂") == "Crème brûlée 東京 🙂")
  }

  /// Found by review 13: `peer-a⠀` (the braille blank) and a Hangul filler were printed as they
  /// are, and read as `peer-a`.
  @Test("characters drawn as nothing are written as \\u{…}, variation selectors stay")
  func blanks() {
    #expect(Escaping.escaped("peer-a\u{2800}") == "peer-a\\u{2800}")
    #expect(Escaping.escaped("bob\u{3164}") == "bob\\u{3164}")
    #expect(Escaping.escaped("a\u{034F}b") == "a\\u{34F}b")
    #expect(Escaping.escaped("I \u{2764}\u{FE0F} it") == "I \u{2764}\u{FE0F} it")
  }

  /// Found by review 14: a family emoji and Persian text were shown with `\u{200D}`/`\u{200C}`,
  /// though the Inbox keeps those joiners where writing needs them.
  @Test("a joiner that joins is shown as it is; one that only hides is escaped")
  func joiners() {
    let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} photos"
    #expect(Escaping.escaped(family) == family)
    let persian = "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}"
    #expect(Escaping.escaped(persian) == persian)
    #expect(Escaping.escaped("bob\u{200D}") == "bob\\u{200D}")
    #expect(Escaping.escaped("b\u{200D}ob") == "b\\u{200D}ob")
    #expect(Escaping.escaped("\u{200D}\u{1F469}") == "\\u{200D}\u{1F469}")
    #expect(Escaping.escaped("\u{65E5}\u{200D}\u{672C}") == "\u{65E5}\\u{200D}\u{672C}")
  }

  /// Found by review 13: `a\b.txt`, listed as `a\\b.txt`, could not be pasted back.
  @Test("a subdivision flag is shown as it is; other tag characters are escaped")
  func subdivisionFlags() {
    let wales = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}"
    #expect(Escaping.escaped(wales + " photos") == wales + " photos")
    #expect(Escaping.escaped("\u{1F3F4}\u{E0061}\u{E007F}") == "\u{1F3F4}\\u{E0061}\\u{E007F}")
    #expect(Escaping.escaped("x\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}").hasPrefix("x\\u{E0067}"))
  }

  @Test("unescaping gives back what was escaped, and refuses what no escaping makes")
  func unescaping() {
    for value in ["a\\b.txt", "x\u{202E}y\u{1B}[2J", "say \"hi\"", "plain", "\\u{41}", "東京 🙂\u{2800}"] {
      #expect(Escaping.unescaped(Escaping.escaped(value, maximumLength: 4096)) == value, "\(value.debugDescription)")
      #expect(Escaping.unescaped(String(Escaping.quoted(value).dropFirst().dropLast())) == value, "\(value.debugDescription)")
    }
    for shown in ["a\\", "a\\n", "\\u{zz}", "\\u{41", "\\u41", "\\u{110000}"] {
      #expect(Escaping.unescaped(shown) == nil, "\(shown.debugDescription)")
    }
  }

  @Test("quoting escapes inner quotes")
  func quoting() {
    #expect(Escaping.quoted("say \"hi\"") == "\"say \\\"hi\\\"\"")
  }

  @Test("a message made from escaped parts keeps their escapes and escapes what it adds raw")
  func madeMessages() {
    let name = Escaping.escaped("\\\\host\\s\u{1B}.txt")
    let message = "refused: \(name) is a script"
    #expect(Escaping.made(message) == message)
    #expect(Escaping.made("raw \u{1B}[2J and \u{202E}") == "raw \\u{1B}[2J and \\u{202E}")
    #expect(Escaping.made(String(repeating: "\\", count: 400), maximumLength: 20).hasSuffix("…"))
  }

  @Test("output is cut at the maximum length, escapes included")
  func bounded() {
    let long = Escaping.escaped(String(repeating: "\u{1B}", count: 1000), maximumLength: 20)
    #expect(long.unicodeScalars.count <= 21 && long.hasSuffix("…"))
    #expect(Escaping.escaped("short", maximumLength: 20) == "short")
  }
}
