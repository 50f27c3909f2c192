import Foundation
import Testing

@testable import Wire

@Suite struct MessageCodecTests {
  static let samples: [Message] = [
    .hello(
      Hello(
        name: "laptop", id: String(repeating: "ab", count: 32),
        accepts: AcceptsSummary(
          documentTypes: [DocumentTypeSummary(name: "Images", contentTypes: ["public.image"])], excludedTypes: ["public.executable"],
          declaredTypes: [DeclaredType(identifier: "org.example.note", conformsTo: ["public.plain-text"], filenameExtensions: ["note"])]))),
    .ask(
      Ask(items: [
        ItemOffer(id: 0, kind: .file, name: "a.txt", size: 5, type: "public.plain-text", resumeKey: "k"),
        ItemOffer(id: 1, kind: .folder, name: "dir", size: 10, entries: [EntryOffer(path: "x/y.txt", kind: .file, size: 10)]),
        ItemOffer(id: 2, kind: .file, name: "stdin", size: nil),
      ])),
    .answer(
      Answer(items: [
        ItemAnswer(id: 0, accepted: true, reason: "ok", type: "public.plain-text", offset: 0),
        ItemAnswer(id: 1, accepted: false, reason: "no", entries: [EntryAnswer(accepted: false, reason: "no")]),
      ])),
    .receipt(
      Receipt(items: [
        ItemReceipt(
          id: 0, status: .stored, storedAs: "a-1.txt", size: 5,
          sha256: Digest(bytes: Array(repeating: 1, count: 32)))
      ])),
    .failure(Failure(code: "version", message: "update")),
    .wait(Wait(message: "asking the person", timeout: 120)),
    .pair(Pair()),
    .skip(Skip(item: 3, entry: 7, reason: "executable content")),
    .pairResult(PairResult(accepted: false, reason: "declined")),
    .pairConfirm(PairConfirm(confirmed: true)),
  ]

  @Test(arguments: samples)
  func messagesRoundTrip(_ message: Message) throws {
    #expect(try MessageCodec.decode(MessageCodec.encode(message)) == message)
  }

  @Test func keysAreSnakeCaseWithATypeField() throws {
    let json = String(decoding: MessageCodec.encode(MessageCodecTests.samples[3]), as: UTF8.self)
    #expect(json.contains("\"type\":\"receipt\""))
    #expect(json.contains("\"stored_as\""))
  }

  /// An Ask, an Answer and a Receipt are written by hand (`ItemListWriter`); the JSON is the
  /// object `JSONEncoder` writes for the whole message (the same object, field for field), and
  /// both decoding paths read it back.
  @Test(arguments: [0, 1, 3])
  func itemListsWrittenByHandAreJSONEncodersObject(count: Int) throws {
    func object(_ bytes: some Sequence<UInt8>) throws -> NSDictionary {
      try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }
    for message in ItemListSamples.messages(count: count) {
      let written = MessageCodec.encode(message)
      #expect(try object(written) == object(MessageCodec.encodeWithJSONEncoder(message)))
      #expect(try MessageCodec.decode(written) == message)
      #expect(try MessageCodec.decodeWithJSONDecoder(written) == message)
      #expect(MessageCodec.readsByHand(written))
    }
  }

  @Test(arguments: samples)
  func aFrameIsItsHeaderThenTheEncodedMessage(_ message: Message) throws {
    let frame = MessageCodec.frame(message)
    let header = try FrameHeader(decoding: frame.prefix(FrameHeader.size), limits: .default)
    #expect(header == FrameHeader(kind: .control, length: frame.count - FrameHeader.size))
    #expect(try MessageCodec.decode(Array(frame.dropFirst(FrameHeader.size))) == message)
  }

  /// A peer's text goes on the wire exactly as a `String` would: whole (not cut as `PeerText`
  /// cuts for `--json`) and not escaped for a terminal (JSON escapes what it must).
  @Test func peerTextIsEncodedWholeAndRawLikeAString() throws {
    let long = String(repeating: "p", count: PeerText.maximumEncodedBytes + 100)
    let entry = EntryOffer(path: PeerText(long), kind: .file, size: 0)
    let folder = ItemOffer(id: 0, kind: .folder, name: "d\u{1B}[31m\u{202E}", size: 0, entries: [entry])
    let json = String(decoding: MessageCodec.encode(.ask(Ask(items: [folder]))), as: UTF8.self)
    #expect(json.contains("\"path\":\"\(long)\""))
    #expect(json.contains(#""name":"d\u001b[31m\#u{202E}""#))
    let failure = try JSONSerialization.jsonObject(with: Data(MessageCodec.encode(.failure(Failure(code: "busy", message: "a\\b")))))
    #expect(failure as? [String: String] == ["type": "failure", "code": "busy", "message": "a\\b"])
  }

  @Test func unknownFieldsAreIgnored() throws {
    let json = #"{"type":"failure","code":"busy","message":"later","future_field":{"x":[1,2]}}"#
    #expect(try MessageCodec.decode(Array(json.utf8)) == .failure(Failure(code: "busy", message: "later")))
  }

