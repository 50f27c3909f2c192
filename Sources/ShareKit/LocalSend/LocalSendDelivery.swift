import Foundation
import LocalSend
import Synchronization
import System
import TLS
import Wire

/// `share send` to a LocalSend device: prepare-upload, then an upload per accepted file, with
/// the device's fingerprint pinned on first use (in `known_peers.json`, under
/// `localsend:ALIAS`, so it never collides with a share device of the same name). Reports as a
/// share send does (`SendEvent`, `SendReport`), so the CLI shows progress and exits alike.
///
/// Files and inline text are sent; folders and standard input are reported as not sent (the
/// protocol has no folders, and an upload needs its size up front).
final class LocalSendDelivery: Sendable {
  private let client: LocalSendClient
  private let contacts: Contacts
  private let cancelled = Atomic<Bool>(false)

  init(device: Device) throws(ShareError) {
    contacts = Contacts(paths: device.paths)
    guard let fingerprint = LocalSendFingerprint(identity: device.identity) else {
      throw .configuration("the device certificate has no CERTIFICATE block")
    }
    // The port this home's LocalSend receiver listens on, for a device that answers or sends
    // back (review 47: always 53317, whatever `localsend_port` said): the running daemon's
    // (given `--localsend-port`, say), else the settings'.
    let running = (try? ControlClient.sendIfRunning(.status, paths: device.paths))??.status?.localsend?.port
    let port = running ?? (try? Settings.load(from: device.paths.settings))?.localsendPort ?? LocalSendProtocol.defaultPort
    do {
      client = try LocalSendClient(
        identity: device.identity,
        device: LocalSendDevice(
          alias: device.name, deviceModel: "Linux", deviceType: .desktop, fingerprint: fingerprint.hex, port: Int(port)))
    } catch {
      throw .configuration("cannot use the device identity for LocalSend: \(error)")
    }
  }

  /// The port this device says it receives on, in what it sends a device.
  var announcedPort: Int { client.device.port }

  /// Stops after the bytes in flight; the send ends with `.cancelled`.
  func cancel() {
    cancelled.store(true, ordering: .sequentiallyConsistent)
    client.abortAll()
  }

  /// The name `peer`'s fingerprint is remembered under.
  static func pinName(_ peer: LocalSendPeer) -> String { LocalSendPeer.pinName(alias: peer.alias.unescaped) }

  /// Sends to the device at every address claiming its fingerprint at once, and goes on with the
  /// first whose certificate proves it: anyone may claim a phone's fingerprint from elsewhere
  /// (review 31), and a claim at an address that answers nothing must not hold the send up
  /// (review 34: tried one at a time, 12 silent claims made a 1 s send take 121 s). A candidate's
  /// TLS check passes only for the first address that proves the fingerprint, before any request
  /// is sent, so one device gets one offer; the device's answer (declined, a PIN, busy…) ends the
  /// send. Without a proof anywhere, each address's failure is reported.
  func send(
    _ items: [OutgoingItem], to endpoint: Endpoint, peer: LocalSendPeer, events: @escaping @Sendable (SendEvent) -> Void
  ) throws(ShareError) -> SendReport {
    let (offers, unsupported) = LocalSendDelivery.offers(items)
    // An address's proof is checked against the fingerprint remembered for the alias sent to,
    // or for a fingerprint prefix, the alias that address claims (a device calling itself by an
    // alias pinned to another is refused); only an alias sent to is remembered (`proceed`).
    let book = try contacts.rememberedForChecking()
    let remembered = { @Sendable (candidate: Endpoint.Candidate) -> Fingerprint? in
      book.id(for: endpoint.rememberAs ?? LocalSendPeer.pinName(alias: (candidate.advertisedAs ?? peer.alias).unescaped))
    }
    if cancelled.load(ordering: .sequentiallyConsistent) { throw .cancelled("cancelled") }
    let proven = ProvenFingerprint()
    let timeLeft = client.decisionTimeout
    let files = offers.map(\.file)
    let outcomes = Mutex<[(index: Int, result: Result<LocalSendClient.PrepareOutcome, LocalSendError>)]>([])
    let arrived = DispatchSemaphore(value: 0)
    var targets: [LocalSendTarget] = []
    for (index, candidate) in endpoint.candidates.enumerated() {
      // Said once the device proved itself, not while addresses are still being tried.
      let target = LocalSendDelivery.pinnedTarget(peer, at: candidate, remembered: remembered(candidate), proven: proven) {
        events(.waiting("waiting for its owner to accept on the LocalSend device", timeLeft: timeLeft))
      }
      targets.append(target)
      let client = self.client
      Thread {
        let result = Result { () throws(LocalSendError) in try client.prepareUpload(files, to: target) }
        outcomes.withLock { $0.append((index, result)) }
        arrived.signal()
      }.start()
    }
    var failures: [(candidate: Endpoint.Candidate, error: LocalSendError)] = []
    for _ in endpoint.candidates {
      arrived.wait()
      if cancelled.load(ordering: .sequentiallyConsistent) { throw .cancelled("cancelled") }
      guard let (index, result) = outcomes.withLock({ $0.popLast() }) else { continue }
      let candidate = endpoint.candidates[index]
      var reached = endpoint
      reached.candidates = [candidate]
      switch result {
      case .success(let outcome):
        return try proceed(outcome, offers, unsupported, at: reached, target: targets[index], peer: peer, proven: proven, events: events)
      case .failure(.rejected):
        return LocalSendDelivery.report(reached, peer, proven, offers, unsupported, tokens: [:], refusal: "declined by the receiver")
      case .failure(let error) where proven.address == candidate.address:
        throw LocalSendDelivery.failure(error, peer: peer, endpoint: reached, remembered: remembered(candidate))
      case .failure(let error):
        failures.append((candidate, error))
      }
    }
    let pinned = failures.count == 1 ? remembered(failures[0].candidate) : endpoint.rememberAs.flatMap { book.id(for: $0) }
    throw LocalSendDelivery.failure(failures, peer: peer, endpoint: endpoint, remembered: pinned)
  }

