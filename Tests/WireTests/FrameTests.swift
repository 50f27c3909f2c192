import Testing

@testable import Wire

@Suite struct FrameTests {
  @Test func headerRoundTripsForEveryKind() throws {
    for kind in FrameKind.allCases {
      let length = kind == .end ? 32 : (kind == .begin ? 16 : 1234)
      let header = FrameHeader(kind: kind, length: length)
      let decoded = try FrameHeader(decoding: header.encoded, limits: .default)
      #expect(decoded == header)
    }
  }

  @Test func headerIsBigEndianKindThenLength() {
    #expect(FrameHeader(kind: .data, length: 0x0102_0304).encoded == [2, 1, 2, 3, 4])
  }

  @Test func unknownFrameKindIsRejected() {
    #expect(throws: WireError.unknownFrameKind(9)) { try FrameHeader(decoding: [9, 0, 0, 0, 0], limits: .default) }
  }

  @Test func controlFrameOverTheCapIsRejected() {
    let limits = WireLimits(maxControlBytes: 1000)
    #expect(throws: WireError.frameTooLarge(kind: .control, length: 1001, limit: 1000)) {
      try FrameHeader(decoding: FrameHeader(kind: .control, length: 1001).encoded, limits: limits)
    }
  }

  @Test func dataFrameOverTheChunkCapIsRejected() {
    let limits = WireLimits(maxChunkBytes: 4096)
    #expect(throws: WireError.self) {
      try FrameHeader(decoding: FrameHeader(kind: .data, length: 4097).encoded, limits: limits)
    }
  }

  @Test func endFrameMustCarryNothingOrADigest() throws {
    _ = try FrameHeader(decoding: [3, 0, 0, 0, 0], limits: .default)
    _ = try FrameHeader(decoding: [3, 0, 0, 0, 32], limits: .default)
    #expect(throws: WireError.malformedEnd(5)) { try FrameHeader(decoding: [3, 0, 0, 0, 5], limits: .default) }
  }

  @Test func truncatedHeaderIsRejected() {
    #expect(throws: WireError.truncated) { try FrameHeader(decoding: [1, 0, 0], limits: .default) }
  }

  @Test func beginFrameRoundTripsWithAndWithoutResume() throws {
    let plain = BeginFrame(item: 7)
    #expect(try BeginFrame(decoding: plain.encoded) == plain)
    #expect(plain.encoded.count == 16)
    let entry = BeginFrame(item: 3, entry: 41)
    #expect(try BeginFrame(decoding: entry.encoded) == entry)
    let digest = try #require(Digest(bytes: Array(repeating: 0xab, count: 32)))
    let resumed = BeginFrame(item: 2, offset: 1 << 33, prefixDigest: digest)
    #expect(try BeginFrame(decoding: resumed.encoded) == resumed)
    #expect(resumed.encoded.count == BeginFrame.maxSize)
  }

  @Test func beginFrameWithOffsetButNoDigestIsRejected() {
    var bytes = BeginFrame(item: 1).encoded
    bytes[15] = 1  // offset 1, no digest
    #expect(throws: WireError.self) { try BeginFrame(decoding: bytes) }
  }

  @Test func beginFrameWithNegativeOffsetIsRejected() {
    var bytes = BeginFrame(item: 1).encoded
    bytes[8] = 0x80
    #expect(throws: WireError.self) { try BeginFrame(decoding: bytes) }
  }

  @Test func digestParsesOnlySixtyFourHexDigits() {
    #expect(Digest(hex: String(repeating: "0f", count: 32))?.bytes == Array(repeating: 0x0f, count: 32))
    #expect(Digest(hex: String(repeating: "0f", count: 31)) == nil)
    #expect(Digest(hex: String(repeating: "zz", count: 32)) == nil)
    #expect(Digest(bytes: [1, 2, 3]) == nil)
  }
}
