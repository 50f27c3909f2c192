import Foundation
import TLS
import Testing

@testable import LocalSend

/// Field names exactly as the protocol defines them, and every field from the network checked.
@Suite struct MessageTests {
  func json(_ value: some Encodable) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
  }

  let device = LocalSendDevice(alias: "Nice Orange", deviceModel: "Samsung", deviceType: .mobile, fingerprint: "F", port: 53317)

  @Test func deviceFieldsAreNamedAsInTheDocument() throws {
    let object = try json(device)
    #expect(Set(object.keys) == ["alias", "version", "deviceModel", "deviceType", "fingerprint", "port", "protocol", "download"])
    #expect(object["protocol"] as? String == "https")
    #expect(object["version"] as? String == "2.1")
    let announce = try json(MulticastMessage(device: device, announce: true))
    #expect(announce["announce"] as? Bool == true)
    let info = try json(device.info)
    #expect(Set(info.keys) == ["alias", "version", "deviceModel", "deviceType", "fingerprint", "download"])
  }

  @Test func optionalFieldsDefaultAsTheDocumentSays() throws {
    let text = #"{"alias":"A","version":"2.0","fingerprint":"x","port":1,"protocol":"http","deviceType":"fridge"}"#
    let decoded = try Validation.decode(LocalSendDevice.self, from: Array(text.utf8), limit: 1000)
    #expect(decoded.download == false)
    #expect(decoded.deviceType == .desktop, "unknown device types read as desktop (§7.1)")
    #expect(decoded.deviceModel == nil)
    let legacy = #"{"alias":"A","version":"2.0","fingerprint":"x","port":1,"protocol":"http","announcement":true}"#
    #expect(try Validation.decode(MulticastMessage.self, from: Array(legacy.utf8), limit: 1000).announce)
  }

  @Test func missingOrMistypedFieldsAreNamed() {
    #expect(throws: InvalidField("protocol", "missing")) {
      try Validation.decode(
        LocalSendDevice.self, from: Array(#"{"alias":"A","version":"2.0","fingerprint":"x","port":1}"#.utf8), limit: 1000)
    }
    #expect(throws: InvalidField("port", "wrong type")) {
      try Validation.decode(
        LocalSendDevice.self, from: Array(#"{"alias":"A","version":"2.0","fingerprint":"x","port":"1","protocol":"https"}"#.utf8),
        limit: 1000)
    }
    #expect(throws: InvalidField("body", "not JSON")) { try Validation.decode(LocalSendDevice.self, from: Array("{".utf8), limit: 1000) }
    #expect(throws: InvalidField("body", "longer than 3 bytes")) {
      try Validation.decode(LocalSendDevice.self, from: Array("{  }".utf8), limit: 3)
    }
  }

  func offer(_ file: FileOffer, key: String? = nil) -> PrepareUploadRequest {
    PrepareUploadRequest(info: device, files: [key ?? file.id: file])
  }

  func problem(_ request: PrepareUploadRequest) -> InvalidField? {
    do {
      try Validation.check(request, limits: .default)
      return nil
    } catch {
      return error
    }
  }

  @Test func offeredFilesAreValidatedFieldByField() {
    let good = FileOffer(id: "a", fileName: "dir/photo.jpg", size: 10, fileType: "image/jpeg", sha256: String(repeating: "ab", count: 32))
    #expect(problem(offer(good)) == nil)
    var bad = good
    bad.fileName = "../etc/passwd"
    #expect(problem(offer(bad))?.reason == "not a relative path")
    bad.fileName = "/abs"
    #expect(problem(offer(bad))?.reason == "not a relative path")
    bad.fileName = "a\u{1B}[31m.jpg"
    #expect(problem(offer(bad))?.reason == "contains a control character")
    bad.fileName = ""
    #expect(problem(offer(bad))?.reason == "empty")
    bad = good
    bad.size = -1
    #expect(problem(offer(bad))?.field == "files[a].size")
    bad = good
    bad.sha256 = "*sha256 hash*"
    #expect(problem(offer(bad))?.reason == "not 64 hex digits")
    #expect(problem(offer(good, key: "b"))?.reason == "differs from its key")
    bad = good
    bad.metadata = FileMetadata(modified: "yesterday at noon")
    #expect(problem(offer(bad))?.reason == "not an ISO 8601 time")
    #expect(problem(PrepareUploadRequest(info: device, files: [:]))?.reason == "empty")
    var wrongPort = device
    wrongPort.port = 70000
    #expect(problem(PrepareUploadRequest(info: wrongPort, files: ["a": good]))?.field == "info.port")
    var version = device
    version.version = "two"
    #expect(problem(PrepareUploadRequest(info: version, files: ["a": good]))?.field == "info.version")
  }

  @Test func tooManyFilesAreRefused() {
    let files = Dictionary(
      uniqueKeysWithValues: (0..<5).map { ("f\($0)", FileOffer(id: "f\($0)", fileName: "x\($0)", size: 1, fileType: "")) })
    #expect(throws: InvalidField("files", "more than 4")) {
      try Validation.check(PrepareUploadRequest(info: device, files: files), limits: LocalSendLimits(maxFiles: 4))
    }
  }

  @Test func theFingerprintIsTheSHA256OfTheWholeCertificate() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let identity = try makeIdentity(in: directory, name: "device")
    let fingerprint = try #require(LocalSendFingerprint(identity: identity))
    let certificate = der(ofPEM: identity.certificatePEM)
    #expect(fingerprint.hex == sha256Hex(certificate).uppercased())
    #expect(fingerprint.matches(sha256Hex(certificate)), "lowercase, as localsend-cli sends it, matches too")
    #expect(fingerprint.bytes != identity.fingerprint.bytes, "not share's device ID, which hashes only the public key")
    let openssl = try run("/usr/bin/openssl", ["x509", "-in", identity.certificateURL.path, "-noout", "-fingerprint", "-sha256"])
    let colons = openssl.stdout.split(separator: "=").last.map {
      $0.replacingOccurrences(of: ":", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
    #expect(colons == fingerprint.hex)
  }

  @Test func theLocalSendAppsKnownCertificateHasItsKnownFingerprint() throws {
    // The certificate and fingerprint from the LocalSend app's own test (packages/core/src/crypto/cert.rs).
    let pem = """
      -----BEGIN CERTIFICATE-----
      MIIDGTCCAgGgAwIBAgIBATANBgkqhkiG9w0BAQsFADBQMRcwFQYDVQQDEw5Mb2Nh
      bFNlbmQgVXNlcjEJMAcGA1UEChMAMQkwBwYDVQQLEwAxCTAHBgNVBAcTADEJMAcG
      A1UECBMAMQkwBwYDVQQGEwAwHhcNMjUwMjA5MDAwMzE0WhcNMzUwMjA3MDAwMzE0
      WjBQMRcwFQYDVQQDEw5Mb2NhbFNlbmQgVXNlcjEJMAcGA1UEChMAMQkwBwYDVQQL
      EwAxCTAHBgNVBAcTADEJMAcGA1UECBMAMQkwBwYDVQQGEwAwggEiMA0GCSqGSIb3
      DQEBAQUAA4IBDwAwggEKAoIBAQCL24MxhGfrdJm0Q8ZGiBkZ27ldcEChB4w7rSbJ
      yiKeosoNbJl2kyj5dZjfBhWGgDLGDMM5w+Mh/5SrWgTL/QrhbB+lsrxILLznWqBi
      R8wJP0P2YW9fBahQskJQcUXt/3jsCsMTWea4rWc3HZGh03bAkJfLM+PDSOfTpvAZ
      6DQSp9QLzC9bgVNnq3W0SvOZGpF0xRa4InCyTUgxsNsV4+GIrmN5w4EbRFVVYu7D
      5OS5fxNSCukiS0fb6oQzUp0vIAycvvWHHbAy8T6UMoUor2nfvNcryiaOX5WBMLyh
      yMZ5gMOyXjdm1bT1XSlvtXPYUzxvsGAzTqS8mXjw8h7mm5htAgMBAAEwDQYJKoZI
      hvcNAQELBQADggEBABZ+I7D6wkeSrsi1NBLP2zoZ5oGh+INNcGTravfOQHs4Fbas
      /CysaUYjsD3fmaDh4MxgWEqAmWnnBiojfpGX2SGuFqRBKyT9DgitBt0L7Ezg1k3h
      bfSiFW4hXWp75grVO8xfML7ZcWMlhKrOsOMUGiy1qs3qsyJ3w7B2Tz78HhXGO5dd
      jyPmZarhixKO92UpEvKGxjO0E/3UUNUzxKTAAgFfhKpuwHUgIijM/EppZtA8OcSh
      fEztiV0xKfcPVx4d6dqRt/NMElK1Ivw2vUuxTymphZkkFOzht9m73/kyKaeFp8Ij
      VRus1zGVD8IVpIdPMyz01WJyS7M0fWaHXKWo+Bo=
      -----END CERTIFICATE-----
      """
    #expect(LocalSendFingerprint(certificatePEM: pem)?.hex == "4BADDE53A7F7CDEEED93189FD898E02BF6B4806CA4C05DE0ACE08319B86552FA")
  }
}

