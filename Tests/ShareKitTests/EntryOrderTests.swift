import Testing
import Wire

@testable import ShareKit

/// Review 34 L8: a sender that sent a folder's entries out of order was told "expected the bytes
/// of item 0 from 0 … but got item 0 from 0", which reads as a contradiction: the entries are
/// named now.
@Suite struct EntryOrderTests {
  @Test func anEntrySentOutOfOrderIsNamedInTheError() throws {
    let (a, b) = (try TestHome(), try TestHome())
    let receiver = try RunningReceiver(home: b)
    let client = try RawClient(to: receiver.port, home: a)
    try client.hello()
    let entries = [EntryOffer(path: "a.txt", kind: .file, size: 1), EntryOffer(path: "b.txt", kind: .file, size: 1)]
    let answer = try client.ask([ItemOffer(id: 0, kind: .folder, name: "f", size: 2, entries: entries)])
    #expect(answer.items.first?.entries?.map(\.accepted) == [true, true])
    try client.connection.sendBegin(BeginFrame(item: 0, entry: 1))
    try client.connection.flush()
    let reply = try client.receive()
    guard case .failure(let failure) = reply else {
      Issue.record("an entry out of order is a failure: \(reply)")
      return
    }
    #expect(failure.message.unescaped.contains("item 0 entry 0 from 0"), "\(failure)")
    #expect(failure.message.unescaped.contains("got item 0 entry 1 from 0"), "\(failure)")
    #expect(b.inboxNames().isEmpty)
  }
}
