import CMagic
import Foundation
import Testing

@testable import UniformTypes

@Suite("the database cut to what prints MIME types")
struct MIMEMagicDatabaseTests {
  static let systemDatabase = "/usr/share/misc/magic.mgc"

  @Test("the cut keeps a minority of the system database's entries, in order, every MIME type marked")
  func cutOfTheSystemDatabase() throws {
    let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.systemDatabase)))
    let cut = try #require(full.withUnsafeBytes { MIMEMagicDatabase.cut($0) })
    let (fullLayout, cutLayout) = try full.withUnsafeBytes { full in
      try cut.withUnsafeBytes { cut in
        (try #require(MIMEMagicDatabase.Layout(full)), try #require(MIMEMagicDatabase.Layout(cut)))
      }
    }
    #expect(cutLayout.ordinary > 0 && cutLayout.ordinary < fullLayout.ordinary / 2)
    #expect(cutLayout.named <= fullLayout.named)
    let size = MIMEMagicDatabase.entrySize
    let mimes = (1..<(1 + cutLayout.ordinary + cutLayout.named)).compactMap { entry -> [UInt8]? in
      let field = cut[(entry * size + MIMEMagicDatabase.mimeOffset)...].prefix { $0 != 0 }
      return field.isEmpty ? nil : Array(field)
    }
    #expect(!mimes.isEmpty)
    #expect(mimes.allSatisfy { $0.first == MIMEMagicDatabase.marker && $0.dropFirst().contains(UInt8(ascii: "/")) })
  }

  @Test("bytes that are not a native version-18 compiled database are not cut")
  func otherFormats() {
    #expect([UInt8](repeating: 7, count: 4096).withUnsafeBytes { MIMEMagicDatabase.cut($0) } == nil)
    var header = [UInt8](repeating: 0, count: MIMEMagicDatabase.entrySize)
    header.replaceSubrange(0..<8, with: [0x1C, 0x04, 0x1E, 0xF1, 17, 0, 0, 0])  // version 17
    #expect(header.withUnsafeBytes { MIMEMagicDatabase.cut($0) } == nil)
    header[4] = 18  // version 18, no entries, right size: an empty cut
    #expect(header.withUnsafeBytes { MIMEMagicDatabase.cut($0) }?.count == MIMEMagicDatabase.entrySize)
    header[8] = 1  // says one entry, has none
    #expect(header.withUnsafeBytes { MIMEMagicDatabase.cut($0) } == nil)
  }

  /// Heads to compare: every corpus file, every file of the type tests' samples, files from
  /// /usr (binaries, libraries, data of every kind), pseudo-random bytes of several lengths, and
  /// real signatures followed by random bytes.
  static func heads() throws -> [(String, [UInt8])] {
    var heads: [(String, [UInt8])] = []
    var files: [String] = []
    if Corpus.isAvailable {
      files += try FileManager.default.contentsOfDirectory(atPath: Corpus.folder.path).sorted().map { Corpus.folder.path + "/" + $0 }
    }
    let roots = [
      "/usr/bin", "/usr/lib/x86_64-linux-gnu", "/usr/share/icons", "/usr/share/doc", "/usr/share/fonts", "/usr/share/misc",
      // Text of many kinds, where the regex and text-only guards matter (those present).
      "/usr/include", "/usr/share/perl5", "/usr/lib/python3", "/usr/share/javascript", "/usr/share/vim", "/usr/share/groff", "/etc",
    ]
    for root in roots {
      let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.sorted() ?? []
      files += found.enumerated().filter { $0.offset % 7 == 0 }.prefix(250).map { root + "/" + $0.element }
    }
    for path in files {
      // Regular files only: a FIFO (in /etc, say) would wait for a writer.
      guard (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular,
        let handle = FileHandle(forReadingAtPath: path)
      else { continue }
      defer { try? handle.close() }
      guard let data = try? handle.read(upToCount: ContentSniffer.headLength), !data.isEmpty else { continue }
      heads.append((path, [UInt8](data)))
    }
    let samples: [(String, [UInt8])] = [
      ("png", SampleBytes.png), ("jpeg", SampleBytes.jpeg), ("gif", SampleBytes.gif), ("tiff", SampleBytes.tiff),
      ("heic", SampleBytes.heic), ("mp4", SampleBytes.mp4), ("webp", SampleBytes.webp), ("svg", SampleBytes.svg),
      ("pdf", SampleBytes.pdf), ("rtf", SampleBytes.rtf), ("ole", SampleBytes.oleHeader), ("docx", SampleBytes.docx),
      ("odt", SampleBytes.odt), ("zip", SampleBytes.plainZip), ("apk", SampleBytes.apk), ("jar", SampleBytes.jar),
      ("deb", SampleBytes.deb), ("rpm", SampleBytes.rpm), ("squashfs", SampleBytes.squashfs), ("exe", SampleBytes.exe),
      ("mp3", SampleBytes.mp3), ("wav", SampleBytes.wav), ("elf", try SampleBytes.elf()), ("appimage", try SampleBytes.appImage()),
    ]
    heads += samples
    for (index, (name, bytes)) in (heads + samples).prefix(600).enumerated() where bytes.count > 16 {
      heads.append(("\(name) head + random", Array(bytes.prefix(16)) + SampleBytes.random(count: 4080, seed: UInt64(index + 1))))
    }
    heads += guardedSearches()
    for index in 0..<1500 {
      let count = index % 5 == 0 ? 3 + index % 61 : 4096
      heads.append(("random #\(index)", SampleBytes.random(count: count, seed: 0x5EED_0000 + UInt64(index))))
    }
    return heads
  }

  /// Heads for the lines the cut database guards (`MIMEMagicDatabase.Guard`): their strings
  /// in binary and in text, in other cases and spacings, at the end of their range and past
  /// it, and only the guard's literal.
  static func guardedSearches() -> [(String, [UInt8])] {
    let noise = SampleBytes.random(count: 4096, seed: 0x6A4D)
    let strings = [
      "<!doctype svg", "<!DOCTYPE SVG", "<!DocType  \t Svg", "<!doctypesvg", "<!doctype html>", "<!DOCTYPE html>", "<!",
      "(This file must be converted with BinHex 4.0)", "(this file must be converted with binhex", "(This fil", "id=ImageMagick",
      // Text-only searches with modifiers (regex guards).
      "<html", "<HTML>", "<Html lang=\"en\">", "<htm", "<script>", "<SCRIPT src=x>", "<title>", "<TITLE", "<style>", "<table",
      "<head>", "<!doctype html", "<!DocType\tHTML>", "<a href=\"x\">", "<A  HREF=",
      // Regexes (search guards), matching and nearly matching.
      "\t.type main, @function", "  .globl main", ".byte 0", "\t.asciiz \"x\"", ".text", "const x = require('y')",
      "var a=require(\"b\");", "require('x')", "export default x", "export function f() {}", "import a from 'b'",
      "module.exports = x", "module['exports'] =", "(function() {", "(async function(x) {", "typeof x === 'y'",
      "#ifdef X\n#define Y 1", "#define Y", "(ns foo.core", "(ns ^{:doc", "(defn f [x]", "SUBDIRS = a b", "PROC foo =",
      "1\n00:00:01,000 --> 00:00:02,000", "import java.util.List;", ".typ", "requir(",
    ]
    var heads: [(String, [UInt8])] = []
    for (index, string) in strings.enumerated() {
      let bytes = Array(string.utf8)
      for offset in [0, 1, 100, 4000, 4096 - bytes.count, 4095] {
        var binary = noise
        binary.replaceSubrange(offset..<min(offset + bytes.count, binary.count), with: bytes.prefix(binary.count - offset))
        heads.append(("\(string) at \(offset) in random bytes", binary))
      }
      let text = Array("Some text first.\n".utf8) + bytes + Array("\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n".utf8)
      heads.append(("\(string) in text", text))
      heads.append(("\(string) in text ending in NULs", text + [UInt8](repeating: 0, count: 64)))
      for offset in [1603, 2000, 2651] {
        heads.append(("\(string) at \(offset) in text", Array(repeating: UInt8(ascii: "x"), count: offset) + bytes + Array(" end\n".utf8)))
      }
      heads.append(("\(string) after 4 KiB of text", Array(repeating: UInt8(ascii: index % 2 == 0 ? "a" : " "), count: 4090) + bytes))
      heads.append(("\(string) ending text", Array("Some text first.\n".utf8) + bytes))
      heads.append(("\(string) alone", bytes))
      for lines in [30, 99, 101, 190] {
        let text = (0..<lines).flatMap { _ in Array("some words on a line\n".utf8) }
        heads.append(("\(string) after \(lines) lines of text", text + bytes + Array("\nend\n".utf8)))
      }
      for length in [4096, 4100, 8190, 8192, 8200] where length > bytes.count + 1 {
        let filler = Array(repeating: UInt8(ascii: "y"), count: 40) + [UInt8(ascii: "\n")]
        let text = Array((0..<(length / filler.count + 1)).flatMap { _ in filler }.prefix(length - bytes.count))
        heads.append(("\(string) ending \(length) bytes of text", text + bytes))
      }
    }
    return heads
  }

  @Test("slow searches get a guard line, their group one level below it")
  func guards() throws {
    let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.systemDatabase)))
    let cut = try #require(full.withUnsafeBytes { MIMEMagicDatabase.cut($0) })
    let size = MIMEMagicDatabase.entrySize
    let count = cut.withUnsafeBytes { MIMEMagicDatabase.Layout($0)?.ordinary } ?? 0
    var guarded: [String] = []
    cut.withUnsafeBytes { cut in
      for entry in 1..<count where MIMEMagicDatabase.continuationLevel(cut, entry) == 0 {
        guard MIMEMagicDatabase.type(cut, entry) == MIMEMagicDatabase.searchType,
          cut.loadUnaligned(fromByteOffset: entry * size + MIMEMagicDatabase.stringFlagsOffset, as: UInt32.self) == 0,
          MIMEMagicDatabase.continuationLevel(cut, entry + 1) == 1, cut[entry * size + MIMEMagicDatabase.descriptionOffset] == 0,
          !MIMEMagicDatabase.hasMIME(cut, entry)
        else { continue }
        let (literal, string) = (MIMEMagicDatabase.value(cut, entry), MIMEMagicDatabase.value(cut, entry + 1))
        guard string.starts(with: literal),
          MIMEMagicDatabase.type(cut, entry + 1) == MIMEMagicDatabase.searchType
        else { continue }
        guarded.append(String(decoding: string, as: UTF8.self))
      }
    }
    #expect(guarded.contains("<!doctype svg"))
  }

  @Test("with its guards, the cut database gives every head the answer it gives without them")
  func guardsChangeNoAnswer() throws {
    let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.systemDatabase)))
    let guarded = try #require(full.withUnsafeBytes { MIMEMagicDatabase.cut($0) })
    let plain = try #require(full.withUnsafeBytes { MIMEMagicDatabase.cut($0, guarding: false) })
    #expect(guarded.count > plain.count)
    let heads = try Self.heads()
    let (withGuards, without) = (
      try #require(MIMEMagicDatabase.answers(of: heads.map(\.1), database: guarded)),
      try #require(MIMEMagicDatabase.answers(of: heads.map(\.1), database: plain))
    )
    let differences = zip(heads, zip(withGuards, without)).filter { $1.0 != $1.1 }.map { "\($0.0): \($1.0) / \($1.1)" }
    #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(20).joined(separator: "; "))")
  }

  @Test("the guarded whole database gives every head the full database's MIME type and description")
  func guardedWholeChangesNoAnswer() throws {
    let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.systemDatabase)))
    let guarded = try #require(full.withUnsafeBytes { MIMEMagicDatabase.guarded($0) })
    let layouts = try full.withUnsafeBytes { full in
      try guarded.withUnsafeBytes { guarded in
        (try #require(MIMEMagicDatabase.Layout(full)), try #require(MIMEMagicDatabase.Layout(guarded)))
      }
    }
    // Every entry, a guard line for some, no mark.
    #expect(layouts.1.ordinary > layouts.0.ordinary + 50 && layouts.1.named == layouts.0.named)
    #expect(
      !guarded.withUnsafeBytes { guarded in
        (1..<(1 + layouts.1.ordinary)).contains {
          guarded[$0 * MIMEMagicDatabase.entrySize + MIMEMagicDatabase.mimeOffset] == MIMEMagicDatabase.marker
        }
      })
    let heads = try Self.heads().map(\.1)
    for descriptions in [false, true] {
      let (withGuards, without) = (
        try #require(MIMEMagicDatabase.answers(of: heads, database: guarded, descriptions: descriptions)),
        try #require(MIMEMagicDatabase.answers(of: heads, database: full, descriptions: descriptions))
      )
      let differences = zip(withGuards, without).enumerated().filter { $1.0 != $1.1 }.map { "#\($0): \($1.0) / \($1.1)" }
      #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(20).joined(separator: "; "))")
    }
  }

  /// A compiled database of one empty header entry and one line: `string` as its value, its
  /// type, relation, range and `str_flags`.
  static func compiledLine(
    _ string: String, type: UInt8, flags: UInt32, range: UInt32 = 4096, relation: Character = "=", testFlag: UInt8 = 0
  ) -> [UInt8] {
    var line = [UInt8](repeating: 0, count: 2 * MIMEMagicDatabase.entrySize)
    let base = MIMEMagicDatabase.entrySize
    line[base + MIMEMagicDatabase.typeOffset] = type
    line[base + MIMEMagicDatabase.flagOffset] = testFlag
    line[base + MIMEMagicDatabase.relationOffset] = relation.asciiValue!
    line[base + MIMEMagicDatabase.valueLengthOffset] = UInt8(string.utf8.count)
    line.replaceSubrange(
      base + MIMEMagicDatabase.valueOffset..<base + MIMEMagicDatabase.valueOffset + string.utf8.count, with: string.utf8)
    withUnsafeBytes(of: range) {
      line.replaceSubrange(base + MIMEMagicDatabase.rangeOffset..<base + MIMEMagicDatabase.rangeOffset + 4, with: $0)
    }
    withUnsafeBytes(of: flags) {
      line.replaceSubrange(
        base + MIMEMagicDatabase.stringFlagsOffset..<base + MIMEMagicDatabase.stringFlagsOffset + 4, with: $0)
    }
    return line
  }

  @Test("a guard looks for the bytes every match holds as they are, and only before a slow search")
  func guardLiterals() {
    func line(_ string: String, flags: UInt32, range: UInt32 = 4096, relation: Character = "=", type: UInt8 = 20) -> [UInt8] {
      Self.compiledLine(string, type: type, flags: flags, range: range, relation: relation)
    }
    func literal(_ line: [UInt8]) -> Int? { line.withUnsafeBytes { MIMEMagicDatabase.Guard.literalLength($0, 1) } }
    #expect(literal(line("<!doctype svg", flags: 0x65)) == 2)  // /Wcbt: up to the first lower-case letter
    #expect(literal(line("(This file", flags: 0x60)) == 10)  // /bt: all of it
    #expect(literal(line("(This file", flags: 0x61)) == 5)  // /Wbt: up to the space
    #expect(literal(line("(This file", flags: 0x40)) == nil)  // /b only: skipped on text only as a first line
    #expect(literal(line("<!doctype html", flags: 0x25)) == nil)  // /cWt: likewise for binary
    #expect(literal(line("ABCdef", flags: 0x08)) == nil)  // /C: upper case varies from the first byte
    #expect(literal(line("<!doctype svg", flags: 0)) == nil)  // no modifiers: libmagic uses memmem already
    #expect(literal(line("<!doctype svg", flags: 0x60, range: 16)) == nil)  // a short range
    #expect(literal(line("<!doctype svg", flags: 0x60, range: 0)) == 2 + 11)  // no range: the whole head
    #expect(literal(line("<!doctype svg", flags: 0x60, relation: "!")) == nil)  // "not found" cannot be guarded
    #expect(literal(line("<!doctype svg", flags: 0x60, type: 5)) == nil)  // a string at one offset
  }

  @Test(
    "a regex's required literal is what every match holds, or nothing when unsure",
    arguments: [
      ("^[ \t]{0,50}\\.type", ".type"), ("^(const|var|let).*=.*require\\(", "require("), ("^(import|export).* from ", " from "),
      ("\\((async )?function[( ]", "function"), ("typeof.*[!=]==", "typeof"), ("abc|def", ""), ("(abc|def)ghijk", "ghijk"),
      ("ab*cdef", "cdef"), ("abc+def", "abc"), ("x{0,3}yz", "yz"), ("xyz{2}ab", "xyz"), ("abcd\\1ef", "abcd"),
      ("\\<word\\>", "word"), ("[abc]def", "def"), ("[]x]yz", "yz"), ("[^]x]yz", "yz"), ("[[:space:]]+foo", "foo"),
      ("a**", ""), ("*a", ""), ("(unclosed", ""), ("[unclosed", ""), ("xy{", ""), ("xy{a}", ""), ("\\.asciiz", ".asciiz"),
      ("^SUBDIRS[[:space:]]+=", "SUBDIRS"), ("foo$bar", "foo"), ("f.o.o", "f"), ("(a|b)|c", ""), ("[a|b]cd", "cd"),
    ])
  func regexLiterals(pattern: String, literal: String) {
    #expect(MIMEMagicDatabase.Guard.requiredLiteral(of: Array(pattern.utf8)) == Array(literal.utf8))
  }

  @Test("a regex gets a search for its literal over its window; a text-only search with modifiers, a regex marked /t")
  func regexAndTextGuards() {
    func guardLine(
      _ string: String, type: UInt8, flags: UInt32, range: UInt32 = 4096, relation: Character = "=", testFlag: UInt8 = 0x40
    ) -> MIMEMagicDatabase.Guard.Line? {
      let line = Self.compiledLine(string, type: type, flags: flags, range: range, relation: relation, testFlag: testFlag)
      return line.withUnsafeBytes { MIMEMagicDatabase.Guard.line($0, 1, regexLimit: 8192) }
    }
    typealias Line = MIMEMagicDatabase.Guard.Line
    let (regex, search) = (MIMEMagicDatabase.regexType, MIMEMagicDatabase.searchType)
    // Regexes: a search over the window (no range: the regex limit; lines: 80 bytes each).
    #expect(
      guardLine("^[ \t]{0,50}\\.type", type: regex, flags: 0, range: 0)
        == Line(type: search, value: Array(".type".utf8), range: 8192, stringFlags: 0))
    #expect(guardLine("^[ \t]{0,50}\\.type", type: regex, flags: 0x800, range: 10)?.range == 800)
    #expect(guardLine("^[ \t]{0,50}\\.type", type: regex, flags: 0x800, range: 1000)?.range == 8192)
    #expect(guardLine("^1[\r\n]+0 -->", type: regex, flags: 0, range: 20)?.range == 20)
    #expect(guardLine("^[ \t]{0,50}\\.type", type: regex, flags: 0x04, range: 0) == nil)  // /c
    #expect(guardLine("^[ \t]{0,50}\\.type", type: regex, flags: 0x20, range: 0) == nil)  // /t only
    #expect(guardLine("^[ \t]{0,50}\\.type", type: regex, flags: 0x60, range: 0) != nil)  // /bt
    #expect(guardLine("^[ \t]{0,50}\\.type", type: regex, flags: 0, range: 0, relation: "!") == nil)
    #expect(guardLine("^ab.", type: regex, flags: 0, range: 0) == nil)  // two bytes: too short
    #expect(guardLine("^(abc|def)", type: regex, flags: 0, range: 0) == nil)
    // Text-only searches with modifiers: a regex for all but the string's last byte, marked /t,
    // ignoring case when the search ignores any, its window the range and the string.
    #expect(
      guardLine("<html", type: search, flags: 0x25) == Line(type: regex, value: Array("<htm".utf8), range: 4096 + 5 + 1, stringFlags: 0x2C))
    #expect(
      guardLine("<!doctype html", type: search, flags: 0x25)
        == Line(type: regex, value: Array("<!doctyp".utf8), range: 4096 + 9 + 1, stringFlags: 0x2C))
    #expect(
      guardLine("(a.b", type: search, flags: 0x20)
        == Line(type: regex, value: Array("\\(a\\.".utf8), range: 4096 + 4 + 1, stringFlags: 0x20))
    #expect(guardLine("<a href=", type: search, flags: 0x26) == nil)  // "<a" up to the space: one byte left
    #expect(guardLine("<html", type: search, flags: 0x25, range: 8192) == nil)  // past the regex limit
    #expect(guardLine("<html", type: search, flags: 0x25, range: 16) == nil)  // a short range
    #expect(guardLine("<html", type: search, flags: 0x45) == nil)  // /b only
    #expect(guardLine("<html", type: search, flags: 0x25 | 0x80) == nil)  // a flag this does not know
    // An entry with a binary test in it also runs over raw bytes, where a regex would stop at a NUL.
    #expect(guardLine("<html", type: search, flags: 0x25, testFlag: 0x60) == nil)
    // A regex is compiled up to its first NUL, as libmagic passes it; one glibc cannot compile
    // gets no guard (it must still fail where libmagic reaches it).
    #expect(guardLine("^ab\u{0}\\.type", type: regex, flags: 0, range: 0) == nil)
    #expect(guardLine("^\\.type\u{0}abcdefgh", type: regex, flags: 0, range: 0)?.value == Array(".type".utf8))
    #expect(guardLine("^\\.type[[:nosuch:]]", type: regex, flags: 0, range: 0) == nil)
    #expect(guardLine("^\\.type[[:space:]]", type: regex, flags: 0, range: 0) != nil)
  }

  @Test("with the cut database first, every MIME type and description is the full database's")
  func sameAnswers() throws {
    let cutFirst = try ContentSniffer(cutFirst: true)
    let fullOnly = try ContentSniffer(cutFirst: false)
    var differences: [String] = []
    for (name, head) in try Self.heads() {
      let (cut, full) = (try cutFirst.sniff(head), try fullOnly.sniff(head))
      if cut != full { differences.append("\(name): cut first \(cut), full \(full)") }
    }
    #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(20).joined(separator: "; "))")
  }

  @Test("a head that does not start as plain text gets libmagic's own MIME type, asked of the whole database at once")
  func sameAsLibmagicAlone() throws {
    // The sniffer asks libmagic's built-in checks alone only for heads that start with a letter
    // or a digit, or when a marked answer needs them: for every other head its answer must be
    // one call of libmagic on the system database, whatever passes it took to get there.
    let sniffer = try ContentSniffer()
    let handle = try #require(magic_open(MAGIC_MIME_TYPE))
    defer { magic_close(handle) }
    try #require(magic_load(handle, nil) == 0)
    var differences: [String] = []
    var asked = 0
    for (name, head) in try Self.heads() {
      let answer = try head.withUnsafeBytes { bytes in
        // One or two characters are text by share's own rule (libmagic: "very short file").
        ContentSniffer.startsWithLetterOrDigit(bytes) || ContentSniffer.isTinyText(bytes) ? nil : try sniffer.mimeType(ofHead: bytes)
      }
      guard let answer else { continue }
      asked += 1
      let alone = MIMEType.normalized(try BinaryHeadTests.libmagic(handle, head, flags: MAGIC_MIME_TYPE))
      if answer != alone { differences.append("\(name): \(answer), libmagic alone \(alone)") }
    }
    #expect(asked > 100)
    #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(20).joined(separator: "; "))")
  }

  @Test("the verdicts on the corpus and on random bytes are the same with the cut database first", .enabled(if: Corpus.isAvailable))
  func sameVerdicts() throws {
    let policy = try TypePolicy(registry: .system(), declarations: .builtinDefault)
    let cutFirst = try ContentSniffer(cutFirst: true)
    let fullOnly = try ContentSniffer(cutFirst: false)
    var differences: [String] = []
    for row in try Corpus.rows() {
      let path = Corpus.folder.appendingPathComponent(row.file).path
      let (cut, full) = (try policy.check(path: path, sniffer: cutFirst).verdict, try policy.check(path: path, sniffer: fullOnly).verdict)
      if cut != full { differences.append("\(row.file): \(cut.reason) / \(full.reason)") }
    }
    for index in 0..<200 {
      let head = SampleBytes.random(count: 4096, seed: 0xF11E_0000 + UInt64(index))
      let name = ["f\(index).bin", "f\(index)", "f\(index).png", "f\(index).txt"][index % 4]
      let (cut, full) = (policy.judge(name: name, head: head, sniffer: cutFirst), policy.judge(name: name, head: head, sniffer: fullOnly))
      if cut != full { differences.append("\(name): \(cut.reason) / \(full.reason)") }
    }
    #expect(differences.isEmpty, "\(differences.prefix(20).joined(separator: "; "))")
  }
}
