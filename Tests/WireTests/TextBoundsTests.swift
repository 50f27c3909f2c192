import Testing

@testable import Wire

/// A peer's text is bounded as it is decoded: names refused over their cap, prose cut.
@Suite struct TextBoundsTests {
  static let id = String(repeating: "ab", count: 32)

  func decoded(_ message: Message) throws(WireError) -> Message {
    try MessageCodec.decode(MessageCodec.encode(message))
  }

  @Test func aHelloWithAFifteenMebibyteNameIsRefused() {
    let hello = Message.hello(Hello(name: PeerText(String(repeating: "B", count: 15 << 20)), id: Self.id))
    #expect(throws: WireError.malformedMessage("hello: the name is over 256 bytes")) { try decoded(hello) }
    #expect(throws: WireError.self) { try decoded(.hello(Hello(name: "b", id: String(repeating: "a", count: 257)))) }
  }

  @Test func aNameAtTheCapIsKeptWhole() throws {
    let name = PeerText(String(repeating: "é", count: TextBounds.deviceNameBytes / 2))
    #expect(try decoded(.hello(Hello(name: name, id: Self.id))) == .hello(Hello(name: name, id: Self.id)))
  }

  @Test func longReasonsAndMessagesAreCutNotRefused() throws {
    let long = PeerText(String(repeating: "x", count: 15 << 20))
    let kept = PeerText(String(repeating: "x", count: TextBounds.messageBytes) + "…")
    #expect(try decoded(.failure(Failure(code: "refused", message: long))) == .failure(Failure(code: "refused", message: kept)))
    #expect(try decoded(.wait(Wait(message: long))) == .wait(Wait(message: kept)))
    #expect(try decoded(.skip(Skip(item: 1, reason: long))) == .skip(Skip(item: 1, reason: kept)))
    #expect(try decoded(.pairResult(PairResult(accepted: false, reason: long))) == .pairResult(PairResult(accepted: false, reason: kept)))
    let answer = Answer(items: [ItemAnswer(id: 0, accepted: false, reason: long, entries: [EntryAnswer(accepted: false, reason: long)])])
    #expect(
      try decoded(.answer(answer))
        == .answer(
          Answer(items: [
            ItemAnswer(id: 0, accepted: false, reason: kept, entries: [EntryAnswer(accepted: false, reason: kept)])
          ])))
    let receipt = Receipt(items: [ItemReceipt(id: 0, status: .rejected, reason: long)])
    #expect(try decoded(.receipt(receipt)) == .receipt(Receipt(items: [ItemReceipt(id: 0, status: .rejected, reason: kept)])))
  }

  @Test func longIdentifiersAreRefused() {
    let long = String(repeating: "t", count: TextBounds.identifierBytes + 1)
    #expect(throws: WireError.self) { try decoded(.failure(Failure(code: long, message: "no"))) }
    #expect(throws: WireError.self) { try decoded(.answer(Answer(items: [ItemAnswer(id: 0, accepted: true, type: long)]))) }
    #expect(throws: WireError.self) { try decoded(.receipt(Receipt(items: [ItemReceipt(id: 0, status: .stored, type: long)]))) }
    #expect(throws: WireError.self) {
      try decoded(.receipt(Receipt(items: [ItemReceipt(id: 0, status: .stored, storedAs: PeerText(String(repeating: "n", count: 5000)))])))
    }
    #expect(throws: WireError.self) { try decoded(.ask(Ask(items: [ItemOffer(id: 0, kind: .file, name: "a", size: 1, type: long)]))) }
  }

  @Test func anUnknownMessageTypeIsNamedEscaped() {
    do {
      _ = try MessageCodec.decode(Array(#"{"type":"\u001b]52;c;eA==\u0007"}"#.utf8))
      Issue.record("decoded an unknown message type")
    } catch {
      #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 }, "\(error.description.debugDescription)")
    }
  }
}
