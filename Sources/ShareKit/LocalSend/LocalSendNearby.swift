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
  /// At most this many devices are remembered (the loudest network cannot grow it).
  static let maxPeers = 256
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
      guard peers[peer.fingerprint.unescaped] != nil || peers.count < Self.maxPeers else { return }
      peers[peer.fingerprint.unescaped] = peer
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
