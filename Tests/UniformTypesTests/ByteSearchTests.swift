import Foundation
import Testing

@testable import UniformTypes

@Suite("Finding bytes in a head")
struct ByteSearchTests {
  /// The naive answer, index by index: the reference the search must agree with.
  static func reference(_ needle: [UInt8], _ head: [UInt8], from start: Int, end: Int, ignoringCase: Bool = false) -> Int? {
    func fold(_ byte: UInt8) -> UInt8 { ignoringCase ? ByteSearch.lowercase(byte) : byte }
    guard start >= 0, end - start >= needle.count else { return nil }
    for index in start...(end - needle.count) where (0..<needle.count).allSatisfy({ fold(head[index + $0]) == fold(needle[$0]) }) {
      return index
    }
    return nil
  }

  @Test("finds the first place at or after the start, within the end, as a byte-by-byte search does")
  func firstIndexAgreesWithReference() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      // A small alphabet so that needles are found, often more than once, near the edges too.
      let head = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0x61...0x63, using: &generator) }
      let needle = (0..<Int.random(in: 1...4, using: &generator)).map { _ in UInt8.random(in: 0x61...0x63, using: &generator) }
      let start = Int.random(in: 0...max(0, head.count), using: &generator)
      let end = Int.random(in: start...max(start, head.count), using: &generator)
      let found = head.withUnsafeBytes { ByteSearch.firstIndex(of: needle, in: $0, from: start, end: end) }
      #expect(found == Self.reference(needle, head, from: start, end: end), "\(needle) in \(head) from \(start) to \(end)")
    }
  }

  @Test("an empty needle is found at the start; nothing is found in an empty head or past its end")
  func edges() {
    let head: [UInt8] = Array("abc".utf8)
    head.withUnsafeBytes { bytes in
      #expect(ByteSearch.firstIndex(of: [], in: bytes, from: 1) == 1)
      #expect(ByteSearch.firstIndex(of: Array("c".utf8), in: bytes, from: 3) == nil)
      #expect(ByteSearch.firstIndex(of: Array("bc".utf8), in: bytes, end: 2) == nil)
      #expect(ByteSearch.firstIndex(of: Array("bc".utf8), in: bytes, end: 3) == 1)
      #expect(ByteSearch.firstIndex(of: Array("abcd".utf8), in: bytes) == nil)
    }
    [UInt8]().withUnsafeBytes { #expect(!ByteSearch.contains(Array("a".utf8), in: $0)) }
  }

  @Test("ignoring case finds every spelling of the needle and nothing else, as a byte-by-byte search does")
  func ignoringCaseAgreesWithReference() {
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("xXmMl.".utf8)
    for _ in 0..<2_000 {
      let head = (0..<Int.random(in: 0...30, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
      let letters = (0..<Int.random(in: 1...3, using: &generator)).map { _ in Array("xml.".utf8).randomElement(using: &generator)! }
      let needle = String(decoding: letters, as: UTF8.self)
      let found = head.withUnsafeBytes { ByteSearch.containsIgnoringCase(needle, in: $0) }
      let expected = Self.reference(Array(needle.utf8), head, from: 0, end: head.count, ignoringCase: true) != nil
      #expect(found == expected, "\(needle) in \(String(decoding: head, as: UTF8.self))")
    }
    Array("<pkg:XmlPackage>".utf8).withUnsafeBytes { bytes in
      #expect(ByteSearch.containsIgnoringCase("xmlpackage", in: bytes))
      #expect(!ByteSearch.containsIgnoringCase("xmlpackages", in: bytes))
      #expect(ByteSearch.containsIgnoringCase("<pkg", in: bytes))
    }
  }

  @Test("a string search over UTF-8 agrees with String.contains on ASCII, in strings and substrings")
  func stringSearchAgreesWithContains() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let text = String((0..<Int.random(in: 0...30, using: &generator)).map { _ in "ab.m/".randomElement(using: &generator)! })
      let needle = String((0..<Int.random(in: 1...3, using: &generator)).map { _ in "ab.m/".randomElement(using: &generator)! })
      #expect(ByteSearch.contains(needle, in: text) == text.contains(needle), "\(needle) in \(text)")
      let cut = text.dropFirst(Int.random(in: 0...text.count, using: &generator))
      #expect(ByteSearch.contains(needle, in: cut) == cut.contains(needle), "\(needle) in \(cut)")
    }
  }

  @Test("a part name's last segment and macro parts read over bytes as they were read by splitting at slashes")
  func lastSegmentAgreesWithSplit() {
    var generator = SystemRandomNumberGenerator()
    let pieces = ["/", "vbaproject.bin", "vbadata.xml", "xl", "macrosheets", "a.bin", "."]
    for _ in 0..<2_000 {
      let name = (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
      let split = name.split(separator: "/").last
      #expect(String(Substring(ContentClassifier.lastSegment(name))) == String(split ?? ""), "\(name)")
      let expected = split == "vbaproject.bin" || split == "vbadata.xml" || name.contains("macrosheets/")
      #expect(ContentClassifier.isMacroPart(name) == expected, "\(name)")
    }
  }
}
