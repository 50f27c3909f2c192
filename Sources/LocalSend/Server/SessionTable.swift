/// The upload session state of a LocalSend receiver: offers being decided (several at once,
/// one per address), and the one active session the protocol allows. An offer waits
/// for its decision without holding the session: a stranger whose offer waits for the owner
/// (or for the ask's timeout) must not block everyone else's (a contact's is accepted at once).
/// An accepted offer becomes the active session unless another one is uploading or was active
/// within the session timeout; then its sender gets 409, as it would have when it offered.
/// Pure: the server keeps it in a `Mutex` and carries its answers out.
struct SessionTable: Sendable {
  enum FileStatus: Sendable, Equatable { case waiting, uploading, stored, failed }

  struct SessionFile: Sendable {
    var offer: FileOffer
    var token: String
    var status: FileStatus = .waiting
    var attempts = 0
  }

  struct Pending: Sendable {
    var id: String
    var sender: String
    var cancellation: OfferCancellation
  }

  struct Active: Sendable {
    var id: String
    var sender: RemoteSender
    var files: [String: SessionFile]
    var lastActivity: ContinuousClock.Instant
  }

  /// Why an upload may not start.
  enum UploadDenial: Error, Equatable {
    /// No such session, file, token, or the file is not waiting: 403.
    case invalidToken
    /// Another session is active, or this one is still being decided: 409.
    case blocked
  }

  /// How often a file may be uploaded again after a checksum mismatch.
  static let maxAttempts = 3

  /// Offers being decided, by session ID.
  private(set) var pending: [String: Pending] = [:]
  /// The session whose files are being uploaded.
  private(set) var active: Active? = nil
  /// An active session with no upload for this long gives way to a newly accepted offer.
  let sessionTimeout: Duration

  init(sessionTimeout: Duration) {
    self.sessionTimeout = sessionTimeout
  }

  /// Registers a new offer while it is decided. Returns false (409) when its address already
  /// has one waiting, or has the active session (uploading, or within the session timeout).
  /// There is no cap in all: each waiting offer holds a connection, and the door caps those per
  /// address and in total with a reserve only contacts may use (a cap here would let strangers
  /// on a few addresses turn a contact away again); the strangers' asks are capped by the
  /// gatekeeper, which refuses the rest at once.
  mutating func claim(_ offer: Pending, now: ContinuousClock.Instant) -> Bool {
    guard !pending.values.contains(where: { $0.sender == offer.sender }) else { return false }
    if let active, active.sender.address == offer.sender, holds(active, now: now) { return false }
    pending[offer.id] = offer
    return true
  }

  /// What became of an accepted offer.
  enum Activation: Equatable {
    /// It is the active session; `expired` is an idle session that had to give way.
    case activated(expired: String?)
    /// Another session is uploading or was active within the session timeout: 409.
    case blocked
    /// It was no longer waiting (the server is stopping).
    case withdrawn
  }

  /// The accepted offer `id` becomes the active session with `files` (each with its token).
  mutating func activate(
    _ id: String, sender: RemoteSender, files: [String: SessionFile], now: ContinuousClock.Instant
  ) -> Activation {
    guard pending.removeValue(forKey: id) != nil else { return .withdrawn }
    if let active, holds(active, now: now) { return .blocked }
    let expired = active?.id
    active = Active(id: id, sender: sender, files: files, lastActivity: now)
    return .activated(expired: expired)
  }

  /// Whether `session` still holds the slot: a file uploading, or an upload within the timeout.
  private func holds(_ session: Active, now: ContinuousClock.Instant) -> Bool {
    session.files.values.contains { $0.status == .uploading } || now - session.lastActivity < sessionTimeout
  }

  /// What became of the active session `id` when its idle time was checked.
  enum Expiry: Equatable {
    /// It had no upload for the session timeout, and ended.
    case expired
    /// It still holds the slot: check again after this long.
    case later(Duration)
    /// It is no longer the active session (finished, cancelled, replaced).
    case gone
  }

