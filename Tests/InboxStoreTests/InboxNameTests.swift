import Testing

@testable import InboxStore

@Suite struct InboxNameTests {
  @Test(arguments: ["../x", "/etc/x", "a/../../x", "a/b", "/"])
  func namesWithASlashAreRefused(_ name: String) {
    #expect(throws: InboxName.Problem.pathSeparator) { try InboxName.sanitize(name) }
  }

  @Test(arguments: ["", "   ", "\t"])
  func emptyNamesAreRefused(_ name: String) {
    #expect(throws: InboxName.Problem.empty) { try InboxName.sanitize(name) }
  }

  @Test(arguments: [".", "..", " .. "])
  func dotNamesAreRefused(_ name: String) {
    #expect(throws: InboxName.Problem.dotName) { try InboxName.sanitize(name) }
  }

  /// Found by review 13: `café.txt` spelt composed and decomposed were two names that look the
  /// same. (Swift's `==` calls them equal: the bytes are compared.)
  @Test func decomposedCharactersAreComposed() throws {
    let composed = Array("caf\u{E9}.txt".utf8)
    #expect(Array(try InboxName.sanitize("cafe\u{301}.txt").utf8) == composed)
    #expect(Array(try InboxName.sanitize("caf\u{E9}.txt").utf8) == composed)
    #expect(Array(try InboxName.sanitize("\u{212B}ngstr\u{F6}m").utf8) == Array("\u{C5}ngstr\u{F6}m".utf8), "NFC, not NFKC's folding")
    #expect(try InboxName.sanitize("\u{FB01}le.txt") == "\u{FB01}le.txt", "a ligature is not a decomposed spelling")
  }

  @Test func nulIsRefused() {
    #expect(throws: InboxName.Problem.nul) { try InboxName.sanitize("a\0b") }
  }

  @Test func controlCharactersAndEscapeSequencesBecomeUnderscores() throws {
    #expect(try InboxName.sanitize("evil\u{1b}[31mred.txt") == "evil_[31mred.txt")
    #expect(try InboxName.sanitize("line\nbreak\r.txt") == "line_break_.txt")
    #expect(try InboxName.sanitize("del\u{7f}c1\u{9b}.txt") == "del_c1_.txt")
  }

  @Test func bidiOverridesCannotDisguiseAnExtension() throws {
    #expect(try InboxName.sanitize("photo\u{202e}gnp.exe") == "photo_gnp.exe")
  }