@Suite struct SessionTableTests {
  let sender = RemoteSender(
    address: "10.0.0.1", device: LocalSendDevice(alias: "a", deviceModel: nil, deviceType: nil, fingerprint: "f", port: 1), certificate: nil
  )
  let offer = FileOffer(id: "x", fileName: "x", size: 1, fileType: "")

  func active(_ files: [String] = ["x", "y"]) -> SessionTable {
    var table = SessionTable(sessionTimeout: .seconds(60))
    _ = table.claim(.init(id: "s", sender: "10.0.0.1", cancellation: OfferCancellation()), now: .now)
    _ = table.activate(
      "s", sender: sender,
      files: Dictionary(uniqueKeysWithValues: files.map { ($0, SessionTable.SessionFile(offer: offer, token: "t-\($0)")) }), now: .now)
    return table
  }

  func files(_ token: String) -> [String: SessionTable.SessionFile] {
    ["x": SessionTable.SessionFile(offer: offer, token: token)]
  }

  @Test func oneActiveSessionAtATimeAndAnIdleOneGivesWayAfterItsTimeout() {
    var table = active()
    let waiting = table.claim(.init(id: "s2", sender: "10.0.0.2", cancellation: OfferCancellation()), now: .now)
    #expect(waiting, "an offer may wait meanwhile")
    let blocked = table.activate("s2", sender: sender, files: files("t2"), now: .now)
    #expect(blocked == .blocked, "accepted while s is active: 409")
    #expect(table.active?.id == "s" && table.pending.isEmpty)
    let again = table.claim(.init(id: "s3", sender: "10.0.0.2", cancellation: OfferCancellation()), now: .now)
    #expect(again)
    let later = ContinuousClock.now + .seconds(61)
    let replacing = table.activate("s3", sender: sender, files: files("t3"), now: later)
    #expect(replacing == .activated(expired: "s"), "an idle session gives way")
    #expect(table.isLive("s3") && !table.isLive("s"))
  }