  @Test func unknownMessageTypeIsAClearError() {
    #expect(throws: WireError.unknownMessage("teleport")) {
      try MessageCodec.decode(Array(#"{"type":"teleport"}"#.utf8))
    }
  }

  @Test func malformedJSONIsAClearError() {
    for text in ["", "{", "[]", "null", #"{"type":5}"#, #"{"kind":"hello"}"#] {
      #expect(throws: WireError.self) { try MessageCodec.decode(Array(text.utf8)) }
    }
  }

  @Test func missingFieldNamesTheField() {
    do {
      _ = try MessageCodec.decode(Array(#"{"type":"hello","name":"x","id":"y"}"#.utf8))
      Issue.record("decoded a Hello without a version")
    } catch {
      #expect(error.description.contains("version"))
    }
  }

  @Test func randomBytesNeverCrashTheDecoder() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
      let count = Int.random(in: 0..<200, using: &generator)
      let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
      _ = try? MessageCodec.decode(bytes)
      _ = try? BeginFrame(decoding: bytes)
      if bytes.count >= 5 { _ = try? FrameHeader(decoding: bytes.prefix(5), limits: .default) }
    }
    // Mutations of valid messages: flip bytes and truncate.
    for sample in MessageCodecTests.samples {
      let valid = MessageCodec.encode(sample)
      for i in stride(from: 0, to: valid.count, by: 3) {
        var mutated = valid
        mutated[i] ^= 0x5a
        _ = try? MessageCodec.decode(mutated)
        _ = try? MessageCodec.decode(Array(valid[..<i]))
      }
    }
  }
}

@Suite struct AskValidationTests {
  func ask(_ items: [ItemOffer]) -> Ask { Ask(items: items) }

  @Test func duplicateIdsAreRefused() {
    let a = ask([ItemOffer(id: 1, kind: .file, name: "a", size: 1), ItemOffer(id: 1, kind: .file, name: "b", size: 1)])
    #expect(throws: WireError.self) { try a.validate(limits: .default) }
  }

  @Test func negativeSizeIsRefused() {
    #expect(throws: WireError.self) { try ask([ItemOffer(id: 0, kind: .file, name: "a", size: -1)]).validate(limits: .default) }
  }

  @Test func tooManyItemsAreRefused() {
    let items = (0..<11).map { ItemOffer(id: $0, kind: .file, name: PeerText("f\($0)"), size: 0) }
    #expect(throws: WireError.self) { try ask(items).validate(limits: WireLimits(maxItemsPerAsk: 10)) }
    #expect(throws: Never.self) { try ask(Array(items.prefix(10))).validate(limits: WireLimits(maxItemsPerAsk: 10)) }
  }

  @Test func folderEntriesCountTowardTheItemCap() {
    let entries = (0..<10).map { EntryOffer(path: PeerText("e\($0)"), kind: .file, size: 1) }
    let folder = ItemOffer(id: 0, kind: .folder, name: "d", size: 10, entries: entries)
    #expect(throws: WireError.self) { try ask([folder]).validate(limits: WireLimits(maxItemsPerAsk: 10)) }
  }

  @Test func overlongNameIsRefused() {
    let name = PeerText(String(repeating: "n", count: 5000))
    #expect(throws: WireError.self) { try ask([ItemOffer(id: 0, kind: .file, name: name, size: 1)]).validate(limits: .default) }
  }

  @Test func emptyAskIsRefused() {
    #expect(throws: WireError.self) { try ask([]).validate(limits: .default) }
  }

  @Test func entriesOnAnythingButAFolderAreRefused() {
    let entries = [EntryOffer(path: "e", kind: .file, size: 1)]
    for kind in [ItemKind.file, .url, .text] {
      #expect(throws: WireError.invalidAsk("only a folder has entries")) {
        try ask([ItemOffer(id: 0, kind: kind, name: "x", size: 1, entries: entries)]).validate(limits: .default)
      }
    }
  }

  @Test func aNegativeEntrySizeIsRefused() {
    let folder = ItemOffer(id: 0, kind: .folder, name: "d", size: 0, entries: [EntryOffer(path: "e", kind: .file, size: -1)])
    #expect(throws: WireError.invalidAsk("a size is negative")) { try ask([folder]).validate(limits: .default) }
  }

  /// Review 19: a folder said to be "1 byte" held 60 MiB, and `share requests` showed 1 byte.
  @Test func aFolderSizedOtherwiseThanItsEntriesIsRefused() {
    let entries = (0..<3).map { EntryOffer(path: PeerText("e\($0)"), kind: .file, size: 20 << 20) }
    let lying = ItemOffer(id: 0, kind: .folder, name: "Holiday photos", size: 1, entries: entries)
    #expect(throws: WireError.invalidAsk("a folder's size is not the sum of its entries' sizes")) {
      try ask([lying]).validate(limits: .default)
    }
    let huge = [EntryOffer(path: "a", kind: .file, size: .max), EntryOffer(path: "b", kind: .file, size: 1)]
    #expect(throws: WireError.invalidAsk("a folder's entries are too large")) {
      try ask([ItemOffer(id: 0, kind: .folder, name: "d", size: nil, entries: huge)]).validate(limits: .default)
    }
    #expect(throws: Never.self) {
      try ask([ItemOffer(id: 0, kind: .folder, name: "d", size: 60 << 20, entries: entries)]).validate(limits: .default)
    }
  }

  @Test func aValidAskComesBackAsItsItems() throws {
    let items = [ItemOffer(id: 0, kind: .file, name: "a", size: nil), ItemOffer(id: 3, kind: .folder, name: "d", size: 0, entries: [])]
    #expect(try ask(items).validate(limits: .default).items == items)
  }
}