  /// Review finding: characters that show nothing survived cleaning, so a name could hide
  /// something or look like another.
  @Test(
    arguments: [
      0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x2028, 0x2029, 0x3164, 0x115F, 0x1160, 0xFFA0, 0x180E, 0xE0001, 0xE0020,
      0xE0041, 0xE007F, 0xFFFE, 0xFFFF, 0xFDD0, 0x1FFFF, 0x10FFFF, 0x2064, 0x034F,
    ] as [UInt32])
  func invisibleCharactersBecomeUnderscores(_ value: UInt32) throws {
    let invisible = String(try #require(Unicode.Scalar(value)))
    #expect(try InboxName.sanitize("invoice\(invisible).pdf") == "invoice_.pdf")
    #expect(try InboxName.sanitize("a\(invisible)b") == "a_b")
  }

  /// Found by outside review 9: a braille blank, format characters, the object replacement
  /// character, a variation selector after an ASCII letter and a joiner between two CJK
  /// ideographs survived; so did runs of spaces before a real extension.
  @Test func whatShowsNothingOrHidesIsCleanedInContext() throws {
    #expect(try InboxName.sanitize("a\u{2800}b\u{FFF9}c\u{FFFC}d.txt") == "a_b_c_d.txt")
    #expect(try InboxName.sanitize("vs\u{FE0F}x.txt") == "vs_x.txt")
    #expect(try InboxName.sanitize("\u{2764}\u{FE0F}.png") == "\u{2764}\u{FE0F}.png")
    #expect(try InboxName.sanitize("1\u{FE0F}\u{20E3}.png") == "1\u{FE0F}\u{20E3}.png")
    #expect(try InboxName.sanitize("\u{65E5}\u{200D}\u{672C}.txt") == "\u{65E5}_\u{672C}.txt")
    #expect(try InboxName.sanitize("invoice.pdf" + String(repeating: " ", count: 40) + ".txt") == "invoice.pdf .txt")
    // Fuzz finding: a selector that vouched for the next one though it was replaced itself.
    for name in ["\u{FE0F}\u{FE0F}\u{FE0F}", "a\u{FE0F}\u{200D}\u{1F525}", "\u{2764}\u{FE0F}\u{FE0F}x", "\u{1F468}\u{200D}\u{FE0F}"] {
      let stored = try InboxName.sanitize(name)
      #expect(try InboxName.sanitize(stored) == stored, "\(name.unicodeScalars.map(\.value)) → \(stored.unicodeScalars.map(\.value))")
    }
    #expect(try InboxName.sanitize("\u{2764}\u{FE0F}\u{200D}\u{1F525}.png") == "\u{2764}\u{FE0F}\u{200D}\u{1F525}.png")
  }

  /// The joiners a writing system needs stay: between two characters of a script that joins.
  @Test func joinersStayWhereTheyJoinLettersOrEmoji() throws {
    let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}.jpg"
    #expect(try InboxName.sanitize(family) == family)
    let persian = "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}.pdf"
    #expect(try InboxName.sanitize(persian) == persian)
    #expect(try InboxName.sanitize("\u{1F468}\u{200D}a.jpg") == "\u{1F468}_a.jpg", "next to ASCII it only hides")
    #expect(try InboxName.sanitize("\u{1F468}\u{200D}\u{200D}\u{1F469}") == "\u{1F468}__\u{1F469}")
    #expect(try InboxName.sanitize("\u{200D}\u{1F469}") == "_\u{1F469}")
    // A cut that leaves a joiner before the extension: cleaned again, and stable.
    let long = String(repeating: "\u{0645}", count: 116) + "\u{200C}\u{0645}\u{0645}.pdf"
    let stored = try InboxName.sanitize(long)
    #expect(
      stored.hasSuffix("\u{0645}_.pdf"), "the cut left the joiner before the extension: \(stored.unicodeScalars.suffix(6).map(\.value))")
    #expect(try InboxName.sanitize(stored) == stored)
  }

  /// Found by review 14: Scotland's flag was stored as `🏴______`. The three subdivision flags
  /// Unicode recommends keep their tags; any other tag character still only hides.
  @Test func subdivisionFlagsKeepTheirTagsAndOtherTagsDoNot() throws {
    func tags(_ letters: String) -> String {
      String(String.UnicodeScalarView(letters.unicodeScalars.map { Unicode.Scalar($0.value + 0xE0000)! })) + "\u{E007F}"
    }
    let scotland = "\u{1F3F4}" + tags("gbsct")
    #expect(try InboxName.sanitize(scotland + " trip.txt") == scotland + " trip.txt")
    #expect(try InboxName.sanitize("\u{1F3F4}" + tags("gbzzz") + ".txt") == "\u{1F3F4}______.txt")
    #expect(try InboxName.sanitize("a" + tags("gbsct") + ".txt") == "a______.txt", "tags after no flag")
    #expect(try InboxName.sanitize(scotland + tags("gbsct") + ".txt") == scotland + "______.txt", "tags after the tags")
    // A cut through the flag's tags: cleaned again, and stable.
    for padding in 240...254 {
      let stored = try InboxName.sanitize(String(repeating: "a", count: padding) + scotland + ".txt")
      #expect(try InboxName.sanitize(stored) == stored, "\(padding): \(stored.unicodeScalars.suffix(10).map(\.value))")
    }
  }

  @Test(arguments: ["\u{00A0}", "\u{2000}", "\u{2003}", "\u{2009}", "\u{200A}", "\u{202F}", "\u{205F}", "\u{3000}"])
  func otherSpacesBecomeOrdinarySpaces(_ space: String) throws {
    #expect(try InboxName.sanitize("invoice.pdf\(space)\(space)\(space).txt") == "invoice.pdf .txt", "a run is one space")
    #expect(try InboxName.sanitize("\(space)a\(space)b\(space)") == "a b")
    #expect(throws: InboxName.Problem.empty) { try InboxName.sanitize(space + space) }
  }

  @Test func emojiWithVariationSelectorsAreKept() throws {
    for name in ["\u{2764}\u{FE0F} love.jpg", "\u{845B}\u{E0100}.txt", "caf\u{E9}.txt", "cafe\u{301}.txt"] {
      #expect(try InboxName.sanitize(name) == name)
    }
  }

  @Test func ordinaryNamesAreKept() throws {
    for name in ["photo.jpg", "Résumé 2026.pdf", "日本語.txt", ".env", "a b c", "-rf"] {
      #expect(try InboxName.sanitize(name) == name)
    }
  }

  @Test func overlongNamesAreShortenedKeepingTheExtension() throws {
    let long = String(repeating: "é", count: 300) + ".jpeg"
    let short = try InboxName.sanitize(long)
    #expect(short.utf8.count <= InboxName.maxBytes)
    #expect(short.hasSuffix(".jpeg"))
    #expect(short.hasPrefix("éé"))
    let variant = InboxName.variant(of: short, number: 99999)
    #expect(variant.utf8.count <= 255)
  }

  /// Fuzz finding F2: the cut fell before one huge grapheme cluster (a letter and 130 combining
  /// marks), leaving `..`, `.` or nothing of a long name, and could end a name with white space.
  @Test(arguments: ["..", ".", ""])
  func shorteningBeforeOneHugeCharacterKeepsWhatPrecedesIt(_ prefix: String) throws {
    // `q` (not `a`): q with an acute has no composed form, so the cluster stays 131 scalars.
    let name = try InboxName.sanitize(prefix + "q" + String(repeating: "\u{301}", count: 130))
    #expect(name.unicodeScalars.starts(with: (prefix + "q").unicodeScalars), "\(name.debugDescription)")
    #expect(name.utf8.count <= InboxName.maxBytes)
    #expect(try InboxName.sanitize(name) == name)
  }

  @Test func shorteningLeavesNoWhiteSpaceAtTheEnd() throws {
    let name = try InboxName.sanitize(String(repeating: "a", count: 239) + " b" + String(repeating: "\u{301}", count: 130))
    #expect(name == String(repeating: "a", count: 239))
  }

  /// Plain printable ASCII skips the scalar-by-scalar cleaning: every short name over a few
  /// ASCII characters that sit on either side of that shortcut (a space, a tab, DEL, `~`) must
  /// come out without controls or a run of spaces, and stay as it is when sanitized again.
  @Test func asciiNamesComeOutCleanAndStableWithOrWithoutTheShortcut() throws {
    let alphabet: [Character] = ["a", " ", "\t", "\u{7F}", "~", "."]
    var names = [""]
    for _ in 0..<4 { names = names.flatMap { name in alphabet.map { name + String($0) } } }
    for name in names {
      guard let stored = try? InboxName.sanitize(name) else { continue }
      #expect(!stored.contains("  ") && stored.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "\(name.debugDescription) → \(stored)")
      #expect(try InboxName.sanitize(stored) == stored, "\(name.debugDescription)")
    }
  }

  @Test func aDotAndARunOfSpacesIsNoLongerCutToADotName() throws {
    // Runs of spaces are one space now, so this one is no longer cut to "." (fuzz finding F2):
    #expect(try InboxName.sanitize("." + String(repeating: " ", count: 300) + "b") == ". b")
    // A cut that leaves only a dot is still refused: the fuzzer's property, and
    // folderEntryComponentsNeverBecomeDotDot below.
  }

  /// Review 21: white space in front of a dot hid a name (`  .txt` became the hidden `.txt`).
  @Test(arguments: ["  .txt", "\t.profile", "\u{3000}.env", " ..a"])
  func trimmingNeverMakesANameHidden(_ name: String) throws {
    let stored = try InboxName.sanitize(name)
    #expect(!stored.hasPrefix("."), "\(name.debugDescription) → \(stored)")
    #expect(stored.hasPrefix("_"))
    #expect(try InboxName.sanitize(stored) == stored)
  }

  /// Fuzz finding: the `_` came after shortening, and a long name was 241 bytes.
  @Test func aNameMadeVisibleStillFits() throws {
    let long = "\n\r." + String(repeating: "\u{E9}", count: 200) + ".jpg"
    let stored = try InboxName.sanitize(long)
    #expect(stored.hasPrefix("_.") && stored.hasSuffix(".jpg") && stored.utf8.count <= InboxName.maxBytes, "\(stored.utf8.count)")
    #expect(try InboxName.sanitize(stored) == stored)
  }

  @Test func aNameOfferedHiddenStaysAsItIs() throws {
    #expect(try InboxName.sanitize(".bashrc") == ".bashrc")
    #expect(try InboxName.sanitize(".env ") == ".env")
    #expect(try InboxName.sanitize(relativePath: "dots/ .hidden") == ["dots", "_.hidden"])
  }

  /// F2 in a folder entry: four components that shortened to `..` led from staging to the home.
  @Test func folderEntryComponentsNeverBecomeDotDot() throws {
    let dotdot = "..a" + String(repeating: "\u{301}", count: 130)
    let components = try InboxName.sanitize(relativePath: String(repeating: dotdot + "/", count: 4) + "x.txt")
    #expect(components.count == 5)
    #expect(!components.contains { $0 == ".." || $0 == "." || $0.isEmpty }, "\(components)")
  }

  /// Fuzz finding F4: `/` followed by a combining mark is one Character, which a Character
  /// comparison does not see as "/": `../\u{301}x` was a name, written one folder up.
  @Test(arguments: ["../\u{301}x", "a/\u{301}b", "/\u{301}", "x\u{0}\u{301}"])
  func aSlashOrNULUnderACombiningMarkIsStillOne(_ name: String) {
    #expect(throws: InboxName.Problem.self) { try InboxName.sanitize(name) }
    #expect(!InboxStore.isPlainName(name))
  }

  @Test func aRelativePathSplitsAtASlashUnderACombiningMark() throws {
    #expect(try InboxName.sanitize(relativePath: "a/\u{301}b/c.txt") == ["a", "\u{301}b", "c.txt"])
    #expect(throws: InboxName.Problem.pathSeparator) { try InboxName.sanitize(relativePath: "/\u{301}etc/x") }
  }

  @Test func variantsNumberBeforeTheExtension() {
    #expect(InboxName.variant(of: "notes.txt", number: 1) == "notes-1.txt")
    #expect(InboxName.variant(of: "notes.txt", number: 0) == "notes.txt")
    #expect(InboxName.variant(of: "backup.tar.gz", number: 2) == "backup-2.tar.gz")
    #expect(InboxName.variant(of: "README", number: 3) == "README-3")
    #expect(InboxName.variant(of: ".env", number: 1) == ".env-1")
    #expect(InboxName.variant(of: "my.photo.jpg", number: 1) == "my.photo-1.jpg")
  }

  @Test func urlAndTextItemsEndInTheirExtensionWhateverNameTheyCameWith() {
    #expect(InboxName.withExtension("example.org", "url") == "example.org.url")
    #expect(InboxName.withExtension("example.org.url", "url") == "example.org.url")
    #expect(InboxName.withExtension("NOTES.TXT", "txt") == "NOTES.TXT")
    #expect(InboxName.withExtension("notes.txt.sh", "txt") == "notes.txt.sh.txt")
    #expect(InboxName.withExtension("text", "txt") == "text.txt")
  }

  /// Review 26: plain ASCII skips composing, trimming and cleaning; it must come out as it
  /// would through them, or be refused for the same problem.
  @Test func plainASCIINamesAreSanitizedAsInFull() {
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array(" ./a~_-".unicodeScalars) + (0x20...0x7E).compactMap(Unicode.Scalar.init)
    for _ in 0..<5_000 {
      let length = Int.random(in: 0...(Bool.random(using: &generator) ? 6 : 260), using: &generator)
      let raw = String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
      let fast = Result { () throws(InboxName.Problem) in try InboxName.sanitize(raw) }
      let full = Result { () throws(InboxName.Problem) in try InboxName.sanitizedInFull(raw) }
      #expect((try? fast.get()) == (try? full.get()), "\(raw)")
      if case .failure(let one) = fast, case .failure(let other) = full { #expect(one == other, "\(raw)") }
    }
  }
}
