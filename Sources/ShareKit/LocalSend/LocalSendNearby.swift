import Foundation
import LocalSend
import Synchronization

/// A LocalSend device the daemon heard: by its multicast announcement (or answer), or by its
/// `/register`. What it says of itself is unverified; `share send` pins the fingerprint its
/// certificate proves on first use.
package struct LocalSendPeer: Codable, Sendable, Equatable {
  /// Its alias.
  package var alias: PeerText
  /// The fingerprint it claims, unverified.
  package var fingerprint: PeerText
  /// Where its HTTPS server is: the datagram's source address and the port it announced.
  package var address: String
  package var port: UInt16
  package var deviceModel: String?
  package var deviceType: String?
  package var heardAt: Date
}

/// The LocalSend devices heard recently, newest first, by claimed fingerprint. Entries not heard
/// again for `lifetime` are dropped. Thread-safe (a `Mutex`).
final class LocalSendNearby: Sendable {
  private let peers = Mutex<[String: LocalSendPeer]>([:])
  /// At most this many devices are remembered (the loudest network cannot grow it), and at most
  /// `maxPeersPerAddress` from one address (one host claiming fingerprint after fingerprint
  /// filled the table, and no phone heard afterwards was listed: review 15).
  static let maxPeers = 256
  static let maxPeersPerAddress = 16
  let lifetime: TimeInterval

  init(lifetime: TimeInterval = 600) {
    self.lifetime = lifetime
  }

  /// Records `device`, heard from `address`; an HTTP-only or portless device is ignored (share
  /// sends over HTTPS only).
  func heard(_ device: LocalSendDevice, from address: String, at now: Date = Date()) {
    guard device.scheme == .https, let port = UInt16(exactly: device.port), port > 0 else { return }
    let peer = LocalSendPeer(
      alias: PeerText(device.alias), fingerprint: PeerText(device.fingerprint.uppercased()), address: address, port: port,
      deviceModel: device.deviceModel, deviceType: device.deviceType?.rawValue, heardAt: now)
    peers.withLock { peers in
      peers = peers.filter { now.timeIntervalSince($0.value.heardAt) < lifetime }
      let key = peer.fingerprint.unescaped
      if let known = peers[key] {
        // A claim of a fingerprint heard from another address does not move it there: anyone
        // may claim any fingerprint, and a pinned phone would then be sought at the claimant's.
        guard known.address == address else { return }
      } else {
        guard peers.count < Self.maxPeers, peers.values.count(where: { $0.address == address }) < Self.maxPeersPerAddress
        else { return }
      }
      peers[key] = peer
    }
  }

  /// The devices heard within `lifetime`, newest first.
  func current(at now: Date = Date()) -> [LocalSendPeer] {
    peers.withLock { $0.values.filter { now.timeIntervalSince($0.heardAt) < lifetime } }
      .sorted { $0.heardAt > $1.heardAt }
  }
}

extension LocalSendPeer {
  /// The model a share daemon announces over LocalSend, so that share peers, reachable by share's
  /// own protocol, are not taken for LocalSend-only devices.
  package static let shareModel = "share"

  /// Whether it is a share daemon speaking LocalSend too.
  package var isShare: Bool { deviceModel == LocalSendPeer.shareModel }

  /// The LocalSend devices this home's running daemon heard (announcing first and waiting up to
  /// `wait` seconds for answers); empty when no daemon runs or LocalSend is off. share daemons
  /// are left out: `share send` reaches them by share's own protocol.
  package static func heard(paths: SharePaths, wait: Double) -> [LocalSendPeer] {
    let response = try? ControlClient.sendIfRunning(.localSendPeers(waitSeconds: wait), paths: paths)
    return (response?.localsendPeers ?? []).filter { !$0.isShare }
  }

  /// The device `target` names: its exact alias, or a prefix of at least 8 hex digits of its
  /// fingerprint; nil when none or several do.
  package static func match(_ target: String, in peers: [LocalSendPeer]) -> LocalSendPeer? {
    let byAlias = peers.filter { $0.alias.unescaped == target }
    if byAlias.count == 1 { return byAlias[0] }
    guard target.count >= 8, target.allSatisfy(\.isHexDigit) else { return nil }
    let byPrefix = peers.filter { $0.fingerprint.unescaped.hasPrefix(target.uppercased()) }
    return byPrefix.count == 1 ? byPrefix[0] : nil
  }
}

extension LocalSendPeer {
  /// Why this device's announcement must not be taken at its word, or nil: its alias or its
  /// claimed fingerprint is (or looks like) a share device's — one this home knows, this device
  /// itself, or one advertising nearby now (`sharePeers`). Anyone can announce any alias and any
  /// fingerprint over LocalSend with one unauthenticated `/register` (review 15).
  package func impersonation(of sharePeers: [Peer], book: KnownIdentities) -> String? {
    if book.knowsShareDevice(alias.unescaped) || book.knowsShareDevice(fingerprint.unescaped) {
      return "unverified: uses the name or ID of a share device this home knows"
    }
    let claimed = fingerprint.unescaped.lowercased()
    let same = sharePeers.first { peer in
      peer.id?.hex == claimed || peer.looksCalled(alias.unescaped)
    }
    return same.map { "unverified: uses the name or ID of \($0.name), a share device nearby (\($0.id?.short ?? "no ID"))" }
  }

  /// Whether `target` (a `--to`) names a share device rather than this LocalSend device: one
  /// this home knows (`KnownIdentities.knowsShareDevice`), or one nearby now by its name, a
  /// look-alike of it, or a prefix of its ID. Such a target goes by share's protocol, where the
  /// name's owner proves its ID; the LocalSend device is reached by its fingerprint's prefix.
  package static func namesShareDevice(_ target: String, nearby sharePeers: [Peer], book: KnownIdentities) -> Bool {
    if book.knowsShareDevice(target) { return true }
    return sharePeers.contains { $0.looksCalled(target) || PeerResolver.matches($0, prefix: target) }
  }
}
