import Dispatch
import Foundation
import Synchronization

/// One send of the same items to several receivers at once: a `Sender` and a thread per
/// receiver, each with its own result, so a slow or failing receiver does not hold back the
/// others. With several receivers, a stream of unknown length (standard input) is first spooled
/// to a temporary file that each of them reads from the start.
package final class MultiSend: Sendable {
  package let endpoints: [Endpoint]
  package let items: [OutgoingItem]
  private let senders: [Sender]
  /// For each LocalSend endpoint, its delivery (nil for share receivers).
  private let deliveries: [LocalSendDelivery?]
  private let cancelled = Atomic<Bool>(false)

  /// `busyWait`: how long each receiver that is busy is tried again (`Sender.busyPatience`).
  package init(
    device: Device, catalog: ItemCatalog, to endpoints: [Endpoint], busyWait: Duration = .seconds(30)
  ) throws(ShareError) {
    var catalog = catalog
    if endpoints.count > 1 { try catalog.spoolStreams() }
    self.endpoints = endpoints
    items = catalog.items
    var senders: [Sender] = []
    for _ in endpoints {
      let sender = try Sender(device: device)
      sender.busyPatience = busyWait
      senders.append(sender)
    }
    self.senders = senders
    var deliveries: [LocalSendDelivery?] = []
    for endpoint in endpoints { deliveries.append(endpoint.localSend == nil ? nil : try LocalSendDelivery(device: device)) }
    self.deliveries = deliveries
  }

  /// Sends to every receiver and waits until each has finished; returns their results in the
  /// order of `endpoints`. `events` and `finished` are called on the receivers' threads with the
  /// receiver's index: several at once, so they must be thread-safe.
  package func run(
    events: @escaping @Sendable (Int, SendEvent) -> Void = { _, _ in },
    finished: @escaping @Sendable (Int, Result<SendReport, ShareError>) -> Void = { _, _ in }
  ) -> [Result<SendReport, ShareError>] {
    let results = Mutex<[Result<SendReport, ShareError>?]>(Array(repeating: nil, count: endpoints.count))
    // Which receiver proved each device ID first: two `--to` that reach one device (a name and
    // its HOST:PORT) send to it once.
    let proven = Mutex<[Fingerprint: Int]>([:])
    let endpoints = self.endpoints
    let group = DispatchGroup()
    for (index, endpoint) in endpoints.enumerated() {
      group.enter()
      let (sender, delivery, items) = (senders[index], deliveries[index], self.items)
      let thread = Thread {
        let result: Result<SendReport, ShareError>
        do throws(ShareError) {
          if let delivery, let peer = endpoint.localSend {
            result = .success(try delivery.send(items, to: endpoint, peer: peer) { events(index, $0) })
          } else {
            let sameAs = SameReceiver { id in
              proven.withLock { proven in
                if let first = proven[id], first != index { return endpoints[first].name }
                proven[id] = index
                return nil
              }
            }
            result = .success(try sender.send(items, to: endpoint, sameAs: sameAs) { events(index, $0) })
          }
        } catch {
          result = .failure(error)
        }
        finished(index, result)
        results.withLock { $0[index] = result }
        group.leave()
      }
      thread.name = "share-send-\(index)"
      thread.start()
    }
    group.wait()
    return results.withLock { $0.compactMap { $0 } }
  }

  /// Cancels every send from any thread: each ends with `.cancelled`; a receiver keeps the
  /// partial bytes of a large item for resuming.
  package func cancel() {
    cancelled.store(true, ordering: .sequentiallyConsistent)
    senders.forEach { $0.cancel() }
    deliveries.forEach { $0?.cancel() }
  }

  /// Whether `cancel()` was called.
  package var wasCancelled: Bool { cancelled.load(ordering: .sequentiallyConsistent) }
}
