import Foundation
import Glibc
import InboxStore
import LocalSend
import Synchronization
import System
import TLS
import Testing

@testable import ShareKit

/// The daemon's LocalSend side in process: a real LocalSendServer with `LocalSendGate`, sent to
/// by a real `LocalSendClient` over TLS on loopback.
@Suite(.serialized) struct LocalSendGateTests {
  /// A receiving home with LocalSend on a free loopback port.
  final class Receiving: Sendable {
    let home: TestHome
    let gatekeeper: Gatekeeper
    let service: LocalSendService
    let store: InboxStore
    let transfers = TransferTable()
    /// What the receiver reported (the daemon logs these and runs hooks on them).
    let reported = Reported()

    init(trusting contact: LocalSendFingerprint? = nil, askTimeout: Duration = .seconds(5), pin: LocalSendPin? = nil) throws {
      home = try TestHome(name: "lab-b")
      var trust = TrustStore()
      if let contact, let id = Fingerprint(bytes: contact.bytes) { trust.add(TrustedPeer(id: id, name: "phone")) }
      gatekeeper = Gatekeeper(mode: ModeSetting(mode: .everyone), trust: trust, askTimeout: askTimeout)
      store = try InboxStore(documents: home.device.paths.documents)
      let gate = try TypeGate.load(paths: home.device.paths)
      let reported = self.reported
      let context = LocalSendContext(
        store: store, reserve: DiskReserve(bytes: 0, store: store), gatekeeper: gatekeeper,
        policy: { ReceivePolicy(types: gate) }, emit: { event in reported.events.withLock { $0.append(event) } }, transfers: transfers)
      service = try LocalSendService(
        identity: home.device.identity, alias: "lab-b", host: "127.0.0.1",
        options: LocalSendOptions(port: 0, multicastInterface: nil, pin: pin), admission: ReceiverConfiguration(host: "127.0.0.1"),
        context: context, note: { _ in })
      service.start()
    }

    deinit { service.stop() }

    var target: LocalSendTarget { LocalSendTarget(host: "127.0.0.1", port: service.server.port) }
  }

  /// A LocalSend client presenting `home`'s certificate and claiming `claim` (its own by default).
  func client(_ home: TestHome, claiming claim: String? = nil, decisionTimeout: Duration = .seconds(10)) throws -> LocalSendClient {
    let own = try #require(LocalSendFingerprint(identity: home.device.identity))
    return try LocalSendClient(
      identity: home.device.identity,
      device: LocalSendDevice(alias: "phone", deviceModel: nil, deviceType: .mobile, fingerprint: claim ?? own.hex, port: 53317),
      decisionTimeout: decisionTimeout)
  }

