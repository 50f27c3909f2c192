import Foundation
import TLS
import Testing

@Suite struct FingerprintTests {
  let canonical = "0123456789abcdef0123456789abcdef00112233445566778899aabbccddeeff"

  @Test func hexRoundTripsThroughBytes() throws {
    let fingerprint = try #require(Fingerprint(hex: canonical))
    #expect(fingerprint.bytes.count == 32)
    #expect(fingerprint.bytes.first == 0x01)
    #expect(fingerprint.bytes.last == 0xff)
    #expect(fingerprint.hex == canonical)
    #expect(fingerprint.description == canonical)
    #expect(Fingerprint(bytes: fingerprint.bytes) == fingerprint)
  }

  @Test func parsingAcceptsUpperCaseGroupedAndColonSpellings() throws {
    let fingerprint = try #require(Fingerprint(hex: canonical))
    #expect(Fingerprint(hex: canonical.uppercased()) == fingerprint)
    #expect(Fingerprint(hex: fingerprint.grouped) == fingerprint)
    let colons = stride(from: 0, to: 64, by: 2).map {
      let start = canonical.index(canonical.startIndex, offsetBy: $0)
      return String(canonical[start..<canonical.index(start, offsetBy: 2)]).uppercased()
    }.joined(separator: ":")
    #expect(Fingerprint(hex: colons) == fingerprint)
    #expect(
      Fingerprint(hex: "  " + fingerprint.grouped.replacingOccurrences(of: "-", with: " "))
        == fingerprint)
  }

  @Test func parsingRejectsWrongLengthAndNonHex() {
    #expect(Fingerprint(hex: String(canonical.dropLast())) == nil)
    #expect(Fingerprint(hex: canonical + "0") == nil)
    #expect(Fingerprint(hex: String(canonical.dropLast()) + "g") == nil)
    #expect(Fingerprint(hex: canonical.replacingOccurrences(of: "0", with: "_")) == nil)
    #expect(Fingerprint(hex: "") == nil)
    #expect(Fingerprint(bytes: [UInt8](repeating: 0, count: 31)) == nil)
    #expect(Fingerprint(bytes: [UInt8](repeating: 0, count: 33)) == nil)
  }

  @Test func groupedIsSixteenGroupsOfFourJoinedByDashes() throws {
    let fingerprint = try #require(Fingerprint(hex: canonical))
    let groups = fingerprint.grouped.split(separator: "-", omittingEmptySubsequences: false)
    #expect(groups.count == 16)
    #expect(groups.allSatisfy { $0.count == 4 })
    #expect(fingerprint.grouped.hasPrefix("0123-4567-89ab-cdef-"))
    #expect(fingerprint.short == "0123456789ab")
  }

  @Test func prefixMatchingIgnoresSeparatorsAndCaseAndNeedsFourDigits() throws {
    let fingerprint = try #require(Fingerprint(hex: canonical))
    #expect(fingerprint.matches(prefix: "0123"))
    #expect(fingerprint.matches(prefix: "0123-4567-89AB"))
    #expect(fingerprint.matches(prefix: "01:23:45"))
    #expect(fingerprint.matches(prefix: fingerprint.grouped))
    #expect(!fingerprint.matches(prefix: "012"))
    #expect(!fingerprint.matches(prefix: "0-1-2"))
    #expect(!fingerprint.matches(prefix: "1234"))
    #expect(!fingerprint.matches(prefix: "0123x"))
    #expect(!fingerprint.matches(prefix: canonical + "00"))
  }

  @Test func normalizedPrefixDropsSeparatorsAndRejectsOtherCharacters() {
    #expect(normalizedFingerprintPrefix("AB:cd-EF 01") == "abcdef01")
    #expect(normalizedFingerprintPrefix("") == "")
    #expect(normalizedFingerprintPrefix("abcz") == nil)
    #expect(normalizedFingerprintPrefix("ab.cd") == nil)
    #expect(normalizedFingerprintPrefix("ａｂ") == nil)  // full-width letters are not hex
  }

  @Test func codableUsesTheCanonicalHexString() throws {
    let fingerprint = try #require(Fingerprint(hex: canonical))
    let data = try JSONEncoder().encode([fingerprint])
    #expect(String(decoding: data, as: UTF8.self) == "[\"\(canonical)\"]")
    let decoded = try JSONDecoder().decode(
      [Fingerprint].self, from: Data("[\"\(fingerprint.grouped)\"]".utf8))
    #expect(decoded == [fingerprint])
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([Fingerprint].self, from: Data("[\"abc\"]".utf8))
    }
  }

  @Test func orderingFollowsTheBytes() throws {
    let low = try #require(Fingerprint(bytes: [0] + [UInt8](repeating: 0xff, count: 31)))
    let high = try #require(Fingerprint(bytes: [1] + [UInt8](repeating: 0, count: 31)))
    #expect(low < high)
    #expect([high, low].sorted() == [low, high])
    #expect(Set([low, high, low]).count == 2)
  }
}

@Suite struct SHA256HasherTests {
  @Test func digestsMatchKnownVectors() {
    #expect(
      hex(SHA256Hasher.hash(Array("abc".utf8)))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      hex(SHA256Hasher.hash([]))
        == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  }

  @Test func incrementalUpdatesEqualOneShotAndFinalizeResets() {
    let data = pseudoRandomBytes(count: 100_003, seed: 7)
    let hasher = SHA256Hasher()
    var offset = 0
    for size in [1, 63, 64, 65, 4096, 30_000] where offset < data.count {
      let end = min(data.count, offset + size)
      data[offset..<end].withUnsafeBytes { hasher.update($0) }
      offset = end
    }
    hasher.update(Array(data[offset...]))
    #expect(hasher.finalize() == SHA256Hasher.hash(data))
    hasher.update(Array("abc".utf8))
    #expect(
      hex(hasher.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }
}