  /// Review 26: a session accepted and never uploaded to stayed active (and "in flight" in
  /// `share status`) until another offer was accepted; its idle check ends it.
  @Test func anIdleSessionEndsByItselfOnceItsTimeoutHasPassed() {
    let start = ContinuousClock.now
    var table = active()
    guard case .later(let wait) = table.expire("s", now: start + .seconds(30)) else {
      Issue.record("a session 30 s idle of its 60 must hold")
      return
    }
    #expect(wait > .seconds(29) && wait <= .seconds(31))
    #expect(table.isLive("s"), "within its timeout it holds")
    _ = table.beginUpload(session: "s", file: "x", token: "t-x", address: sender.address, now: start + .seconds(50))
    #expect(table.expire("s", now: start + .seconds(200)) == .later(.seconds(60)), "an upload in progress holds it")
    _ = table.finishUpload(session: "s", file: "x", outcome: .stored, now: start + .seconds(200))
    #expect(table.expire("s", now: start + .seconds(230)) == .later(.seconds(30)))
    #expect(table.expire("s", now: start + .seconds(260)) == .expired)
    #expect(table.active == nil && !table.isLive("s"))
    #expect(table.expire("s", now: start + .seconds(300)) == .gone)
  }

  /// Found by an outside review: a stranger's offer waiting for the owner held the one session,
  /// so every other sender (a contact too) got 409 until the ask timed out.
  @Test func offersFromSeveralAddressesWaitTogetherOneEach() {
    var table = SessionTable(sessionTimeout: .seconds(60))
    let first = table.claim(.init(id: "a", sender: "10.0.0.5", cancellation: OfferCancellation()), now: .now)
    #expect(first)
    let second = table.claim(.init(id: "a2", sender: "10.0.0.5", cancellation: OfferCancellation()), now: .now)
    #expect(!second, "one per address")
    let other = table.claim(.init(id: "b", sender: "10.0.0.2", cancellation: OfferCancellation()), now: .now)
    #expect(other, "another address is not blocked")
    let accepted = table.activate("b", sender: sender, files: files("t"), now: .now)
    #expect(accepted == .activated(expired: nil))
    let upload = table.beginUpload(session: "a", file: "x", token: "t", address: "10.0.0.5", now: .now)
    #expect(upload.failureValue == .blocked, "a waiting offer has no session to upload to")
    for index in 1...20 {
      let waiting = table.claim(.init(id: "c\(index)", sender: "10.0.1.\(index)", cancellation: OfferCancellation()), now: .now)
      #expect(waiting, "no cap in all: the door caps connections, with a reserve for contacts")
    }
    table.release("a")
    let freed = table.claim(.init(id: "d", sender: "10.0.0.5", cancellation: OfferCancellation()), now: .now)
    #expect(freed, "the address may offer again once its offer is decided")
    let (pending, active) = table.clear()
    #expect(pending.count == 21 && active == "b")
    #expect(table.pending.isEmpty && table.active == nil)
  }

