import Foundation
import Synchronization
import System
import TLS

/// What `share peers` lists as a known device, proved (review 41): a record that copies a
/// contact's name and device ID word for word is, to mDNS, that contact, and only the
/// certificate at its address tells them apart. Each address of a record listed as known is
/// asked for a TLS handshake, all at once and within `timeout`; nothing is said after it (the
/// receiver sees a connection that ends before its Hello, as it sees a sender's losing
/// addresses).
package struct PeerProof: Sendable {
  /// How one address answered.
  package enum Outcome: Sendable, Equatable {
    /// Its certificate is the device ID the record advertises.
    case proved
    /// It presented another certificate: a record copied to point elsewhere.
    case otherCertificate
    /// No handshake within the time: nothing listens there, or it is not a share daemon, or
    /// it is out of reach.
    case unreached
  }

  private let context: TLSContext
  private let timeout: Duration

  package init(device: Device, timeout: Duration) throws(ShareError) {
    do {
      context = try TLSContext(identity: device.identity, role: .client)
    } catch {
      throw ShareError.wrap(error)
    }
    self.timeout = timeout
  }

  /// `peers`, each record listed as known proved at its addresses: the addresses that proved
  /// it stay (`proved == true`); the ones that presented another certificate are split off into
  /// a record of their own, marked as one whose certificate is not the device it claims
  /// (`Peer.Standing.certificateIsNot`); the ones that did not answer, into a record marked
  /// `proved == false` that is no contact and not this device (review 48: a silent address
  /// joined a proved contact's row, and alone was listed as the contact). Other records are as
  /// they were (`proved == nil`).
  package func prove(_ peers: [Peer]) -> [Peer] {
    let asked = peers.filter(Self.needsProof)
    let outcomes = self.outcomes(of: asked)
    return peers.flatMap { peer -> [Peer] in
      guard Self.needsProof(peer), let id = peer.id else { return [peer] }
      return Self.split(peer, id: id, outcomes: outcomes)
    }
  }

  /// A record listed as a known device: its name and ID are a pair this home knows.
  static func needsProof(_ peer: Peer) -> Bool { peer.standing == .known && peer.id != nil && !peer.addresses.isEmpty }

  /// `peer` after its addresses answered: the ones that proved it stay; the ones that did not
  /// answer become one record of their own, no contact; the ones that presented another
  /// certificate become records of their own, one per name they were advertised under.
  static func split(_ peer: Peer, id: Fingerprint, outcomes: [Key: Outcome]) -> [Peer] {
    func outcome(_ address: Peer.Address) -> Outcome { outcomes[Key(address, id: id)] ?? .unreached }
    var kept = peer
    kept.addresses = peer.addresses.filter { outcome($0) == .proved }
    kept.proved = true
    var silent = peer
    silent.addresses = peer.addresses.filter { outcome($0) == .unreached }
    silent.proved = false
    silent.trusted = false
    silent.isSelf = false
    // Named as its records were, not by the names a proof gave the device.
    silent.aliases = []
    silent.name = silent.addresses.first?.advertisedAs ?? peer.name
    let claimed = peer.contactName?.unescaped ?? peer.name.unescaped
    let impostors = Dictionary(grouping: peer.addresses.filter { outcome($0) == .otherCertificate }) { $0.advertisedAs ?? peer.name }
    let split = impostors.sorted { $0.key.unescaped < $1.key.unescaped }.map { name, addresses in
      Peer(
        name: name, id: id, version: peer.version, addresses: addresses, isSelf: false, trusted: false,
        standing: .certificateIsNot(peer.isSelf ? "" : claimed))
    }
    return [kept, silent].filter { !$0.addresses.isEmpty } + split
  }

  /// An address asked for one ID.
  struct Key: Hashable {
    let address: String
    let port: UInt16
    let id: Fingerprint

    init(_ address: Peer.Address, id: Fingerprint) {
      self.address = address.address
      port = address.port
      self.id = id
    }
  }

  /// Every address of `peers` asked at once, each on a thread of its own; returns when all
  /// answered or gave up (each within `timeout`).
  private func outcomes(of peers: [Peer]) -> [Key: Outcome] {
    let keys = Set(peers.flatMap { peer in peer.addresses.map { Key($0, id: peer.id!) } })
    let results = Answers()
    let group = DispatchGroup()
    for key in keys {
      group.enter()
      let thread = Thread { [self] in
        let outcome = self.outcome(host: key.address, port: key.port, id: key.id)
        results.outcomes.withLock { $0[key] = outcome }
        group.leave()
      }
      thread.name = "share-proof"
      thread.start()
    }
    group.wait()
    return results.outcomes.withLock { $0 }
  }

  /// The addresses' answers, written by their threads.
  private final class Answers: Sendable {
    let outcomes = Mutex<[Key: Outcome]>([:])
  }

  /// One address's handshake: whether its certificate is `id`.
  func outcome(host: String, port: UInt16, id: Fingerprint) -> Outcome {
    let deadline = ContinuousClock.now + timeout
    do {
      let tcp = try Socket.connect(host: host, port: port, timeout: timeout)
      let tls = try TLSConnection.connect(tcp, context: context, timeout: max(.milliseconds(1), deadline - .now))
      let outcome: Outcome = tls.peerFingerprint == id ? .proved : .otherCertificate
      // close_notify first: the receiver then knows this was only a look at its certificate.
      tls.shutdown()
      tls.close()
      return outcome
    } catch {
      return .unreached
    }
  }
}
