import Foundation
import Glibc
import Synchronization
import Testing

@testable import ShareKit

/// One send to several receivers at once, in process over loopback.
@Suite struct MultiSendTests {
  @Test func everyReceiverGetsEveryItemAndAnUnreachableOneFailsAlone() throws {
    let (a, b, c) = (try TestHome(name: "alice"), try TestHome(name: "bob"), try TestHome(name: "carol"))
    let (bob, carol) = (try RunningReceiver(home: b), try RunningReceiver(home: c))
    var catalog = ItemCatalog()
    try catalog.add(path: a.file("notes.txt", Array("for everyone\n".utf8)).path)
    catalog.add(text: "see you at 6", name: nil)
    let closed = Endpoint(host: "127.0.0.1", port: 1)
    let send = try MultiSend(device: a.device, catalog: catalog, to: [bob.endpoint, closed, carol.endpoint])
    let connected = Mutex<Set<Int>>([])
    let finished = Mutex<[Int]>([])
    let results = send.run(
      events: { index, event in
        if case .connected = event { _ = connected.withLock { $0.insert(index) } }
      },
      finished: { index, _ in finished.withLock { $0.append(index) } })

    #expect(results.count == 3)
    let bobReport = try results[0].get()
    let carolReport = try results[2].get()
    #expect(bobReport.peerName == "bob" && carolReport.peerName == "carol")
    #expect(bobReport.allStored && carolReport.allStored)
    #expect(bobReport.items.map(\.name) == ["notes.txt", "text.txt"])
    guard case .failure = results[1] else {
      Issue.record("a closed port must fail")
      return
    }
    #expect(connected.withLock { $0 } == [0, 2])
    #expect(finished.withLock { Set($0) } == [0, 1, 2])
    #expect(b.inboxNames() == c.inboxNames())
    #expect(!send.wasCancelled)
  }

  @Test func aStreamIsSpooledOnceAndEveryReceiverGetsAllOfIt() throws {
    let (a, b, c) = (try TestHome(name: "alice"), try TestHome(name: "bob"), try TestHome(name: "carol"))
    let (bob, carol) = (try RunningReceiver(home: b), try RunningReceiver(home: c))
    let bytes = randomBytes(3 << 20)
    var catalog = ItemCatalog()
    let fd = try feedPipe(bytes)
    defer { close(fd) }
    catalog.add(stream: fd, name: "piped.bin")
    let send = try MultiSend(device: a.device, catalog: catalog, to: [bob.endpoint, carol.endpoint])
    let results = send.run()
    for (result, home) in zip(results, [b, c]) {
      #expect(try result.get().allStored)
      #expect(FileManager.default.contents(atPath: home.inbox.appendingPathComponent("piped.bin").path) == Data(bytes))
    }
  }
}
