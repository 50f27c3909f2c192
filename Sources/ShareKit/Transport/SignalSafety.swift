import Glibc

/// Ignores SIGPIPE for the whole process, once.
///
/// OpenSSL's socket BIO writes with write(2), which raises SIGPIPE when the peer has gone, and
/// Linux has no per-socket way to turn that off; the default action would kill the process. With
/// the signal ignored, the write fails with EPIPE and the TLS layer reports a closed connection.
/// Called by everything in ShareKit that opens connections, so no caller can forget it.
func ignoreSIGPIPE() {
  _ = sigpipeIgnored
}

private let sigpipeIgnored: Bool = {
  signal(SIGPIPE, SIG_IGN)
  return true
}()
