import Synchronization

/// Who is sending: what the sender says about itself and what TLS proved.
package struct RemoteSender: Sendable, Equatable {
  /// The sender's numeric IP address; uploads of a session must come from it.
  package let address: String
  /// The sender's description of itself (alias, model, type, port ...): unverified text.
  package let device: LocalSendDevice
  /// The fingerprint of the certificate the sender presented in the TLS handshake, if any: the
  /// only identity that cannot be forged. The LocalSend app presents one; localsend-cli and
  /// browsers do not.
  package let certificate: LocalSendFingerprint?

  package init(address: String, device: LocalSendDevice, certificate: LocalSendFingerprint?) {
    self.address = address
    self.device = device
    self.certificate = certificate
  }

  /// Whether the fingerprint the sender claims is the one its certificate proves.
  package var claimIsProven: Bool {
    certificate.map { $0.matches(device.fingerprint) } ?? false
  }
}

/// A prepare-upload request that passed validation (and the PIN, when one is set).
package struct IncomingOffer: Sendable {
  /// The session ID the sender will get if anything is accepted.
  package let sessionID: String
  package let sender: RemoteSender
  /// The offered files in a stable order (by ID).
  package let files: [FileOffer]
}

/// What the delegate decides for an offer.
package enum OfferDecision: Sendable, Equatable {
  /// Accept these file IDs (any subset of the offer). None accepted answers 204; refused files
  /// are left out of the token map, which is how the protocol says "declined".
  case accept(Set<String>)
  /// Refuse the whole offer (403).
  case decline
  /// Refuse the whole offer (403) saying why, in the answer's `message` (the app shows it).
  case refuse(String)
}

/// Tells the delegate that the sender gave up on an offer it is still deciding: the sender
/// cancelled, or the server is stopping.
package final class OfferCancellation: Sendable {
  private let state = Mutex<(cancelled: Bool, handlers: [@Sendable () -> Void])>((false, []))

  package init() {}

  package var isCancelled: Bool { state.withLock { $0.cancelled } }

  /// Runs `handler` once when cancelled (at once if already cancelled), on the cancelling thread.
  package func onCancel(_ handler: @escaping @Sendable () -> Void) {
    let runNow = state.withLock { state -> Bool in
      if state.cancelled { return true }
      state.handlers.append(handler)
      return false
    }
    if runNow { handler() }
  }

  func cancel() {
    let handlers = state.withLock { state -> [@Sendable () -> Void] in
      guard !state.cancelled else { return [] }
      state.cancelled = true
      defer { state.handlers = [] }
      return state.handlers
    }
    for handler in handlers { handler() }
  }
}

/// One accepted file whose bytes are about to arrive.
package struct AcceptedFile: Sendable {
  package let sessionID: String
  package let sender: RemoteSender
  package let offer: FileOffer
}

/// Why an upload was refused; the status the sender gets follows from `kind`.
package struct UploadRefusal: Error, Sendable, Equatable {
  package enum Kind: Sendable, Equatable {
    /// Refused by policy (type, content): 403.
    case rejected
    /// No room: 507.
    case insufficientStorage
    /// Something broke on this side: 500.
    case failed
  }

  package let kind: Kind
  /// A short reason sent back to the sender (it may show it).
  package let message: String

  package init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  var status: HTTPStatus {
    switch kind {
    case .rejected: return .forbidden
    case .insufficientStorage: return .insufficientStorage
    case .failed: return .internalServerError
    }
  }
}

/// Where an accepted file's bytes go. Called on the upload's connection thread, in order:
/// any number of `write`, then exactly one of `commit` (every byte arrived, the checksum, when
/// offered, matched) or `abort` (anything else: refused, cancelled, cut off, mismatched).
package protocol UploadSink: AnyObject {
  /// The next bytes; throw to refuse the file (e.g. its content is not what its name says).
  func write(_ bytes: UnsafeRawBufferPointer) throws(UploadRefusal)
  /// Makes the file permanent; throw if that fails.
  func commit() throws(UploadRefusal)
  /// Nothing of the file may remain.
  func abort()
  /// Why the server gave the file up, told just before `abort` when the sink did not refuse it
  /// itself: its body was cut off, shorter than offered, or its checksum did not match.
  func failed(_ reason: String)
}

extension UploadSink {
  package func failed(_ reason: String) {}
}

/// How a session ended.
package enum SessionEnd: Sendable, Equatable {
  /// Every accepted file was stored or failed.
  case finished(stored: [String], failed: [String])
  /// The sender called `/cancel`.
  case cancelledBySender
  /// No upload came for longer than the server's session timeout; a new offer replaced it.
  case expired
  /// Accepted while another session was uploading or active within the session timeout: its
  /// sender was told 409 and may offer again.
  case blocked
  /// The server stopped.
  case serverStopped
}

/// The receiving policy, implemented by the daemon: may this session's files be accepted, which
/// ones, where their bytes go. Methods run on connection threads, possibly several at once.
package protocol LocalSendDelegate: AnyObject, Sendable {
  /// A device registered (answered an announcement, or probed this one).
  func localSend(registered sender: RemoteSender)
  /// Decide an offer; may block (waiting for the person's consent). Watch `cancellation`.
  func localSend(decide offer: IncomingOffer, cancellation: OfferCancellation) -> OfferDecision
  /// Where the bytes of an accepted file go.
  func localSend(open file: AcceptedFile) throws(UploadRefusal) -> any UploadSink
  /// A session is over.
  func localSend(sessionEnded sessionID: String, _ end: SessionEnd)
  /// Wrong PINs came so fast (`failures` within a minute, from `fromAddresses` addresses) that
  /// every PIN is refused for a while (`PinGate`): for the owner's log, once per lockout.
  func localSend(wrongPins failures: Int, fromAddresses addresses: Int)
  /// Whether a sender at `address` presenting `certificate` (nil: none) may send an offer of
  /// `length` bytes, asked before its body is read (an offer is parsed into structures several
  /// times its size: review 26, 48 strangers' 4 MiB offers held 500 MB, read even where only
  /// contacts may send).
  func localSend(mayOffer address: String, certificate: LocalSendFingerprint?, length: Int) -> OfferAdmission
  /// Whether `certificate`, which a sender's TLS handshake proved, is a contact's: such a sender
  /// is not held by the lockout that wrong PINs from everyone cause (it still needs the PIN).
  func localSend(isContact certificate: LocalSendFingerprint) -> Bool
  /// A connection ended; `active` are open now (memory can be given back at none).
  func localSend(connections active: Int)
}

/// Whether an offer's body is read (`LocalSendDelegate.localSend(mayOffer:certificate:length:)`).
package enum OfferAdmission: Sendable {
  /// Read it, and call `release` once the offer is decided.
  case proceed(release: @Sendable () -> Void)
  /// Refused for good: 403 with the reason.
  case refuse(String)
  /// Not now: 409 with the reason.
  case busy(String)
}

extension LocalSendDelegate {
  package func localSend(wrongPins failures: Int, fromAddresses addresses: Int) {}
  package func localSend(mayOffer address: String, certificate: LocalSendFingerprint?, length: Int) -> OfferAdmission {
    .proceed(release: {})
  }
  package func localSend(connections active: Int) {}
  package func localSend(isContact certificate: LocalSendFingerprint) -> Bool { false }
}
