import Foundation
import Testing
import Wire

@testable import ShareKit

/// A Receipt grows with the items sent, as the Ask does (review 44: 100,000 small files were all
/// stored, and the send failed because their 19.8 MB Receipt was over the 16 MiB any other
/// control message may be).
@Suite struct ReceiptSizeTests {
  @Test func aReceiptOverTheControlCapForManyItemsIsBelieved() throws {
    let count = 8_400
    // 2,000-byte stored names: 8,400 of them are more than 16 MiB.
    let stored = String(repeating: "n", count: 1_990)
    let server = try RawServer(home: try TestHome()) { session in
      try session.hello()
      let items = try session.ask().items
      try session.send(.answer(Answer(items: items.map { ItemAnswer(id: $0.id, accepted: true) })))
      let sizes = try session.payloads(items.count)
      let receipt = Receipt(
        items: zip(items, sizes).map { item, size in
          ItemReceipt(id: item.id, status: .stored, storedAs: PeerText("\(stored)-\(item.id).txt"), size: Int64(size))
        })
      #expect(try MessageCodec.frame(.receipt(receipt)).count > 16 << 20)
      try session.send(.receipt(receipt))
    }
    var catalog = ItemCatalog()
    for index in 0..<count { catalog.add(text: "note \(index)\n", name: "note-\(index)") }
    let sender = try Sender(device: try TestHome().device)
    let report = try sender.send(catalog.items, to: server.endpoint)
    #expect(report.allStored && report.items.count == count)
  }
}
