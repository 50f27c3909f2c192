/// The exit codes of `share`, documented in `share help`.
public enum ExitCode: Int32, CaseIterable, Sendable {
  /// Everything asked was done (every item stored).
  case success = 0
  /// A runtime failure: nothing or not everything could be done (see the error).
  case failure = 1
  /// A send completed, but the receiver refused or could not store some items; others are stored.
  case partial = 3
  /// A send completed, but the receiver stored none of the items.
  case refused = 4
  /// The command line is wrong.
  case usage = 64
  /// Interrupted (Ctrl-C or SIGTERM) before finishing.
  case interrupted = 130

  /// What it means, as `share help` (and the man page) says.
  public var meaning: String {
    switch self {
    case .success: "success: everything asked was done (every item stored)"
    case .failure: "failure: see the error message"
    case .partial: "send: some items were refused or not stored, others were stored"
    case .refused: "send: the receiver stored none of the items"
    case .usage: "the command line is wrong"
    case .interrupted: "interrupted (Ctrl-C or SIGTERM)"
    }
  }
}