  /// After the device's answer `outcome` at `endpoint` (one address): its fingerprint pinned,
  /// then the accepted files uploaded.
  private func proceed(
    _ outcome: LocalSendClient.PrepareOutcome, _ offers: [Offer], _ unsupported: [Unsupported], at endpoint: Endpoint,
    target: LocalSendTarget, peer: LocalSendPeer, proven: ProvenFingerprint, events: @escaping @Sendable (SendEvent) -> Void
  ) throws(ShareError) -> SendReport {
    let report = { (tokens: [String: String], refusal: String) in
      LocalSendDelivery.report(endpoint, peer, proven, offers, unsupported, tokens: tokens, refusal: refusal)
    }
    guard let fingerprint = proven.fingerprint else { throw .transport("no certificate from \(endpoint)", detail: "") }
    // Named as the address that proved the fingerprint calls it, not as another claim of it.
    events(.connected(peerName: endpoint.candidates.first?.advertisedAs ?? peer.alias, fingerprint: fingerprint, address: endpoint.address))
    if let name = endpoint.rememberAs { try contacts.remember([(name, fingerprint)]) }
    guard case .session(let session) = outcome else {
      return report([:], "the receiver wants nothing transferred")
    }
    var answered = report(session.files, "declined by the receiver")
    events(.answered(answered.answers))
    try upload(offers, session: session, to: target, report: &answered, events: events)
    return answered
  }

  /// `candidate` as a target with the TOFU check: the certificate must prove the fingerprint the
  /// device announced and, for an alias sent to before, the one `remembered` for it. `proven`
  /// gets it; `onProof` runs when it is first proven.
  private static func pinnedTarget(
    _ peer: LocalSendPeer, at candidate: Endpoint.Candidate, remembered: Fingerprint?, proven: ProvenFingerprint,
    onProof: @escaping @Sendable () -> Void
  ) -> LocalSendTarget {
    let claimed = peer.fingerprint.unescaped
    let check = PeerCheck.custom { certificate in
      guard let id = Fingerprint(bytes: certificate.bytes), certificate.matches(claimed), remembered.map({ $0 == id }) ?? true
      else { return false }
      // The first address to prove it wins; the device at a second address is not offered the
      // files twice, and the winner's later connections (the uploads) pass.
      let (first, mine) = proven.value.withLock { value -> (Bool, Bool) in
        guard let value else {
          value = (id, candidate.address)
          return (true, true)
        }
        return (false, value.address == candidate.address)
      }
      if first { onProof() }
      return mine
    }
    return LocalSendTarget(host: candidate.host, port: candidate.port, check: check)
  }

  /// Uploads each accepted file in turn, recording its outcome.
  private func upload(
    _ offers: [Offer], session: PrepareUploadResponse, to target: LocalSendTarget, report: inout SendReport,
    events: @escaping @Sendable (SendEvent) -> Void
  ) throws(ShareError) {
    let accepted = offers.filter { session.files[$0.file.id] != nil }
    let total = accepted.reduce(Int64(0)) { $0 + $1.file.size }
    var done: Int64 = 0
    for offer in accepted {
      guard let token = session.files[offer.file.id], let index = report.items.firstIndex(where: { $0.id == offer.id }) else { continue }
      if cancelled.load(ordering: .sequentiallyConsistent) {
        try? client.cancel(session: session.sessionId, at: target)
        throw .cancelled("cancelled")
      }
      let base = done
      do {
        let source: any UploadSource = try offer.source()
        try client.upload(offer.file, from: source, session: session.sessionId, token: token, to: target) { sent in
          events(.progress(sent: base + sent, total: total))
        }
        report.items[index].status = .stored
        report.items[index].storedAs = PeerText(offer.file.fileName)
        report.items[index].reason = nil
      } catch {
        if cancelled.load(ordering: .sequentiallyConsistent) { throw .cancelled("cancelled") }
        let (status, reason) = LocalSendDelivery.uploadFailure(error)
        report.items[index].status = status
        report.items[index].reason = PeerText(reason)
      }
      done += offer.file.size
    }
  }
}

/// The fingerprint a LocalSend device's certificate proved, set by the TLS check.
final class ProvenFingerprint: Sendable {
  /// The fingerprint, and the address of the candidate that proved it first.
  let value = Mutex<(id: Fingerprint, address: String)?>(nil)

  /// The fingerprint proven so far, if any.
  var fingerprint: Fingerprint? { value.withLock { $0?.id } }

  /// Where it was proven, if it was.
  var address: String? { value.withLock { $0?.address } }
}
