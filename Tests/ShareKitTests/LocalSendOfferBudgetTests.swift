import Foundation
import LocalSend
import Synchronization
import TLS
import Testing

@testable import ShareKit

/// Review 34: LocalSend offers were outside the Ask budget a share sender's Asks go through: one
/// unverified client sent 20 offers of 4,096 refused files on one connection, and the daemon
/// judged and logged every file (82,000 lines, 10 s of CPU). Each offer is counted before it is
/// judged now; once its address has spent the budget, the next is answered busy (409) before
/// its body is read.
@Suite(.serialized) struct LocalSendOfferBudgetTests {
  @Test func aStrangersOffersSpendItsAddresssAskBudget() throws {
    let receiving = try LocalSendGateTests.Receiving()
    let stranger = try TestHome(name: "visitor")
    let count = 4096
    let files = (0..<count).map { FileOffer(id: "\($0)", fileName: "x\($0).exe", size: 1, fileType: "application/octet-stream") }
    var replies: [String] = []
    // It proves its own certificate: its own budget, half its address's.
    for _ in 0..<(Gatekeeper.judgedPerPeer / count + 3) {
      let tls = try LocalSendGateTests.rawPrepareUpload(files, from: stranger, source: "127.0.0.1", port: receiving.service.server.port)
      replies.append(try LocalSendGateTests.readReply(tls))
      tls.close()
    }
    let judged = replies.filter { $0.hasPrefix("HTTP/1.1 403") && !$0.contains("too many asks") }
    #expect(judged.count == Gatekeeper.judgedPerPeer / count + 1, "\(replies.map { $0.prefix(40) })")
    #expect(replies.last?.hasPrefix("HTTP/1.1 409") == true, "\(replies.last ?? "")")
    #expect(replies.last?.contains("too many asks") == true, "\(replies.last ?? "")")
    // Every refused file is counted; each offer's first hundred are logged one by one.
    let (logged, folded) = receiving.reported.events.withLock { events in
      events.reduce(into: (0, 0)) { tally, event in
        if case .refused = event { tally.0 += 1 }
        if case .refusedMore(_, let count, _) = event { tally.1 += count }
      }
    }
    #expect(logged == judged.count * ReceiptBook.loggedRefusals)
    #expect(logged + folded == judged.count * count)
  }
}
