/// How a client decides that the device it reached is the one it meant, from the fingerprint
/// of the certificate the device presented; checked right after the TLS handshake, before any
/// request byte is sent.
package enum PeerCheck: Sendable {
  /// Any certificate (discovery: the fingerprint is learnt from the answer).
  case any
  /// Exactly this certificate (a pinned device).
  case expect(LocalSendFingerprint)
  /// The caller decides, e.g. trust on first use against its own store.
  case custom(@Sendable (LocalSendFingerprint) -> Bool)

  func allows(_ fingerprint: LocalSendFingerprint) -> Bool {
    switch self {
    case .any: return true
    case .expect(let expected): return expected == fingerprint
    case .custom(let decide): return decide(fingerprint)
    }
  }

  var expected: LocalSendFingerprint? {
    if case .expect(let fingerprint) = self { return fingerprint }
    return nil
  }
}

/// A LocalSend device to talk to.
package struct LocalSendTarget: Sendable {
  package var host: String
  package var port: UInt16
  package var check: PeerCheck

  package init(host: String, port: UInt16 = LocalSendProtocol.defaultPort, check: PeerCheck = .any) {
    self.host = host
    self.port = port
    self.check = check
  }

  /// The `Host` field: IPv6 literals in brackets.
  var hostField: String {
    let bare = host.split(separator: "%").first.map(String.init) ?? host
    return bare.contains(":") ? "[\(bare)]:\(port)" : "\(host):\(port)"
  }
}
