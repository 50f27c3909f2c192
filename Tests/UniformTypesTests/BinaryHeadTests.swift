import CMagic
import Foundation
import Testing

@testable import UniformTypes

@Suite("libmagic told that a binary head is binary")
struct BinaryHeadTests {
  /// libmagic's own answer for `head` under `flags`, nothing added.
  static func libmagic(_ handle: OpaquePointer, _ head: [UInt8], flags: Int32) throws -> String {
    try #require(magic_setflags(handle, flags) == 0)
    let answer = head.withUnsafeBytes { bytes in magic_buffer(handle, bytes.baseAddress!, bytes.count) }
    return String(cString: try #require(answer))
  }

  static func systemHandle() throws -> OpaquePointer {
    let handle = try #require(magic_open(MAGIC_MIME_TYPE))
    try #require(magic_load(handle, nil) == 0)
    return handle
  }

  static func isBinary(_ head: [UInt8], _ handle: OpaquePointer) -> Bool {
    head.withUnsafeBytes { ContentSniffer.isBinaryToLibmagic($0, encodingLimit: MagicHandles.encodingLimit(of: handle)) }
  }

  @Test("for every head it calls binary, libmagic without its text checks gives the same MIME type and description")
  func sameAnswers() throws {
    let handle = try Self.systemHandle()
    defer { magic_close(handle) }
    var binary = 0
    var differences: [String] = []
    for (name, head) in try MIMEMagicDatabaseTests.heads() where Self.isBinary(head, handle) {
      binary += 1
      for flags in [MAGIC_MIME_TYPE, MAGIC_NONE] {
        let all = try Self.libmagic(handle, head, flags: flags)
        let fewer = try Self.libmagic(handle, head, flags: flags | ContentSniffer.skippedForBinary)
        if all != fewer { differences.append("\(name): \(all), without the text checks \(fewer)") }
      }
    }
    // Random heads and most binaries from /usr are binary to it; text is not.
    #expect(binary > 1000)
    #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(20).joined(separator: "; "))")
  }

  @Test(
    "text padded with NULs, text after a byte-order mark and a NUL out of the encoding check's reach are not binary: libmagic takes them for text"
  )
  func textIsNotBinary() throws {
    let handle = try Self.systemHandle()
    defer { magic_close(handle) }
    let prose = Array("an ordinary line of text, and another one\n".utf8)
    let utf16 = prose.flatMap { byte -> [UInt8] in [byte, 0] }
    let utf32 = prose.flatMap { byte -> [UInt8] in [0, 0, 0, byte] }
    let long = [UInt8](repeating: UInt8(ascii: "a"), count: MagicHandles.encodingLimit(of: handle)) + [0] + prose
    let heads: [(String, [UInt8])] = [
      ("text, then NUL padding", prose + [UInt8](repeating: 0, count: 4000)),
      ("UTF-16LE after its mark", [0xFF, 0xFE] + utf16),
      ("UTF-16BE after its mark", [0xFE, 0xFF] + utf16.dropLast()),
      ("a NUL past the encoding check", long),
    ]
    for (name, head) in heads {
      #expect(!Self.isBinary(head, handle), "\(name)")
      // Each rule is needed: left out, these checks would change the answer.
      let all = try Self.libmagic(handle, head, flags: MAGIC_MIME_TYPE)
      let fewer = try Self.libmagic(handle, head, flags: MAGIC_MIME_TYPE | ContentSniffer.skippedForBinary)
      #expect(all.hasPrefix("text/") && all != fewer, "\(name): \(all), without the text checks \(fewer)")
    }
    // Marks libmagic's encoding check knows, whatever follows (5.44's database names these two
    // itself, so leaving the check out would not change their answers: the rule is for other
    // versions).
    #expect(!Self.isBinary([0, 0, 0xFE, 0xFF] + utf32, handle))
    #expect(!Self.isBinary([0xEF, 0xBB, 0xBF] + prose + [0] + prose, handle))
    #expect(Self.isBinary(SampleBytes.random(count: 4096, seed: 7), handle))
    #expect(Self.isBinary(prose + [0] + prose, handle))
    #expect(!Self.isBinary([0, 0, 0], handle))
  }
}