  @Test func aWaitingOfferIsCancelledByItsOwnSenderOnly() {
    var table = SessionTable(sessionTimeout: .seconds(60))
    _ = table.claim(.init(id: "a", sender: "10.0.0.1", cancellation: OfferCancellation()), now: .now)
    _ = table.claim(.init(id: "b", sender: "10.0.0.2", cancellation: OfferCancellation()), now: .now)
    let stranger = table.cancel(session: nil, address: "10.0.0.9")
    #expect(stranger.0 == .nothing)
    let otherSession = table.cancel(session: "a", address: "10.0.0.2")
    #expect(otherSession.0 == .nothing)
    let own = table.cancel(session: nil, address: "10.0.0.2")
    #expect(own.0 == .pending("b"))
  }

  @Test func aSenderWithALiveSessionIsTold409AtOnceAndAnOfferWithdrawnByAStopIsNotBlocked() {
    var table = active()
    let again = table.claim(.init(id: "s2", sender: "10.0.0.1", cancellation: OfferCancellation()), now: .now)
    #expect(!again, "its own session is still active: 409 before anyone is asked")
    let later = table.claim(
      .init(id: "s3", sender: "10.0.0.1", cancellation: OfferCancellation()), now: ContinuousClock.now + .seconds(61))
    #expect(later, "once the session is idle past its timeout, it may offer again")
    _ = table.clear()
    let stopped = table.activate("s3", sender: sender, files: files("t"), now: .now)
    #expect(stopped == .withdrawn)
  }

