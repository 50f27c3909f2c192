/// The exit codes of `share`, documented in `share help`.
enum ExitCode: Int32 {
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
}
