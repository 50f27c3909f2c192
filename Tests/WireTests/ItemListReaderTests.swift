import Foundation
import Testing

@testable import Wire

/// Asks, Answers and Receipts with every field, escapes and text beyond ASCII.
enum ItemListSamples {
  static func messages(count: Int) -> [Message] {
    let offers: [ItemOffer] = (0..<count).map {
      ItemOffer(
        id: $0, kind: $0 == 1 ? .folder : .file, name: PeerText("n\($0) \"q\"\u{1B}\\ é 😀 \u{202E}\u{7F}\u{85}"),
        size: $0 == 2 ? nil : Int64($0) << 40, type: "public.data", resumeKey: $0 == 0 ? "k/\($0)" : nil,
        entries: $0 == 1 ? [EntryOffer(path: "a/b\tc", kind: .file, size: 1), EntryOffer(path: "a", kind: .folder, size: 0)] : nil)
    }
    let answers: [ItemAnswer] = (0..<count).map {
      ItemAnswer(
        id: $0, accepted: $0 != 1, reason: $0 == 1 ? PeerText("not \"that\"\n") : nil, type: "public.data",
        offset: $0 == 2 ? 4096 : nil, entries: $0 == 1 ? [EntryAnswer(accepted: true), EntryAnswer(accepted: false, reason: "no")] : nil)
    }
    let receipts: [ItemReceipt] = (0..<count).map {
      ItemReceipt(
        id: $0, status: $0 == 1 ? .rejected : .stored, storedAs: PeerText("s\($0) ✓"), reason: $0 == 1 ? PeerText("no") : nil,
        type: $0 == 0 ? "public.data" : nil, size: 4, sha256: Digest(bytes: Array(repeating: UInt8($0 * 70), count: 32)),
        entriesStored: $0 == 2 ? 3 : nil, entriesRefused: $0 == 2 ? 1 : nil,
        refusedEntries: $0 == 2 ? [ItemReceipt.RefusedEntry(path: "x/y", reason: "executable")] : nil)
    }
    return [.ask(Ask(items: offers)), .answer(Answer(items: answers)), .receipt(Receipt(items: receipts))]
  }
}

/// `ItemListReader` reads share's Asks, Answers and Receipts by hand and leaves everything else to
/// `JSONDecoder`; whatever it reads must be what `JSONDecoder` reads, and every payload must
/// decode (or fail) the same through `decode` as through `JSONDecoder` alone.
@Suite struct ItemListReaderTests {
  func agree(_ payload: String, sourceLocation: SourceLocation = #_sourceLocation) {
    agree(Array(payload.utf8), sourceLocation: sourceLocation)
  }

  func agree(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    let both = Result { () throws(WireError) in try MessageCodec.decode(bytes) }
    let alone = Result { () throws(WireError) in try MessageCodec.decodeWithJSONDecoder(bytes) }
    #expect(both == alone, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
    // `==` compares strings by canonical equivalence; the bytes written back tell scalars apart.
    // (Only the item lists are read by hand, and only their writer's bytes are deterministic.)
    if case .success(let byHand) = both, case .success(let byDecoder) = alone, ["ask", "answer", "receipt"].contains(byHand.typeName) {
      #expect(MessageCodec.encode(byHand) == MessageCodec.encode(byDecoder), sourceLocation: sourceLocation)
    }
  }

  /// The shapes the reader takes: share's own, with JSON's whitespace anywhere and fields in any
  /// order.
  @Test(arguments: [
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a","size":1}]}"#,
    #" { "type" : "ask" , "items" : [ { "size" : 1 , "name" : "a" , "kind" : "file" , "id" : 0 } ] } "#,
    "{\n\t\"type\":\"receipt\",\r\n\"items\":[{\"status\":\"failed\",\"id\":-0}]}",
    #"{"type":"answer","items":[]}"#,
    #"{"type":"ask","items":[{"id":9223372036854775807,"kind":"file","name":"\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\","size":-9223372036854775808}]}"#,
    #"{"type":"receipt","items":[{"id":1,"status":"stored","sha256":"ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB"}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"é é K K","size":1}]}"#,
  ])
  func readsShareShapesAsJSONDecoderDoes(_ payload: String) {
    #expect(MessageCodec.readsByHand(Array(payload.utf8)))
    agree(payload)
  }

  /// Everything else goes to `JSONDecoder`, which reads it or says what is wrong.
  @Test(arguments: [
    #"{"items":[],"type":"ask"}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a","size":null}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a","resumeKey":"k"}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a","RESUME_KEY":"k"}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a","future":{"x":[1]}}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a","name":"b"}]}"#,
    #"{"type":"ask","items":[{"id":1.0,"kind":"file","name":"a"}]}"#,
    #"{"type":"ask","items":[{"id":1e2,"kind":"file","name":"a"}]}"#,
    #"{"type":"ask","items":[{"id":01,"kind":"file","name":"a"}]}"#,
    #"{"type":"ask","items":[{"id":9223372036854775808,"kind":"file","name":"a"}]}"#,
    #"{"type":"ask","items":[{"id":-9223372036854775809,"kind":"file","name":"a"}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"\ud83d"}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"\ude00x"}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"\ud83d\u0041"}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"\x"}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"device","name":"a"}]}"#,
    #"{"type":"ask","items":[{"kind":"file","name":"a"}]}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a"}],"extra":1}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a"}]} x"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a"}"#,
    #"{"type":"ask","items":[{"id":0,"kind":"file","name":"a"},]}"#,
    #"{"type":"receipt","items":[{"id":0,"status":"lost"}]}"#,
    #"{"type":"receipt","items":[{"id":0,"status":"stored","sha256":"ab"}]}"#,
    #"{"type":"answer","items":[{"id":0,"accepted":1}]}"#,
    #"{"type":"answer","items":[{"id":0,"accepted":True}]}"#,
    #"{"type":"hello","items":[]}"#,
    #"{"type":"ask","items":{}}"#,
    "\u{FEFF}{\"type\":\"ask\",\"items\":[]}",
  ])
  func leavesEveryOtherShapeToJSONDecoder(_ payload: String) {
    #expect(!MessageCodec.readsByHand(Array(payload.utf8)))
    agree(payload)
  }

  @Test func invalidUTF8AndRawControlsGoToJSONDecoder() {
    let prefix = Array(#"{"type":"ask","items":[{"id":0,"kind":"file","name":""#.utf8)
    let suffix = Array(#""}]}"#.utf8)
    for middle: [UInt8] in [[0xC3], [0xFF], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0x0A], [0x00], [0x1F]] {
      let payload = prefix + middle + suffix
      #expect(!MessageCodec.readsByHand(payload))
      agree(payload)
    }
    let valid = prefix + [0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, 0x7F] + suffix
    #expect(MessageCodec.readsByHand(valid))
    agree(valid)
  }

  /// Every byte of share's own messages changed, and every prefix of them: the two paths agree.
  @Test func mutationsOfShareMessagesDecodeAlike() {
    var generator = SystemRandomNumberGenerator()
    for message in ItemListSamples.messages(count: 3) {
      let valid = MessageCodec.encode(message)
      for i in valid.indices {
        var mutated = valid
        mutated[i] =
          [UInt8(ascii: "0"), UInt8(ascii: "\""), UInt8(ascii: "}"), UInt8(ascii: " "), 0x80, .random(in: 0...255, using: &generator)][
            i % 6]
        agree(mutated)
        agree(Array(valid[..<i]))
      }
    }
  }
}
