import Foundation
import Testing
import TextEscaping
import UniformTypes

@testable import InboxStore

/// The journal's fast reader gives exactly what `JSONDecoder` gives for every line the journal
/// writes, and declines (so the decoder reads it) any line in another shape.
@Suite struct MetadataLineParserTests {
  static let names = [
    "plain.txt", "quote \" and back\\slash", "tab\there\nnew line\r", "bell\u{07}\u{1B}[31m\u{7F}\u{85}", "é café 日本語 🎉",
    "\u{202E}gpj.exe", "",
  ]

  func record(_ name: String, optionals: Bool) -> MetadataRecord {
    var meta = ItemMetadata(
      originalName: PeerText(name), kind: optionals ? .folder : .file, senderName: "Bob's \"phone\"",
      senderId: String(repeating: "c", count: 64),
      receivedAt: Date(timeIntervalSince1970: 1_764_558_000), size: 1234, sha256: optionals ? String(repeating: "f", count: 64) : nil,
      type: optionals ? TypeIdentifier(rawValue: "public.folder") : nil, files: optionals ? 7 : nil,
      refusedEntries: optionals
        ? [.init(path: PeerText(name), reason: PeerText("refused: \"\(name)\"")), .init(path: "b", reason: "")] : nil)
    if optionals {
      meta.protocol = "localsend"
      meta.senderVerified = name.isEmpty
      meta.contactName = PeerText(name)
      meta.posedAs = PeerText("\(name) \"x\"")
      meta.entriesRefused = 2
    }
    return MetadataRecord(file: FileIdentity(inode: 987_654_321, size: 4096, mtimeNanoseconds: 1_764_558_000_123_456_789), meta: meta)
  }

  func parsed(_ line: String) -> MetadataRecord? {
    var bytes = Array(line.utf8)
    if bytes.last == 0x0A { bytes.removeLast() }
    return bytes.withUnsafeBytes(MetadataLineParser.parse)
  }

  @Test(arguments: names) func readsBackWhatTheJournalWritesAsTheDecoderDoes(name: String) throws {
    for optionals in [false, true] {
      let written = record(name, optionals: optionals)
      let fast = try #require(parsed(written.jsonLine))
      let slow = try MetadataJournal.decoder.decode(MetadataRecord.self, from: Data(written.jsonLine.utf8))
      #expect(fast.meta == slow.meta)
      #expect(fast.file == slow.file)
      #expect(fast.meta == written.meta)
      #expect(fast.file == written.file)
    }
  }

  @Test func declinesLinesInAnotherShape() {
    let line = record("a", optionals: true).jsonLine
    #expect(parsed(line.replacingOccurrences(of: "{\"file\"", with: "{ \"file\"")) == nil)
    #expect(parsed(String(line.dropLast(3))) == nil, "a torn line")
    #expect(parsed(line.replacingOccurrences(of: "\"kind\":\"folder\"", with: "\"kind\":\"disk\"")) == nil)
    #expect(parsed(line.replacingOccurrences(of: "2025-", with: "2025-13-")) == nil)
    #expect(parsed(line.replacingOccurrences(of: "\"size\":1234", with: "\"size\":99999999999999999999")) == nil)
    #expect(parsed(line.replacingOccurrences(of: "}}", with: "},\"extra\":1}")) == nil)
    #expect(parsed(line.replacingOccurrences(of: "\"sender_verified\":false", with: "\"sender_verified\":0")) == nil)
    #expect(parsed(line.replacingOccurrences(of: "\"reason\":\"\"}", with: "\"reason\":\"\",\"x\":1}")) == nil)
    #expect(parsed(line.replacingOccurrences(of: "\"reason\":\"\"}]", with: "\"reason\":\"\"}")) == nil, "no closing bracket")
  }

  @Test func theJournalStillReadsALineTheFastReaderDeclines() throws {
    let t = try TempDocuments()
    let written = record("reordered", optionals: false)
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.dateEncodingStrategy = .iso8601
    var line = try encoder.encode(written)
    line.append(0x0A)
    try line.write(to: t.store.metadataDirectory.appendingPathComponent("1-00000000.jsonl"))
    let records = MetadataJournal(directory: t.store.metadataDirectory).readAll().records
    #expect(records.map(\.meta) == [written.meta])
  }
}
