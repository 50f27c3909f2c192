import Foundation
import LocalSend
import Synchronization
import System
import TLS
import Testing

@testable import ShareKit

/// The LocalSend devices the daemon heard, and which of them a `--to` names. Anyone may claim
/// any fingerprint from anywhere with one `/register`; review 31 found that a stranger claiming
/// a phone's fingerprint first owned it (the phone was ignored and sends went to the stranger),
/// and that 16 addresses claiming 16 fingerprints each filled the table so no phone was heard.
@Suite struct LocalSendNearbyTests {
  static let phone = String(repeating: "ab", count: 32)

  static func device(_ alias: String, _ fingerprint: String, port: Int = 53317) -> LocalSendDevice {
    LocalSendDevice(alias: alias, deviceModel: nil, deviceType: .mobile, fingerprint: fingerprint, port: port)
  }

  @Test func aFingerprintClaimedFirstFromAnotherAddressDoesNotHideTheDevicesOwnClaim() {
    let nearby = LocalSendNearby()
    let start = Date()
    nearby.heard(Self.device("phone", Self.phone, port: 47643), from: "192.0.2.3", at: start)
    nearby.heard(Self.device("phone", Self.phone, port: 47642), from: "192.0.2.2", at: start + 1)
    let heard = nearby.current(at: start + 2)
    #expect(heard.map(\.address) == ["192.0.2.2", "192.0.2.3"], "both claims are kept, newest first")
    guard case .device(let peer, let claims, let pin) = LocalSendMatch.of("phone", in: heard, remembered: nil) else {
      Issue.record("the alias names one device")
      return
    }
    #expect(peer.address == "192.0.2.2")
    #expect(pin == "localsend:phone", "an alias sent to is pinned")
    #expect(
      LocalSendMatch.of(String(Self.phone.prefix(12)), in: heard, remembered: nil).endpoint?.rememberAs == nil, "a prefix pins nothing")
    #expect(claims.map(\.address) == ["192.0.2.2", "192.0.2.3"], "a send tries every address claiming the fingerprint")
    #expect(LocalSendMatch.of(String(Self.phone.prefix(12)), in: heard, remembered: nil).peer != nil, "and so does its prefix")
    let endpoint = Endpoint(localSend: peer, claims: claims)
    #expect(endpoint.candidates.map(\.address) == ["192.0.2.2:47642", "192.0.2.3:47643"])
    // Each claim is marked, naming the other address.
    #expect(heard[0].contested(in: heard) == "unverified: its fingerprint is also claimed from 192.0.2.3:47643")
    #expect(heard[1].contested(in: heard) == "unverified: its fingerprint is also claimed from 192.0.2.2:47642")
    #expect(heard[0].contested(in: [heard[0]]) == nil)
  }

  @Test func aFullTableMakesRoomFromTheAddressHoldingTheMostNeverFromALonePhone() {
    let nearby = LocalSendNearby()
    let start = Date()
    var tick = 0.0
    func flood(from hosts: Range<Int>) {
      for host in hosts {
        for index in 0..<LocalSendNearby.maxPeersPerAddress {
          tick += 1
          nearby.heard(
            Self.device("tv-\(host)-\(index)", String(format: "%064x", host * 100 + index)), from: "198.51.100.\(host)", at: start + tick)
        }
      }
    }
    flood(from: 0..<16)
    #expect(nearby.current(at: start + tick).count == LocalSendNearby.maxPeers)
    tick += 1
    nearby.heard(Self.device("phone", Self.phone), from: "192.0.2.2", at: start + tick)
    #expect(nearby.current(at: start + tick).contains { $0.alias == "phone" }, "the phone is heard in a full table")
    // More addresses flooding push out one another's claims, never the phone's.
    flood(from: 16..<40)
    let heard = nearby.current(at: start + tick)
    #expect(heard.count == LocalSendNearby.maxPeers)
    #expect(heard.contains { $0.alias == "phone" })
    #expect(Dictionary(grouping: heard, by: \.address).values.allSatisfy { $0.count <= LocalSendNearby.maxPeersPerAddress })
  }

  /// Review 34: a claim of a pinned alias with another fingerprint (made to start as the
  /// phone's) was listed unmarked, in a row like the phone's.
  @Test func aClaimOfAPinnedAliasWithAnotherFingerprintIsMarked() throws {
    let nearby = LocalSendNearby()
    let start = Date()
    let lookalike = String(Self.phone.prefix(24)) + String(repeating: "99", count: 20)
    nearby.heard(Self.device("Pixel", Self.phone), from: "192.0.2.2", at: start)
    nearby.heard(Self.device("pixel", lookalike), from: "192.0.2.3", at: start + 1)
    let pinned = try #require(Fingerprint(hex: Self.phone))
    let book = PeerRecords.book(sentTo: ["localsend:pixel": pinned])
    let marks = nearby.current(at: start + 2).map { ($0.address, $0.notPinned(book: book)) }
    #expect(marks.first { $0.0 == "192.0.2.2" }?.1 == nil)
    #expect(marks.first { $0.0 == "192.0.2.3" }?.1?.contains("not the device this home knows as pixel") == true, "\(marks)")
  }

  @Test func anAliasSeveralFingerprintsClaimNamesTheRememberedOneElseNone() throws {
    let nearby = LocalSendNearby()
    let start = Date()
    let other = String(repeating: "cd", count: 32)
    nearby.heard(Self.device("phone", Self.phone), from: "192.0.2.2", at: start)
    nearby.heard(Self.device("phone", other), from: "192.0.2.3", at: start + 1)
    let heard = nearby.current(at: start + 2)
    #expect(LocalSendMatch.of("phone", in: heard, remembered: nil) == .ambiguous(devices: 2, byPrefix: false))
    let pinned = try #require(Fingerprint(hex: Self.phone))
    #expect(LocalSendMatch.of("phone", in: heard, remembered: pinned).peer?.address == "192.0.2.2")
    let unknown = try #require(Fingerprint(hex: String(repeating: "ef", count: 32)))
    #expect(LocalSendMatch.of("phone", in: heard, remembered: unknown) == .ambiguous(devices: 2, byPrefix: false))
    #expect(LocalSendMatch.of("cdcdcdcd", in: heard, remembered: nil).peer?.address == "192.0.2.3")
    #expect(LocalSendMatch.of("tablet", in: heard, remembered: nil) == .none)
    // A prefix both fingerprints start with names neither, and says so (review 34).
    let twin = String(Self.phone.prefix(8))
    nearby.heard(Self.device("tablet", twin + String(repeating: "0", count: 56)), from: "192.0.2.4", at: start + 1)
    #expect(LocalSendMatch.of(twin, in: nearby.current(at: start + 2), remembered: nil) == .ambiguous(devices: 2, byPrefix: true))
  }

  /// The delivery: a squatter's address that refuses connections and another device's (its own
  /// certificate) are tried first, and the file lands on the device whose certificate proves
  /// the fingerprint, at the third address.
  /// Review 47: a send told the device 53317 whatever port this home's receiver listens on.
  @Test func aSendTellsTheDeviceThePortThisHomeReceivesOn() throws {
    let a = try TestHome(name: "lab-a")
    #expect(try LocalSendDelivery(device: a.device).announcedPort == Int(LocalSendProtocol.defaultPort))
    var settings = try Settings.load(from: a.device.paths.settings)
    settings.localsendPort = 47_082
    try settings.save(to: a.device.paths.settings)
    #expect(try LocalSendDelivery(device: a.device).announcedPort == 47_082)
  }

  /// ... and the running daemon's port when it was given one of its own (`--localsend-port`).
  @Test func aSendTellsTheDeviceTheRunningDaemonsPort() throws {
    let a = try TestHome(name: "lab-a")
    var options = DaemonOptions()
    options.configuration = ReceiverConfiguration(host: "127.0.0.1")
    options.mode = ModeSetting(mode: .off)
    options.localSend = LocalSendOptions(port: 0, multicastInterface: nil, pin: nil)
    let daemon = try Daemon(paths: a.device.paths, options: options, events: { _ in }, note: { _ in })
    try daemon.start()
    defer { daemon.stop() }
    let port = try #require(daemon.status.localsend?.port)
    #expect(port != LocalSendProtocol.defaultPort)
    #expect(try LocalSendDelivery(device: a.device).announcedPort == Int(port))
  }

  @Test func aSendTriesEachAddressClaimingTheFingerprintUntilOneProvesIt() throws {
    let a = try TestHome(name: "lab-a")
    let sender = try #require(LocalSendFingerprint(identity: a.device.identity))
    let phone = try LocalSendGateTests.Receiving(trusting: sender)
    let impostor = try LocalSendGateTests.Receiving(trusting: sender)
    let proven = try #require(LocalSendFingerprint(identity: phone.home.device.identity))
    let start = Date()
    func claim(_ address: String, _ port: UInt16, _ age: Double) -> LocalSendPeer {
      LocalSendPeer(
        alias: "phone", fingerprint: PeerText(proven.hex.uppercased()), address: address, port: port, deviceModel: nil,
        deviceType: nil, heardAt: start - age)
    }
    let claims = [
      claim("127.0.0.2", phone.service.server.port, 1), claim("127.0.0.1", impostor.service.server.port, 2),
      claim("127.0.0.1", phone.service.server.port, 3),
    ]
    let events = Mutex<[SendEvent]>([])
    let items = try OutgoingItem.files([a.file("hello.txt", Array("hi".utf8)).path])
    let report = try LocalSendDelivery(device: a.device).send(
      items, to: Endpoint(localSend: claims[0], claims: claims), peer: claims[0]
    ) { event in events.withLock { $0.append(event) } }
    #expect(report.items.map(\.status) == [.stored], "\(report)")
    #expect(report.address == "127.0.0.1:\(phone.service.server.port)")
    #expect(phone.home.inboxNames() == ["hello.txt"])
    #expect(impostor.home.inboxNames().isEmpty)
    let waiting = events.withLock { $0 }.filter { if case .waiting = $0 { true } else { false } }
    #expect(waiting.count == 1, "said once, when the phone proved itself")
  }
  /// Review 34: a stranger claims its own fingerprint under a phone's alias too; a send to it by
  /// fingerprint prefix must not remember that alias for it (later sends to "alice-phone" went
  /// to the stranger), and it is named as the address that proved it calls itself.
  @Test func aSendByFingerprintPrefixPinsNoAliasAndNamesTheDeviceAsItsProvenAddressDoes() throws {
    let a = try TestHome(name: "lab-a")
    let sender = try #require(LocalSendFingerprint(identity: a.device.identity))
    let stranger = try LocalSendGateTests.Receiving(trusting: sender)
    let fingerprint = try #require(LocalSendFingerprint(identity: stranger.home.device.identity)).hex.uppercased()
    let start = Date()
    let closed = try TCPListener(host: "127.0.0.1", port: 0)
    let unused = closed.port
    closed.close()
    let claims = [
      LocalSendPeer(
        alias: "alice-phone", fingerprint: PeerText(fingerprint), address: "127.0.0.1", port: unused, deviceModel: nil,
        deviceType: nil, heardAt: start),
      LocalSendPeer(
        alias: "mallory", fingerprint: PeerText(fingerprint), address: "127.0.0.1", port: stranger.service.server.port,
        deviceModel: nil, deviceType: nil, heardAt: start - 1),
    ]
    let match = LocalSendMatch.of(String(fingerprint.prefix(12)), in: claims, remembered: nil)
    let (endpoint, peer) = (try #require(match.endpoint), try #require(match.peer))
    #expect(peer.alias == "alice-phone", "the newest claim")
    let connected = Mutex<[String]>([])
    let items = try OutgoingItem.files([a.file("hello.txt", Array("hi".utf8)).path])
    let report = try LocalSendDelivery(device: a.device).send(items, to: endpoint, peer: peer) { event in
      if case .connected(let name, _, _) = event { connected.withLock { $0.append(name.unescaped) } }
    }
    #expect(report.items.map(\.status) == [.stored], "\(report)")
    #expect(connected.withLock { $0 } == ["mallory"])
    let (known, _) = Contacts(paths: a.device.paths).remembered()
    #expect(known.id(for: "localsend:alice-phone") == nil && known.id(for: "localsend:mallory") == nil)
  }
  /// Review 34: the addresses claiming a fingerprint were tried one at a time, each up to 10 s to
  /// connect and 10 s to shake hands: twelve claims at a listener that never answers made a 1 s
  /// send take two minutes. They are tried at once now, so the file lands while the silent
  /// address's handshake is still waiting (its connection still open when the send is done).
  @Test func aSilentAddressClaimingTheFingerprintDoesNotHoldTheSendUp() throws {
    let a = try TestHome(name: "lab-a")
    let sender = try #require(LocalSendFingerprint(identity: a.device.identity))
    let phone = try LocalSendGateTests.Receiving(trusting: sender)
    let proven = try #require(LocalSendFingerprint(identity: phone.home.device.identity))
    let silent = try TCPListener(host: "127.0.0.1", port: 0)
    defer { silent.close() }
    let accepted = Mutex<[Socket]>([])
    Thread { while let socket = try? silent.accept() { accepted.withLock { $0.append(socket) } } }.start()
    let start = Date()
    let claims = [silent.port, phone.service.server.port].enumerated().map { index, port in
      LocalSendPeer(
        alias: "phone", fingerprint: PeerText(proven.hex.uppercased()), address: "127.0.0.1", port: port, deviceModel: nil,
        deviceType: nil, heardAt: start - Double(index))
    }
    let items = try OutgoingItem.files([a.file("hello.txt", Array("hi".utf8)).path])
    let report = try LocalSendDelivery(device: a.device).send(items, to: Endpoint(localSend: claims[0], claims: claims), peer: claims[0]) {
      _ in
    }
    #expect(report.items.map(\.status) == [.stored], "\(report)")
    #expect(phone.home.inboxNames() == ["hello.txt"])
    // The silent address was tried, and its handshake is still waiting: not tried first and
    // given up on before the phone was.
    let open = accepted.withLock { sockets in
      sockets.contains { socket in
        // Its ClientHello read away, an open connection has nothing more; a closed one says EOF.
        let waiting = try? socket.withDescriptor { fd throws(Errno) in
          var bytes = [UInt8](repeating: 0, count: 4096)
          while true {
            let count = recv(fd, &bytes, bytes.count, Int32(MSG_DONTWAIT))
            if count > 0 { continue }
            return count == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)
          }
        }
        return waiting == true
      }
    }
    #expect(accepted.withLock { !$0.isEmpty } && open, "the silent address's connection was closed before the send was done")
  }
}
