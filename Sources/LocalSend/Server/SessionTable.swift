/// The upload session state of a LocalSend receiver, as the protocol defines it: one session at
/// a time (another sender gets 409), created pending by prepare-upload, active once the
/// delegate accepted files, ended when every accepted file is stored or failed, or cancelled.
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

  enum Slot: Sendable {
    case idle
    case pending(Pending)
    case active(Active)
  }

  /// Why an upload may not start.
  enum UploadDenial: Error, Equatable {
    /// No such session, file, token, or the file is not waiting: 403.
    case invalidToken
    /// Another session holds the slot: 409.
    case blocked
  }

  /// How often a file may be uploaded again after a checksum mismatch.
  static let maxAttempts = 3

  private(set) var slot: Slot = .idle
  /// An active session with no upload for this long gives way to a new offer.
  let sessionTimeout: Duration

  init(sessionTimeout: Duration) {
    self.sessionTimeout = sessionTimeout
  }

  /// Takes the slot for a new offer. Returns false when another session holds it; returns the
  /// ID of an idle session that had to expire for it.
  mutating func claim(_ pending: Pending, now: ContinuousClock.Instant) -> (claimed: Bool, expired: String?) {
    switch slot {
    case .idle:
      slot = .pending(pending)
      return (true, nil)
    case .pending:
      return (false, nil)
    case .active(let active):
      let busy = active.files.values.contains { $0.status == .uploading }
      guard !busy, now - active.lastActivity >= sessionTimeout else { return (false, nil) }
      slot = .pending(pending)
      return (true, active.id)
    }
  }

  /// The pending session `id` becomes active with `files` (each with its token).
  mutating func activate(_ id: String, sender: RemoteSender, files: [String: SessionFile], now: ContinuousClock.Instant) {
    guard case .pending(let pending) = slot, pending.id == id else { return }
    slot = files.isEmpty ? .idle : .active(Active(id: id, sender: sender, files: files, lastActivity: now))
  }

  /// Frees the slot of pending session `id` (declined, nothing accepted, or cancelled).
  mutating func release(_ id: String) {
    if case .pending(let pending) = slot, pending.id == id { slot = .idle }
  }

  /// Marks a file as uploading and hands back its offer, if the upload is allowed.
  mutating func beginUpload(
    session: String, file: String, token: String, address: String, now: ContinuousClock.Instant
  ) -> Result<(FileOffer, RemoteSender), UploadDenial> {
    guard case .active(var active) = slot else {
      if case .pending = slot { return .failure(.blocked) }
      return .failure(.invalidToken)
    }
    guard active.id == session else { return .failure(.blocked) }
    guard active.sender.address == address, var entry = active.files[file],
      constantTimeEqual(entry.token, token), entry.status == .waiting
    else { return .failure(.invalidToken) }
    entry.status = .uploading
    entry.attempts += 1
    active.files[file] = entry
    active.lastActivity = now
    slot = .active(active)
    return .success((entry.offer, active.sender))
  }

  /// How one upload attempt ended.
  enum UploadOutcome: Equatable { case stored, failed, checksumMismatch }

  /// Records an upload's outcome; returns the session's end when it was the last file.
  mutating func finishUpload(
    session: String, file: String, outcome: UploadOutcome, now: ContinuousClock.Instant
  ) -> SessionEnd? {
    guard case .active(var active) = slot, active.id == session,
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
      slot = .active(active)
      return nil
    }
    slot = .idle
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
    switch slot {
    case .pending(let pending) where pending.sender == address && (session == nil || session == pending.id):
      return (.pending(pending.id), pending.cancellation)
    case .active(let active) where active.sender.address == address && session == active.id:
      slot = .idle
      return (.active(active.id), nil)
    default:
      return (.nothing, nil)
    }
  }

  /// Whether uploads of `session` may go on (not cancelled, not replaced).
  func isLive(_ session: String) -> Bool {
    if case .active(let active) = slot { return active.id == session }
    return false
  }

  /// Ends whatever holds the slot (server stopping).
  mutating func clear() -> (pending: OfferCancellation?, active: String?) {
    defer { slot = .idle }
    switch slot {
    case .idle: return (nil, nil)
    case .pending(let pending): return (pending.cancellation, nil)
    case .active(let active): return (nil, active.id)
    }
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
