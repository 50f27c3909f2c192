/// The exit codes of `share`, documented in `share help`.
package enum ExitCode: Int32, CaseIterable, Sendable {
  /// Everything asked was done (every item stored).
  case success = 0
  /// A runtime failure: the exchange could not be completed, or a command failed (see the error).
  case failure = 1
  /// A send stored some items; the receiver refused or could not store others (or some entries
  /// of a stored folder).
  case partial = 3
  /// A send stored nothing: the receiver refused every item, its owner declined the ask (or
  /// did not answer in time), or it takes nothing from this sender (receive mode off or
  /// contacts only, too many asks waiting).
  case refused = 4
  /// The command line is wrong.
  case usage = 64
  /// Interrupted (Ctrl-C or SIGTERM) before finishing.
  case interrupted = 130

  /// What it means, as `share help` (and the man page) says.
  package var meaning: String {
    switch self {
    case .success: "success: everything asked was done (every item stored by every receiver)"
    case .failure: "error: see the message (no connection, certificate mismatch, no such peer or daemon, unreadable file)"
    case .partial:
      "send: some items stored, others (or some entries of a folder) refused or not stored (types check: some would be refused)"
    case .refused: "send: nothing stored (items refused, ask declined or unanswered, receiver off or contacts only)"
    case .usage: "the command line is wrong"
    case .interrupted: "interrupted (Ctrl-C or SIGTERM) before finishing (a daemon stopped so exits 0)"
    }
  }
}
