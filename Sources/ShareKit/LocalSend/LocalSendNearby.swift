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

/// The LocalSend devices heard recently: every claim of a fingerprint from an address, kept
/// apart, since anyone may claim any fingerprint and only the certificate at an address proves
/// it (`LocalSendDelivery` tries each address claiming the fingerprint sent to). Entries not
/// heard again for `lifetime` are dropped. Thread-safe (a `Mutex`).
final class LocalSendNearby: Sendable {
  /// One fingerprint claimed for one address and port. The port is part of it: an announcement's
  /// source address is not proven, and one with the phone's address and another port must not
  /// move the phone's claim.
  private struct Claim: Hashable {
    var fingerprint: String
    var address: String
    var port: UInt16
  }

  private let peers = Mutex<[Claim: LocalSendPeer]>([:])
  /// At most this many claims are remembered (the loudest network cannot grow it), and at most
  /// `maxPeersPerAddress` from one address (one host claiming fingerprint after fingerprint
  /// filled the table, and no phone heard afterwards was listed: review 15). A full table makes
  /// room by the oldest claim of the address holding the most: 16 addresses claiming 16
  /// fingerprints each kept every phone out (review 31).
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
    let claim = Claim(fingerprint: peer.fingerprint.unescaped, address: address, port: port)
    peers.withLock { peers in
      peers = peers.filter { now.timeIntervalSince($0.value.heardAt) < lifetime }
      if peers[claim] == nil {
        let held = peers.keys.count { $0.address == address }
        guard held < Self.maxPeersPerAddress else { return }
        if peers.count >= Self.maxPeers {
          guard let victim = Self.eviction(in: peers, newcomerHolds: held) else { return }
          peers[victim] = nil
        }
      }
      peers[claim] = peer
    }
  }

  /// The claim to drop from a full table for a newcomer from an address holding `newcomerHolds`
  /// claims: the oldest of the address holding the most, if that is more than the newcomer's
  /// (so no address's claims push out one of an address holding fewer); nil to ignore it.
  private static func eviction(in peers: [Claim: LocalSendPeer], newcomerHolds: Int) -> Claim? {
    let held = Dictionary(grouping: peers.keys, by: \.address)
    guard let most = held.values.map(\.count).max(), most > newcomerHolds else { return nil }
    let loudest = held.values.filter { $0.count == most }.joined()
    return loudest.min { (peers[$0]?.heardAt ?? .distantPast) < (peers[$1]?.heardAt ?? .distantPast) }
  }

  /// The claims heard within `lifetime`, newest first.
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

  /// The LocalSend devices this home's running daemon heard, a claim of a fingerprint from each
  /// address apart, newest first (announcing first and waiting up to `wait` seconds for
  /// answers); empty when no daemon runs or LocalSend is off. share daemons
  /// are left out: `share send` reaches them by share's own protocol.
  package static func heard(paths: SharePaths, wait: Double) -> [LocalSendPeer] {
    let response = try? ControlClient.sendIfRunning(.localSendPeers(waitSeconds: wait), paths: paths)
    return (response?.localsendPeers ?? []).filter { !$0.isShare }
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
