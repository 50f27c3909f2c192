import Glibc
import Testing

@testable import TextEscaping

/// File names that are not UTF-8 held in a String without losing a byte (review 27: such a file
/// could not be sent, its name repaired into U+FFFD and then not found).
@Suite struct FileNameTextTests {
  @Test func everyByteStringMakesTheRoundTrip() {
    var generator = SystemRandomNumberGenerator()
    // Bytes drawn mostly from UTF-8's troublesome values: continuation bytes, leads without
    // their continuations, F4 8F BE/BF (a raw-byte scalar written as valid UTF-8), overlongs.
    let alphabet: [UInt8] = [0x61, 0x2E, 0x80, 0xBF, 0xC0, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0xF0, 0xF4, 0x8F, 0xBE, 0xFF]
    for _ in 0..<20_000 {
      let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
      let text = FileNameText.decoding(bytes)
      #expect(FileNameText.bytes(of: text) == bytes, "\(bytes)")
      #expect(FileNameText.repaired(text) == String(decoding: bytes, as: UTF8.self), "\(bytes)")
      #expect(FileNameText.holdsRawBytes(text) == !text.utf8.elementsEqual(bytes), "\(bytes)")
    }
  }

  @Test func aValidNameIsItsOwnString() {
    for name in ["report.pdf", "café.txt", "cafe\u{301}.txt", "📷 photos", ""] {
      #expect(FileNameText.decoding(Array(name.utf8)) == name)
      #expect(FileNameText.bytes(of: name) == Array(name.utf8))
      #expect(!FileNameText.holdsRawBytes(name))
    }
  }

  @Test func aLatin1NameKeepsItsBytesAndShowsThemEscaped() {
    let bytes: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)
    let text = FileNameText.decoding(bytes)
    #expect(text.unicodeScalars.count == 8)
    #expect(FileNameText.holdsRawBytes(text))
    #expect(FileNameText.repaired(text) == "caf\u{FFFD}.txt")
    #expect(Escaping.escaped(text) == "caf\\xE9.txt")
    #expect(Escaping.unescaped("caf\\xE9.txt") == text)
    #expect(Escaping.unescaped("caf\\x41.txt") == nil, "an ASCII byte is never raw")
    FileNameText.withCString(text) { pointer in
      #expect(strlen(pointer) == bytes.count)
      #expect((0..<bytes.count).map { UInt8(bitPattern: pointer[$0]) } == bytes)
    }
  }

  @Test func aValidNameHoldingARawByteScalarIsWrittenByteByByte() {
    let name = "x\u{10FFE9}y"
    let text = FileNameText.decoding(Array(name.utf8))
    #expect(text != name, "the scalar itself would be taken for the raw byte E9")
    #expect(FileNameText.bytes(of: text) == Array(name.utf8))
    #expect(FileNameText.repaired(text) == name)
  }
}
