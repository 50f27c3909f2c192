import Synchronization
import Testing
import TextEscaping
import Wire

@testable import ShareKit

/// The Receipt lists each item once, in the order the Ask offered them, whatever order their
/// fates were recorded in.
@Suite struct ReceiptBookTests {
  let peer = PeerInfo(fingerprint: Fingerprint(hex: String(repeating: "ab", count: 32))!, name: "sender", address: "127.0.0.1", port: 1)

  func offer(_ id: Int) -> ItemOffer { ItemOffer(id: id, kind: .file, name: PeerText("item\(id).bin"), size: 1) }

  @Test func itemsOfferedOutOfOrderKeepTheOfferOrder() {
    let book = ReceiptBook(peer: peer, offered: [7, 2, 5, 0], emit: { _ in })
    book.failed(offer(0), "short", type: nil)
    book.refused(offer(5), "no", type: nil)
    book.failed(offer(7), "short", type: nil)
    book.refused(offer(2), "no", type: nil)
    #expect(book.receipt().items.map(\.id) == [7, 2, 5, 0])
  }

  @Test func itemsOfferedInIncreasingOrderKeepIt() {
    let book = ReceiptBook(peer: peer, offered: [3, 10, 11, 40], emit: { _ in })
    for id in [40, 3, 11, 10] { book.refused(offer(id), "no", type: nil) }
    #expect(book.receipt().items.map(\.id) == [3, 10, 11, 40])
  }

  @Test func anItemRecordedTwiceHasItsLastFate() {
    let book = ReceiptBook(peer: peer, offered: [0, 1, 2], emit: { _ in })
    book.refused(offer(1), "first", type: nil)
    book.refused(offer(0), "only", type: nil)
    book.failed(offer(1), "second", type: nil)
    book.refused(offer(2), "only", type: nil)
    let items = book.receipt().items
    #expect(items.map(\.id) == [0, 1, 2])
    #expect(items[1].status == .failed && items[1].reason?.unescaped == "second")
    #expect(book.counts.refused == 3 && book.counts.failed == 1)
  }

  @Test func theBookLetsGoOfItsEntriesOnceTheReceiptIsMade() {
    let book = ReceiptBook(peer: peer, offered: [0], emit: { _ in })
    book.refused(offer(0), "no", type: nil)
    #expect(book.receipt().items.count == 1)
    #expect(book.receipt().items.isEmpty)
  }

  /// Review 34: refusals on content came one at a time and were a log line each (40,980 lines a
  /// minute from one sender). Past the first hundred of an Ask, refusals and failures are
  /// counted, and told in one event each when the Receipt is made.
  @Test func refusalsAndFailuresPastTheFirstHundredAreOneEventEach() {
    let events = Mutex<[ReceiverEvent]>([])
    let book = ReceiptBook(peer: peer, offered: Array(0..<400), emit: { event in events.withLock { $0.append(event) } })
    for id in 0..<90 { book.refused(offer(id), "refused \(id)", type: nil) }
    for id in 90..<200 { book.failed(offer(id), "failed \(id)", type: nil) }
    book.refusedAll((200..<400).map { (offer($0), "declined \($0)", nil) })
    let receipt = book.receipt()
    #expect(receipt.items.count == 400 && book.counts.refused == 290 && book.counts.failed == 110)
    let logged = events.withLock { $0 }
    #expect(logged.count == 102, "\(logged.count) events")
    #expect(logged.filter { if case .failed = $0 { true } else { false } }.count == 10)
    let folded = logged.compactMap { event -> String? in
      switch event {
      case .refusedMore(_, let count, let reason): "refused \(count): \(reason)"
      case .failedMore(_, let count, let reason): "failed \(count): \(reason)"
      default: nil
      }
    }
    #expect(folded == ["refused 200: declined 200", "failed 100: failed 100"])
  }

  @Test func whatWasFoldedIsToldOnceEvenWithoutAReceipt() {
    let events = Mutex<[ReceiverEvent]>([])
    do {
      let book = ReceiptBook(peer: peer, offered: Array(0..<150), emit: { event in events.withLock { $0.append(event) } })
      for id in 0..<150 { book.refused(offer(id), "no", type: nil) }
    }
    let logged = events.withLock { $0 }
    #expect(logged.count == 101)
    guard case .refusedMore(_, 50, "no") = logged.last else {
      Issue.record("\(String(describing: logged.last))")
      return
    }
  }

  /// Review 44: a folder's reason named its first failed entry by a path of 4,093 bytes, and the
  /// daemon's log line ended inside it, before the cause.
  @Test func aLongEntryPathIsShortenedSoTheReasonAfterItShows() {
    let deep = Array(repeating: "d", count: 2_000).joined(separator: "/") + "/f"
    let shown = ItemReceiver.shortened(deep)
    #expect(shown.count == 81 && shown.hasPrefix("…") && shown.hasSuffix("d/d/f"), "\(shown)")
    #expect(ItemReceiver.shortened("photos/2024/a.jpg") == "photos/2024/a.jpg")
  }
}