  /// Ends the active session `id` if it has been idle for the session timeout (review 26: a
  /// sender that took its session and never uploaded stayed "in flight" until the next offer).
  mutating func expire(_ id: String, now: ContinuousClock.Instant) -> Expiry {
    guard let active, active.id == id else { return .gone }
    guard holds(active, now: now) else {
      self.active = nil
      return .expired
    }
    let uploading = active.files.values.contains { $0.status == .uploading }
    return .later(uploading ? sessionTimeout : max(.milliseconds(10), sessionTimeout - (now - active.lastActivity)))
  }

  /// Forgets the offer `id` (declined, nothing accepted, or cancelled).
  mutating func release(_ id: String) {
    pending[id] = nil
  }

  /// Marks a file as uploading and hands back its offer, if the upload is allowed.
  mutating func beginUpload(
    session: String, file: String, token: String, address: String, now: ContinuousClock.Instant
  ) -> Result<(FileOffer, RemoteSender), UploadDenial> {
    guard var active else {
      return .failure(pending[session] != nil ? .blocked : .invalidToken)
    }
    guard active.id == session else { return .failure(.blocked) }
    guard active.sender.address == address, var entry = active.files[file],
      constantTimeEqual(entry.token, token), entry.status == .waiting
    else { return .failure(.invalidToken) }
    entry.status = .uploading
    entry.attempts += 1
    active.files[file] = entry
    active.lastActivity = now
    self.active = active
    return .success((entry.offer, active.sender))
  }

  /// How one upload attempt ended.
  enum UploadOutcome: Equatable { case stored, failed, checksumMismatch }

  /// Records an upload's outcome; returns the session's end when it was the last file.
  mutating func finishUpload(
    session: String, file: String, outcome: UploadOutcome, now: ContinuousClock.Instant
  ) -> SessionEnd? {
    guard var active, active.id == session,
      var entry = active.files[file], entry.status == .uploading
    else { return nil }
    switch outcome {
    case .stored: entry.status = .stored
    case .failed: entry.status = .failed
    case .checksumMismatch: entry.status = entry.attempts < Self.maxAttempts ? .waiting : .failed
    }
    active.files[file] = entry
    active.lastActivity = now
    let done = active.files.values.allSatisfy { $0.status == .stored || $0.status == .failed }
    guard done else {
      self.active = active
      return nil
    }
    self.active = nil
    let stored = active.files.filter { $0.value.status == .stored }.keys.sorted()
    let failed = active.files.filter { $0.value.status == .failed }.keys.sorted()
    return .finished(stored: stored, failed: failed)
  }

  /// What a cancel request did.
  enum CancelOutcome: Equatable {
    /// The sender's offer was still being decided; its cancellation must be signalled.
    case pending(String)
    /// The active session ended.
    case active(String)
    case nothing
  }

  /// A cancel from `address`, for `session` (the sender of a pending offer does not know the
  /// session ID yet and may leave it out). Only the session's own sender may cancel it.
  mutating func cancel(session: String?, address: String) -> (CancelOutcome, OfferCancellation?) {
    if let offer = pending.values.first(where: { $0.sender == address && (session == nil || session == $0.id) }) {
      return (.pending(offer.id), offer.cancellation)
    }
    if let active, active.sender.address == address, session == active.id {
      self.active = nil
      return (.active(active.id), nil)
    }
    return (.nothing, nil)
  }

  /// Whether uploads of `session` may go on (not cancelled, not replaced).
  func isLive(_ session: String) -> Bool {
    active?.id == session
  }

  /// Ends everything (server stopping): the offers being decided, whose cancellations must be
  /// signalled, and the active session.
  mutating func clear() -> (pending: [OfferCancellation], active: String?) {
    defer {
      pending = [:]
      active = nil
    }
    return (pending.values.map(\.cancellation), active?.id)
  }
}

/// Compares secrets without an early exit, so timing does not tell how much matched.
func constantTimeEqual(_ a: String, _ b: String) -> Bool {
  let x = Array(a.utf8)
  let y = Array(b.utf8)
  guard x.count == y.count else { return false }
  var difference: UInt8 = 0
  for index in x.indices { difference |= x[index] ^ y[index] }
  return difference == 0
}