  @Test func uploadsNeedTheSessionTokenAndSenderAddress() {
    var table = active()
    #expect(table.beginUpload(session: "s", file: "x", token: "wrong", address: "10.0.0.1", now: .now).failureValue == .invalidToken)
    #expect(table.beginUpload(session: "s", file: "x", token: "t-x", address: "10.0.0.9", now: .now).failureValue == .invalidToken)
    #expect(table.beginUpload(session: "other", file: "x", token: "t-x", address: "10.0.0.1", now: .now).failureValue == .blocked)
    #expect(table.beginUpload(session: "s", file: "x", token: "t-x", address: "10.0.0.1", now: .now).failureValue == nil)
    #expect(
      table.beginUpload(session: "s", file: "x", token: "t-x", address: "10.0.0.1", now: .now).failureValue == .invalidToken,
      "not twice at once")
  }

  @Test func theSessionEndsWithItsLastFileAndAChecksumMismatchMayBeRetried() {
    var table = active()
    _ = table.beginUpload(session: "s", file: "x", token: "t-x", address: "10.0.0.1", now: .now)
    #expect(table.finishUpload(session: "s", file: "x", outcome: .checksumMismatch, now: .now) == nil)
    _ = table.beginUpload(session: "s", file: "x", token: "t-x", address: "10.0.0.1", now: .now)
    #expect(table.finishUpload(session: "s", file: "x", outcome: .stored, now: .now) == nil)
    _ = table.beginUpload(session: "s", file: "y", token: "t-y", address: "10.0.0.1", now: .now)
    #expect(table.finishUpload(session: "s", file: "y", outcome: .failed, now: .now) == .finished(stored: ["x"], failed: ["y"]))
    #expect(!table.isLive("s"))
  }

  @Test func onlyTheSenderCancels() {
    var table = active()
    #expect(table.cancel(session: "s", address: "10.0.0.9").0 == .nothing)
    #expect(table.cancel(session: "s", address: "10.0.0.1").0 == .active("s"))
    #expect(!table.isLive("s"))
  }
}

@Suite struct PinGateTests {
  @Test func threeWrongPinsLockAnAddressOut() {
    var gate = PinGate(pin: "1234")
    #expect(gate.check(nil, from: "a", at: 0) == .required)
    #expect(gate.check("0000", from: "a", at: 0) == .invalid)
    #expect(gate.check("1234", from: "a", at: 0) == .allowed)
    for _ in 0..<3 { #expect(gate.check("0000", from: "a", at: 0) == .invalid) }
    #expect(gate.check("1234", from: "a", at: 0) == .tooManyAttempts)
    #expect(gate.check("1234", from: "b", at: 0) == .allowed)
    var open = PinGate(pin: nil)
    #expect(open.check(nil, from: "a", at: 0) == .allowed)
  }

  /// Review 17: three guesses from each of 300 addresses in turn found a 4-digit PIN in six
  /// minutes, never answered 429. Ten wrong PINs a minute from anyone close the gate to all.
  @Test func wrongPinsFromManyAddressesCloseTheGateForAMinute() {
    var gate = PinGate(pin: "7351")
    for guess in 0..<10 {
      #expect(gate.check(String(format: "%04d", guess), from: "10.0.0.\(guess)", at: Double(guess)) == .invalid)
    }
    #expect(gate.lockedOut(at: 10)! == (failures: 10, addresses: 10))
    #expect(gate.check("7351", from: "10.0.1.1", at: 10) == .tooManyAttempts)
    #expect(gate.check("0011", from: "10.0.1.2", at: 59) == .tooManyAttempts)
    // The window moves on: the first wrong PIN is a minute old at 60.
    #expect(gate.lockedOut(at: 60) == nil)
    #expect(gate.check("7351", from: "10.0.1.3", at: 60) == .allowed)
  }

  /// Review 31: the lockout of everyone also kept out a contact proven by its certificate. It
  /// passes with the right PIN; a wrong one is still wrong, and its own address's count holds.
  @Test func aProvenContactIsNotHeldByTheLockoutOfEveryoneButByItsOwnCount() {
    var gate = PinGate(pin: "7351")
    for guess in 0..<10 { _ = gate.check(String(format: "%04d", guess), from: "10.0.0.\(guess)", at: 0) }
    #expect(gate.check("7351", from: "10.0.1.1", at: 1) == .tooManyAttempts)
    #expect(gate.check("7351", from: "10.0.1.1", provenContact: true, at: 1) == .allowed)
    #expect(gate.check(nil, from: "10.0.1.1", provenContact: true, at: 1) == .required)
    for _ in 0..<3 { #expect(gate.check("0000", from: "10.0.1.1", provenContact: true, at: 1) == .invalid) }
    #expect(gate.check("7351", from: "10.0.1.1", provenContact: true, at: 1) == .tooManyAttempts)
  }
}

extension Result {
  var failureValue: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