  /// Review 26: 48 strangers' 4 MiB offers held 500 MB, read and parsed even where only
  /// contacts may send. The mode is asked before a body is read, and large offers share the ask
  /// budget while they are read and decided.
  @Test func offersAreAdmittedByModeBeforeTheirBodyAndLargeOnesShareTheAskBudget() throws {
    let home = try TestHome(name: "lab-b")
    let phone = try TestHome(name: "phone")
    let contact = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let stranger = try #require(LocalSendFingerprint(identity: try TestHome(name: "other").device.identity))
    var trust = TrustStore()
    trust.add(TrustedPeer(id: try #require(Fingerprint(bytes: contact.bytes)), name: "phone"))
    let gatekeeper = Gatekeeper(mode: ModeSetting(mode: .contacts), trust: trust)
    let store = try InboxStore(documents: home.device.paths.documents)
    let types = try TypeGate.load(paths: home.device.paths)
    let gate = LocalSendGate(
      context: LocalSendContext(
        store: store, reserve: DiskReserve(bytes: 0, store: store), gatekeeper: gatekeeper, policy: { ReceivePolicy(types: types) },
        emit: { _ in }))
    func admitted(_ certificate: LocalSendFingerprint?, _ length: Int) -> (@Sendable () -> Void)? {
      if case .proceed(let release) = gate.localSend(mayOffer: "127.0.0.1", certificate: certificate, length: length) { return release }
      return nil
    }
    func busy(_ certificate: LocalSendFingerprint?, _ length: Int) -> Bool {
      if case .busy = gate.localSend(mayOffer: "127.0.0.1", certificate: certificate, length: length) { return true }
      return false
    }
    // Only contacts: a stranger, with a certificate or without, is refused before its body.
    for certificate in [nil, stranger] {
      guard case .refuse(let reason) = gate.localSend(mayOffer: "127.0.0.1", certificate: certificate, length: 100) else {
        Issue.record("a stranger's offer was let in where only contacts may send")
        continue
      }
      #expect(reason.contains("only its contacts"))
    }
    #expect(admitted(contact, 100) != nil)
    // Everyone: strangers' large offers share 8 MiB; a contact's take its own budget.
    gatekeeper.set(mode: ModeSetting(mode: .everyone))
    let large = 4 << 20
    let held = (0..<(SessionContext.strangerAskBudget / large)).compactMap { _ in admitted(nil, large) }
    #expect(held.count == SessionContext.strangerAskBudget / large)
    #expect(busy(stranger, large))
    #expect(admitted(nil, SessionContext.smallAsk) != nil, "a small offer needs no share")
    let contactsOffer = try #require(admitted(contact, large))
    held.forEach { $0() }
    #expect(admitted(stranger, large) != nil, "released once decided")
    contactsOffer()
  }

  /// Found by an outside review: a stranger's offer whose client had hung up kept waiting, and
  /// the one LocalSend session with it, so every other sender got 409 until the ask timed out.
  @Test func anOfferWhoseClientHangsUpIsWithdrawnAndFreesTheSession() throws {
    let phone = try TestHome(name: "phone")
    let stranger = try TestHome(name: "stranger")
    let fingerprint = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let b = try Receiving(trusting: fingerprint, askTimeout: .seconds(120))
    let files = [FileOffer(id: "1", fileName: "note.txt", size: 3, fileType: "text/plain")]
    // It gives up after a second and closes its connection.
    let leaving = try client(stranger, decisionTimeout: .seconds(1))
    #expect(throws: LocalSendError.self) { try leaving.prepareUpload(files, to: b.target) }
    let deadline = ContinuousClock.now + .seconds(20)
    while !b.gatekeeper.pending.isEmpty && ContinuousClock.now < deadline { usleep(20_000) }
    #expect(b.gatekeeper.pending.isEmpty, "the ask is withdrawn when its client leaves, not after 120 s")
    // The contact's offer gets the session (not 409, "Blocked by another session").
    let outcome = try client(phone).prepareUpload(files, to: b.target)
    guard case .session = outcome else { throw TestFailure("the contact was not let in: \(outcome)") }
  }

  /// Found by an outside review: a stranger's offer that stayed connected held the one
  /// LocalSend session while it waited for the owner, so a contact's offer got 409 ("Blocked by
  /// another session") until the ask timed out. Offers now wait side by side; the active session
  /// is taken only when one is accepted.
  @Test func aStrangersWaitingOfferDoesNotBlockAContactAndIsTold409IfAcceptedDuringItsSession() throws {
    let phone = try TestHome(name: "phone")
    let stranger = try TestHome(name: "stranger")
    let fingerprint = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let b = try Receiving(trusting: fingerprint, askTimeout: .seconds(120))
    let text = Array("from the phone\n".utf8)
    let files = [FileOffer(id: "1", fileName: "note.txt", size: Int64(text.count), fileType: "text/plain")]
    // The stranger offers from another host (127.0.0.2) and stays connected, waiting.
    let waiting = try Self.rawPrepareUpload(files, from: stranger, source: "127.0.0.2", port: b.service.server.port)
    let deadline = ContinuousClock.now + .seconds(10)
    while b.gatekeeper.pending.isEmpty && ContinuousClock.now < deadline { usleep(10_000) }
    let ask = try #require(b.gatekeeper.pending.first, "the stranger's offer waits for the owner")
    // The contact is let in meanwhile, and its session is active.
    guard case .session(let session) = try client(phone).prepareUpload(files, to: b.target) else {
      throw TestFailure("the contact was blocked by a stranger's waiting offer")
    }
    // Accepted while the contact's session is active: the stranger is told 409, nothing is kept.
    #expect(b.gatekeeper.decide(ask.id, accept: true) != nil)
    let reply = try Self.readReply(waiting)
    #expect(reply.hasPrefix("HTTP/1.1 409"), "\(reply)")
    #expect(b.transfers.all.count == 1, "only the contact's session is a transfer: \(b.transfers.all)")
    try client(phone).upload(
      files[0], from: BytesSource(text), session: session.sessionId, token: try #require(session.files["1"]), to: b.target)
    #expect(b.home.inboxNames() == ["note.txt"])
    #expect(b.transfers.all.isEmpty)
  }

  /// The attacker's version: nine strangers (identities minted for it) on nine addresses each
  /// keep an offer waiting — more than a cap of eight, as first built, would have let in; a
  /// contact's offer still gets its session.
  @Test func strangersOnManyAddressesWaitingDoNotTurnAContactAway() throws {
    let phone = try TestHome(name: "phone")
    let fingerprint = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let b = try Receiving(trusting: fingerprint, askTimeout: .seconds(120))
    let files = [FileOffer(id: "1", fileName: "note.txt", size: 3, fileType: "text/plain")]
    let waiting = try (3...11).map { index in
      let stranger = try TestHome(name: "stranger-\(index)")
      return try Self.rawPrepareUpload(files, from: stranger, source: "127.0.0.\(index)", port: b.service.server.port)
    }
    let deadline = ContinuousClock.now + .seconds(10)
    while b.gatekeeper.pending.count < waiting.count && ContinuousClock.now < deadline { usleep(10_000) }
    #expect(b.gatekeeper.pending.count == waiting.count, "every stranger's offer waits for the owner")
    guard case .session = try client(phone).prepareUpload(files, to: b.target) else {
      throw TestFailure("the contact was turned away by strangers' waiting offers")
    }
    for connection in waiting { connection.close() }
  }

  /// `POST /prepare-upload` by hand over TLS (as `home`), from the loopback source address
  /// `source`, with `?pin=` if given; the reply is left to read.
  static func rawPrepareUpload(
    _ files: [FileOffer], from home: TestHome, source: String, port: UInt16, pin: String? = nil
  ) throws -> TLSConnection {
    let own = try #require(LocalSendFingerprint(identity: home.device.identity))
    let device = LocalSendDevice(alias: "visitor", deviceModel: nil, deviceType: .mobile, fingerprint: own.hex, port: 53317)
    let body = try JSONEncoder().encode(
      PrepareUploadRequest(info: device, files: Dictionary(uniqueKeysWithValues: files.map { ($0.id, $0) })))
    let head =
      "POST /api/localsend/v2/prepare-upload\(pin.map { "?pin=\($0)" } ?? "") HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
      + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    func address(_ host: String, _ port: UInt16) -> sockaddr_in {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      inet_pton(AF_INET, host, &address.sin_addr)
      return address
    }
    var local = address(source, 0)
    var remote = address("127.0.0.1", port)
    let length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let connected =
      withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } } == 0
      && withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } } == 0
    guard connected else {
      close(fd)
      throw TestFailure("connect from \(source): errno \(errno)")
    }
    let tls = try TLSConnection.connect(
      try Socket(adopting: fd), context: try TLSContext(identity: home.device.identity, role: .client), timeout: .seconds(5))
    try tls.write(Array(head.utf8) + Array(body))
    return tls
  }

  /// What the server answered on `tls`, as text, up to the end of its head and a little more.
  static func readReply(_ tls: TLSConnection) throws -> String {
    try tls.setIdleTimeout(.seconds(10))
    var bytes = [UInt8](repeating: 0, count: 4096)
    let count = try bytes.withUnsafeMutableBytes { try tls.read(into: $0) }
    return String(decoding: bytes[..<count], as: UTF8.self)
  }

  @Test func aSenderWhoseCertificateProvesAContactsFingerprintIsNotAskedAndItsFileLandsWithProvenance() throws {
    let phone = try TestHome(name: "phone")
    let fingerprint = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let b = try Receiving(trusting: fingerprint)
    let text = Array("a note from a contact\n".utf8)
    let files = [
      FileOffer(id: "1", fileName: "note.txt", size: Int64(text.count), fileType: "text/plain"),
      FileOffer(id: "2", fileName: "tool.exe", size: 3, fileType: "application/x-msdownload"),
    ]
    let outcome = try client(phone).prepareUpload(files, to: b.target)
    guard case .session(let session) = outcome else { throw TestFailure("no session: \(outcome)") }
    #expect(Set(session.files.keys) == ["1"], "the .exe is refused by its name and gets no token")
    #expect(b.gatekeeper.pending.isEmpty, "a contact is not asked")
    #expect(b.transfers.all.map(\.bytesExpected) == [Int64(text.count)], "share status shows the session")
    try client(phone).upload(
      files[0], from: BytesSource(text), session: session.sessionId, token: try #require(session.files["1"]), to: b.target)
    #expect(b.home.inboxNames() == ["note.txt"])
    #expect(b.transfers.all.isEmpty, "its last file ended the session")
    let item = try #require(b.store.list().first)
    #expect(item.metadata?.protocol == "localsend")
    #expect(item.metadata?.senderVerified == true)
    #expect(item.metadata?.senderId == Fingerprint(bytes: fingerprint.bytes)?.hex)
    #expect(item.metadata?.senderName == "phone")
    let stored = b.reported.storedBy
    #expect(stored.map(\.verified) == [true] && stored.first?.fingerprint == Fingerprint(bytes: fingerprint.bytes))
  }

  /// Found by an outside review: a claimed contact fingerprint reached `SHARE_SENDER_ID` and the
  /// log as the sender's ID. The events name it by its random gate ID, marked unverified.
  @Test func anAcceptedClaimIsNeverReportedAsTheContactsID() throws {
    let phone = try TestHome(name: "phone")
    let impostor = try TestHome(name: "impostor")
    let fingerprint = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let b = try Receiving(trusting: fingerprint)
    let text = Array("hi\n".utf8)
    let files = [FileOffer(id: "1", fileName: "note.txt", size: Int64(text.count), fileType: "text/plain")]
    let sender = try client(impostor, claiming: fingerprint.hex)
    let gatekeeper = b.gatekeeper
    let accepter = Thread {
      let deadline = ContinuousClock.now + .seconds(5)
      while gatekeeper.pending.isEmpty && ContinuousClock.now < deadline { usleep(10_000) }
      if let ask = gatekeeper.pending.first { _ = gatekeeper.decide(ask.id, accept: true) }
    }
    accepter.start()
    guard case .session(let session) = try sender.prepareUpload(files, to: b.target) else { throw TestFailure("no session") }
    try sender.upload(
      files[0], from: BytesSource(text), session: session.sessionId, token: try #require(session.files["1"]), to: b.target)
    let item = try #require(b.store.list().first)
    #expect(item.metadata?.senderVerified == false && item.metadata?.senderId == fingerprint.hex, "the claim is kept, marked")
    let stored = b.reported.storedBy
    let peer = try #require(stored.first)
    #expect(!peer.verified && peer.fingerprint != Fingerprint(bytes: fingerprint.bytes), "\(peer)")
    let variables = ArrivalHooks.environment(
      path: "/x", name: "note.txt", originalName: "note.txt", kind: "file", size: 3, type: nil, sha256: nil,
      senderName: peer.name.unescaped, senderID: peer.verified ? peer.fingerprint.hex : nil)
    #expect(variables["SHARE_SENDER_ID"] == "" && variables["SHARE_SENDER_VERIFIED"] == "0")
  }

  @Test func aSenderClaimingAContactsFingerprintWithoutItsCertificateIsAStrangerAndWaits() throws {
    let phone = try TestHome(name: "phone")
    let impostor = try TestHome(name: "impostor")
    let fingerprint = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let b = try Receiving(trusting: fingerprint)
    let files = [FileOffer(id: "1", fileName: "note.txt", size: 3, fileType: "text/plain")]
    let answer = Mutex<Result<LocalSendClient.PrepareOutcome, LocalSendError>?>(nil)
    let sender = try client(impostor, claiming: fingerprint.hex)
    let target = b.target
    let thread = Thread {
      let result: Result<LocalSendClient.PrepareOutcome, LocalSendError>
      do throws(LocalSendError) { result = .success(try sender.prepareUpload(files, to: target)) } catch { result = .failure(error) }
      answer.withLock { $0 = result }
    }
    thread.start()
    let deadline = ContinuousClock.now + .seconds(5)
    while b.gatekeeper.pending.isEmpty && ContinuousClock.now < deadline { usleep(10_000) }
    let ask = try #require(b.gatekeeper.pending.first, "a claim is not proof: the offer waits for the owner")
    #expect(ask.peerName.unescaped == "phone (LocalSend, unverified)")
    #expect(ask.peerId != Fingerprint(bytes: fingerprint.bytes)?.hex, "the gatekeeper never sees the claimed ID")
    #expect(ask.unverified == true && ask.whyNotTrusted?.contains("proved no identity") == true, "no --trust for a claim")
    // Its alias is the contact's name, too: both are said (review 13).
    #expect(ask.posedAsId == Fingerprint(bytes: fingerprint.bytes)?.hex)
    #expect(ask.warning?.contains("NOT your contact") == true && ask.warning?.contains("proved no identity") == true, "\(ask)")
    // The ID it claims is said with the ask, as the Inbox records it (review 22).
    #expect(ask.claimedId == fingerprint.hex && ask.warning?.contains("claims ID \(fingerprint.hex.prefix(12))") == true, "\(ask)")
    #expect(try JSONCoding.decoder().decode(PendingAsk.self, from: JSONCoding.encoder().encode(ask)).claimedId == ask.claimedId)
    #expect(b.gatekeeper.decide(ask.id, accept: false) != nil)
    while answer.withLock({ $0 }) == nil && ContinuousClock.now < deadline + .seconds(5) { usleep(10_000) }
    guard case .failure(.rejected) = answer.withLock({ $0 }) else {
      throw TestFailure("expected a 403, got \(String(describing: answer.withLock { $0 }))")
    }
    #expect(b.home.inboxNames().isEmpty)
  }

  /// Found by review 13: the contact-name check compared "phone (LocalSend)" with the contacts'
  /// names, so a stranger with a certificate of its own and a contact's alias was not marked,
  /// and `share accept --trust` made it a second contact of that name.
  @Test func aStrangerWithItsOwnCertificateAndAContactsAliasIsMarkedAndCannotBeTrustedUnderIt() throws {
    let phone = try TestHome(name: "phone")
    let stranger = try TestHome(name: "stranger")
    let contact = try #require(LocalSendFingerprint(identity: phone.device.identity))
    let b = try Receiving(trusting: contact)
    let sender = try client(stranger)
    let target = b.target
    let thread = Thread {
      _ = try? sender.prepareUpload([FileOffer(id: "1", fileName: "note.txt", size: 3, fileType: "text/plain")], to: target)
    }
    thread.start()
    let deadline = ContinuousClock.now + .seconds(5)
    while b.gatekeeper.pending.isEmpty && ContinuousClock.now < deadline { usleep(10_000) }
    let ask = try #require(b.gatekeeper.pending.first, "a stranger's offer waits for the owner")
    #expect(ask.peerName.unescaped == "phone (LocalSend)" && ask.unverified == nil)
    #expect(ask.posedAsId == Fingerprint(bytes: contact.bytes)?.hex, "\(ask)")
    // Named by the contact's own name, the sender's beside it (review 14).
    #expect(ask.posedAs?.unescaped == "phone" && ask.contactName == nil, "\(ask)")
    #expect(ask.warning?.hasPrefix("warning: NOT your contact phone (") == true, "\(ask)")
    #expect(ask.warning?.hasSuffix("a name like it (phone (LocalSend))") == true, "\(ask)")
    #expect(ask.whyNotTrusted?.hasPrefix("your contact named phone has ID") == true, "\(ask)")
    #expect(ask.whyNotTrusted?.contains("another device") == true, "\(ask)")
    #expect(b.gatekeeper.decide(ask.id, accept: false) != nil)
  }

  @Test func multicastSettingsParseAndAutoFollowsAnIPv4Host() {
    #expect(MulticastSetting("off") == .off)
    #expect(MulticastSetting("auto") == .auto)
    #expect(MulticastSetting("192.168.1.20") == .interface("192.168.1.20"))
    #expect(MulticastSetting("eth0") == nil)
    #expect(MulticastSetting.auto.resolve(host: "127.0.0.1") == "127.0.0.1")
    #expect(MulticastSetting.off.resolve(host: "127.0.0.1") == nil)
    let options = LocalSendOptions(port: 0, multicast: .auto, host: "127.0.0.1")
    #expect(options.multicastPort == LocalSendProtocol.defaultPort, "port 0 is the kernel's: multicast stays on 53317")
  }

  @Test func aPinIsPrintableBoundedAndNeverDescribed() throws {
    #expect(try LocalSendPin("271828").value == "271828")
    #expect(try LocalSendPin("Åb-42!").value == "Åb-42!")
    #expect(try LocalSendPin(String(repeating: "9", count: LocalSendPin.maxBytes)).value.count == 64)
    #expect(throws: LocalSendPin.Problem.empty) { try LocalSendPin("") }
    #expect(throws: LocalSendPin.Problem.tooLong(bytes: 65)) { try LocalSendPin(String(repeating: "9", count: 65)) }
    #expect(throws: LocalSendPin.Problem.tooLong(bytes: 66)) { try LocalSendPin(String(repeating: "é", count: 33)) }
    for bad in ["12 34", " 1234", "1234\n", "12\u{7}", "12\u{200B}34", "12\u{A0}34", "\u{E000}"] {
      #expect(throws: LocalSendPin.Problem.notPrintable) { try LocalSendPin(bad) }
    }
    let pin = try LocalSendPin("271828")
    #expect(!"\(pin)".contains("2718") && !String(reflecting: pin).contains("2718"))
    #expect(try LocalSendPin(settings: Settings()) == nil)
    var settings = Settings()
    settings.localsendPin = "x y"
    #expect(throws: ShareError.self) { try LocalSendPin(settings: settings) }
  }

  @Test func aTargetNamesOneHeardDeviceByAliasOrFingerprintPrefixAndShareDaemonsAreMarked() {
    let nearby = LocalSendNearby()
    let device = { (alias: String, fingerprint: String, model: String?) in
      LocalSendDevice(alias: alias, deviceModel: model, deviceType: .mobile, fingerprint: fingerprint, port: 53317)
    }
    nearby.heard(device("pixel", String(repeating: "ab", count: 32), "Pixel"), from: "192.168.1.5")
    nearby.heard(device("twin", String(repeating: "cd", count: 32), nil), from: "192.168.1.6")
    nearby.heard(device("twin", String(repeating: "ce", count: 32), nil), from: "192.168.1.7")
    nearby.heard(device("lab-c", String(repeating: "ef", count: 32), LocalSendPeer.shareModel), from: "192.168.1.8")
    var http = device("old", String(repeating: "11", count: 32), nil)
    http.scheme = .http
    nearby.heard(http, from: "192.168.1.9")
    let peers = nearby.current()
    #expect(peers.count == 4, "an HTTP-only device is not kept")
    #expect(LocalSendMatch.of("pixel", in: peers, remembered: nil).peer?.address == "192.168.1.5")
    #expect(
      LocalSendMatch.of("twin", in: peers, remembered: nil) == .ambiguous(devices: 2, byPrefix: false), "two devices share that alias")
    #expect(LocalSendMatch.of("cececece", in: peers, remembered: nil).peer?.address == "192.168.1.7")
    #expect(LocalSendMatch.of("abab", in: peers, remembered: nil) == .none, "a prefix needs 8 digits")
    #expect(peers.first { $0.alias == "lab-c" }?.isShare == true)
  }

  @Test func aConnectionProvenWithoutAHelloTakesAnAuthenticatedSlot() {
    var admission = Admission(
      limits: Admission.Limits(
        maxUnauthenticatedPerAddress: 2, maxUnauthenticated: 4, maxConnectionsPerAddress: 1, maxConnections: 4,
        contactReserve: 0))
    guard case .admitted(let first, _) = admission.arrive(address: "a", port: 1, now: .now),
      case .admitted(let second, _) = admission.arrive(address: "a", port: 2, now: .now)
    else {
      Issue.record("not admitted")
      return
    }
    #expect(admission.proven(first)?.refusal == nil)
    #expect(!admission.isUnauthenticated(first))
    #expect(admission.proven(second)?.refusal != nil, "one authenticated connection per address")
  }
}

/// A test that cannot go on, and why.
struct TestFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Events a receiver reported, kept for a test to read.
final class Reported: Sendable {
  let events = Mutex<[ReceiverEvent]>([])

  /// Who each stored item came from, as the events say.
  var storedBy: [PeerInfo] {
    events.withLock { $0 }.compactMap { event -> PeerInfo? in
      if case .stored(let peer, _, _, _, _, _) = event { return peer } else { return nil }
    }
  }
}
