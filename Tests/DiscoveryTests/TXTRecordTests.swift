import Discovery
import Testing

@Suite struct TXTRecordParsingTests {
  private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

  @Test func keyValuePairsAreParsed() {
    #expect(TXTRecord.parse([bytes("v=1"), bytes("id=abc")]) == ["v": "1", "id": "abc"])
  }

  @Test func keysAreLowercasedAndValuesKeepTheirCase() {
    #expect(TXTRecord.parse([bytes("ID=AbC")]) == ["id": "AbC"])
  }

  @Test func firstOccurrenceOfAKeyWinsIgnoringCase() {
    #expect(
      TXTRecord.parse([bytes("dup=first"), bytes("DUP=second"), bytes("dup=third")]) == [
        "dup": "first"
      ])
  }

  @Test func keyWithoutEqualsSignHasEmptyValue() {
    #expect(TXTRecord.parse([bytes("flag")]) == ["flag": ""])
    #expect(TXTRecord.parse([bytes("empty=")]) == ["empty": ""])
  }

  @Test func valueKeepsLaterEqualsSigns() {
    #expect(TXTRecord.parse([bytes("expr=a=b")]) == ["expr": "a=b"])
  }

  @Test func binaryValueIsDecodedLossily() {
    #expect(
      TXTRecord.parse([bytes("bin=") + [0xFF, 0xFE, 0x00, 0x78]]) == [
        "bin": "\u{FFFD}\u{FFFD}\u{0}x"
      ])
  }

  @Test func malformedEntriesAreSkippedAndTheRestKept() {
    let entries: [[UInt8]] = [
      [],  // empty string
      bytes("=novalue"),  // empty key
      [0x6B, 0x01, 0x3D, 0x31],  // control byte in key
      [0xC3, 0xA9, 0x3D, 0x31],  // non-ASCII key
      bytes("big=") + [UInt8](repeating: 0x41, count: 252),  // 256 bytes: longer than a DNS string
      bytes("ok=1"),
    ]
    #expect(TXTRecord.parse(entries) == ["ok": "1"])
  }

  @Test func entryOfExactly255BytesIsKept() {
    let value = String(repeating: "A", count: 251)
    #expect(TXTRecord.parse([bytes("big=" + value)]) == ["big": value])
  }

  @Test func manyEntriesAreAllParsed() {
    let entries = (1...60).map { bytes("k\($0)=v\($0)") }
    let parsed = TXTRecord.parse(entries)
    #expect(parsed.count == 60)
    #expect(parsed["k60"] == "v60")
  }
}

@Suite struct TXTRecordEncodingTests {
  @Test func pairsAreEncodedSortedByKey() throws {
    let encoded = try TXTRecord.encode(["v": "1", "id": "ab"])
    #expect(encoded == [Array("id=ab".utf8), Array("v=1".utf8)])
  }

  @Test func encodedRecordParsesBackToTheSamePairs() throws {
    let pairs = ["v": "1", "id": String(repeating: "0f", count: 32), "name": "Zoë"]
    #expect(TXTRecord.parse(try TXTRecord.encode(pairs)) == pairs)
  }

  @Test func nineCharacterKeyIsAcceptedAndTenIsRejected() throws {
    _ = try TXTRecord.encode(["abcdefghi": "x"])
    #expect(throws: DiscoveryError.self) { try TXTRecord.encode(["abcdefghij": "x"]) }
  }

  @Test(arguments: ["", "a=b", "tab\t", "é", "\u{1B}k"])
  func invalidKeyIsRejected(key: String) {
    #expect(throws: DiscoveryError.self) { try TXTRecord.validateKey(key) }
  }

  @Test func keysDifferingOnlyInCaseAreRejected() {
    #expect(throws: DiscoveryError.self) { try TXTRecord.encode(["id": "1", "ID": "2"]) }
  }

  @Test func entryLongerThan255BytesIsRejected() {
    #expect(throws: DiscoveryError.self) {
      try TXTRecord.encode(["big": String(repeating: "A", count: 252)])
    }
    #expect(throws: Never.self) {
      try TXTRecord.encode(["big": String(repeating: "A", count: 251)])
    }
  }

  @Test func recordLongerThan1300BytesIsRejected() {
    let pairs = Dictionary(
      uniqueKeysWithValues: (1...6).map { ("k\($0)", String(repeating: "x", count: 240)) })
    #expect(throws: DiscoveryError.self) { try TXTRecord.encode(pairs) }
  }
}
