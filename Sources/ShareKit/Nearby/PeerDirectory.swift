import Discovery
import Foundation
import Synchronization
import TLS

/// What `share peers --watch` reports.
public enum PeerEvent: Sendable {
  case appeared(Peer)
  /// Seen on another address, or lost one of several.
  case changed(Peer)
  case disappeared(Peer)
  /// Avahi has answered for now: everything present is known.
  case settled
}

/// Nearby peers from Avahi, merged by device ID: a peer seen on two interfaces is one peer.
public struct PeerDirectory: Sendable {
  public let own: Fingerprint?
  public let trust: TrustStore?

  public init(own: Fingerprint?, trust: TrustStore?) {
    self.own = own
    self.trust = trust
  }

  /// Browses and reports peers as they come and go. A malformed record never stops browsing.
  /// Throws at once when Avahi cannot be reached, with what to do about it.
  public func watch() throws(ShareError) -> AsyncThrowingStream<PeerEvent, any Error> {
    let events: AsyncThrowingStream<BrowseEvent, any Error>
    do {
      events = try ServiceBrowser.browse()
    } catch {
      throw ShareError.discovery(error)
    }
    let directory = self
    return AsyncThrowingStream { continuation in
      let task = Task {
        var peers: [String: Peer] = [:]
        var owners: [ServiceInstance: (key: String, address: Peer.Address)] = [:]
        do {
          for try await event in events {
            switch event {
            case .added(let service):
              var peer = directory.peer(from: service)
              let address = Peer.Address(address: service.address, port: service.port, interface: service.instance.interfaceName)
              owners[service.instance] = (peer.key, address)
              if var existing = peers[peer.key] {
                let newName = !existing.isCalled(peer.name.unescaped)
                if newName { existing.aliases.append(peer.name) }
                guard newName || !existing.addresses.contains(address) else { continue }
                if !existing.addresses.contains(address) { existing.addresses.append(address) }
                peers[peer.key] = existing
                continuation.yield(.changed(existing))
              } else {
                peer.addresses = [address]
                peers[peer.key] = peer
                continuation.yield(.appeared(peer))
              }
            case .removed(let instance):
              guard let (key, address) = owners.removeValue(forKey: instance), var peer = peers[key] else { continue }
              peer.addresses.removeAll { $0 == address }
              if peer.addresses.isEmpty {
                peers[key] = nil
                continuation.yield(.disappeared(peer))
              } else {
                peers[key] = peer
                continuation.yield(.changed(peer))
              }
            case .allForNow:
              continuation.yield(.settled)
            case .failure:
              continue  // one instance failed to resolve: others go on
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

  /// The peers present now: browses until Avahi has answered for now, or `timeout` passes
  /// (then whatever was seen so far).
  ///
  /// `enough` lets a caller stop earlier: it is asked after each change whether the peers seen
  /// so far already answer its question (a known peer by name, with Avahi's cache warm, is there
  /// within milliseconds; waiting for "all for now" costs about a second).
  public func snapshot(timeout: Duration, enough: @escaping @Sendable ([Peer]) -> Bool = { _ in false }) async throws -> [Peer] {
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
          if enough(Array(collected.peers.withLock { $0.values })) { return }
        }
      }
      group.addTask { try? await Task.sleep(for: timeout) }
      try await group.next()
      group.cancelAll()
    }
    return PeerDirectory.sorted(Array(collected.peers.withLock { $0.values }))
  }

  static func sorted(_ peers: [Peer]) -> [Peer] {
    peers.sorted { ($0.name.unescaped.lowercased(), $0.id?.hex ?? "") < ($1.name.unescaped.lowercased(), $1.id?.hex ?? "") }
  }

  private func peer(from service: ResolvedService) -> Peer {
    let id = service.txt[AdvertisedKeys.id].flatMap(Fingerprint.init(hex:))
    return Peer(
      name: PeerText(service.instance.name), id: id, version: service.txt[AdvertisedKeys.version], addresses: [],
      isSelf: id != nil && id == own, trusted: id.map { trust?.trusts($0) ?? false } ?? false)
  }
}

/// Peers gathered by a snapshot's browsing task.
private final class Collected: Sendable {
  let peers = Mutex<[String: Peer]>([:])
}
