import Discovery
import Foundation
import Synchronization
import TLS

/// What `share peers --watch` reports.
package enum PeerEvent: Sendable, Equatable {
  case appeared(Peer)
  /// Seen on another address, or lost one of several.
  case changed(Peer)
  case disappeared(Peer)
  /// Avahi has answered for now: everything present is known.
  case settled
}

/// Nearby peers from Avahi. Records are grouped into one peer by what was verified, never by
/// what they claim: the records of one name and ID (on several interfaces) are one peer, and a
/// device whose names and ID this home knows is one peer under all of them; a record claiming
/// an ID this home knows by another name stands alone, marked (`Peer.Standing`).
package struct PeerDirectory: Sendable {
  package let book: KnownIdentities

  package init(book: KnownIdentities) {
    self.book = book
  }

  /// Browses and reports peers as they come and go. A malformed record never stops browsing.
  /// Throws at once when Avahi cannot be reached, with what to do about it.
  package func watch() throws(ShareError) -> AsyncThrowingStream<PeerEvent, any Error> {
    let events: AsyncThrowingStream<BrowseEvent, any Error>
    do {
      events = try ServiceBrowser.browse()
    } catch {
      throw ShareError.discovery(error)
    }
    let book = self.book
    return AsyncThrowingStream { continuation in
      let task = Task {
        var table = PeerTable(book: book)
        do {
          for try await event in events {
            switch event {
            case .added(let service): table.add(service).forEach { continuation.yield($0) }
            case .removed(let instance): table.remove(instance).forEach { continuation.yield($0) }
            case .allForNow: continuation.yield(.settled)
            case .failure: continue  // one instance failed to resolve: others go on
            }
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: (error as? DiscoveryError).map(ShareError.discovery) ?? error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The peers present now: browses until Avahi has answered for now ("all for now": every
  /// record present resolved), or `timeout` passes (then whatever was seen so far).
  package func snapshot(timeout: Duration) async throws -> [Peer] {
    let stream = try watch()
    let collected = Collected()
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        for try await event in stream {
          switch event {
          case .appeared(let peer), .changed(let peer): collected.peers.withLock { $0[peer.key] = peer }
          case .disappeared(let peer): _ = collected.peers.withLock { $0.removeValue(forKey: peer.key) }
          case .settled: return
          }
        }
      }
      group.addTask { try? await Task.sleep(for: timeout) }
      try await group.next()
      group.cancelAll()
    }
    return PeerDirectory.sorted(Array(collected.peers.withLock { $0.values }))
  }

  /// The peer advertised as `name`, resolved directly (no browse, no waiting for "all for
  /// now"): the first record found, within `timeout`; nil when none answers by then.
  package func resolve(name: String, timeout: Duration) async throws -> Peer? {
    let stream: AsyncThrowingStream<ResolvedService, any Error>
    do {
      stream = try ServiceResolver.resolve(name: name)
    } catch .invalidServiceName {
      return nil  // no record can have that name
    } catch {
      throw ShareError.discovery(error)
    }
    let book = self.book
    return try await withThrowingTaskGroup(of: Peer?.self) { group in
      group.addTask {
        var table = PeerTable(book: book)
        for try await service in stream {
          if let peer = table.add(service).first.flatMap(\.peer) { return peer }
        }
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return nil
      }
      defer { group.cancelAll() }
      do {
        return try await group.next() ?? nil
      } catch let error as DiscoveryError {
        throw ShareError.discovery(error)
      }
    }
  }

  static func sorted(_ peers: [Peer]) -> [Peer] {
    peers.sorted { ($0.name.unescaped.lowercased(), $0.id?.hex ?? "") < ($1.name.unescaped.lowercased(), $1.id?.hex ?? "") }
  }
}

extension PeerEvent {
  /// The peer it is about; nil for `.settled`.
  package var peer: Peer? {
    switch self {
    case .appeared(let peer), .changed(let peer), .disappeared(let peer): peer
    case .settled: nil
    }
  }
}

/// Peers gathered by a snapshot's browsing task.
private final class Collected: Sendable {
  let peers = Mutex<[String: Peer]>([:])
}
