import Glibc
import TLS

/// Where to send: one receiver, at one or more addresses.
package struct Endpoint: Sendable, CustomStringConvertible {
  /// One address the receiver may be reached at, and the name it was advertised under there
  /// (nil for an address the user gave).
  package struct Candidate: Sendable, Equatable {
    package var host: String
    package var port: UInt16
    /// The instance name of the record that gave this address: someone else's text.
    package var advertisedAs: PeerText?

    package init(host: String, port: UInt16, advertisedAs: PeerText? = nil) {
      self.host = host
      self.port = port
      self.advertisedAs = advertisedAs
    }

    /// `host:port`, with brackets around an IPv6 address.
    package var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
  }

  /// Every address to try, all at once: the first that presents the expected certificate is
  /// used and the others are closed, so an address that never answers costs nothing. Never empty.
  package var candidates: [Candidate]
  /// A device name or other label the user knows this endpoint by: what the user typed or a
  /// name someone advertised, so shown only escaped.
  package var label: PeerText?
  /// The fingerprint the receiver must present (from discovery or the trust store).
  package var expectedFingerprint: Fingerprint?
  /// Whether `expectedFingerprint` is only what a record nearby claims, for a name this home
  /// knows nothing of (what a mismatch is then said to be).
  package var expectedOnlyAsAdvertised = false
  /// The name under which the ID this receiver proves is remembered (trust on first use); nil
  /// when nothing is to be remembered (an address, an ID prefix).
  package var rememberAs: String?
  /// A LocalSend device heard by the daemon: sent to by LocalSend (`LocalSendDelivery`).
  package var localSend: LocalSendPeer? = nil
  /// The `--to` this endpoint was found for, as given (nil when chosen without one).
  package var target: String? = nil
  /// More addresses of the device, looked for only when none of `candidates` proves it: for a
  /// name this home knows, resolved directly, whose record may be a copy pointing elsewhere or
  /// hold the name while the device itself is advertised as `name #2` (review 29). Every record
  /// claiming the device's ID, from a browse.
  package var elsewhere: (@Sendable () -> [Candidate])? = nil

  package init(host: String, port: UInt16, label: PeerText? = nil, expectedFingerprint: Fingerprint? = nil) {
    candidates = [Candidate(host: host, port: port)]
    self.label = label
    self.expectedFingerprint = expectedFingerprint
  }

  package init(candidates: [Candidate], label: PeerText?, expectedFingerprint: Fingerprint?, rememberAs: String? = nil) {
    precondition(!candidates.isEmpty, "an endpoint needs an address")
    self.candidates = candidates
    self.label = label
    self.expectedFingerprint = expectedFingerprint
    self.rememberAs = rememberAs
  }

  /// The first address.
  package var host: String { candidates[0].host }
  package var port: UInt16 { candidates[0].port }

  /// `host:port` of the first address, with brackets around an IPv6 address.
  package var address: String { candidates[0].address }

  /// A LocalSend device, at every address `claims` its fingerprint (newest first; the address
  /// `peer` was heard from when none is given): `LocalSendDelivery` tries them in turn.
  package init(localSend peer: LocalSendPeer, claims: [LocalSendPeer] = []) {
    var seen: Set<String> = []
    let candidates = (claims.isEmpty ? [peer] : claims).map { Candidate(host: $0.address, port: $0.port, advertisedAs: $0.alias) }
    self.init(candidates: candidates.filter { seen.insert($0.address).inserted }, label: peer.alias, expectedFingerprint: nil)
    localSend = peer
  }

  /// The label (escaped) or the address.
  package var description: String { label?.description ?? address }

  /// The label or the address, whole, for `--json` and for messages that escape it themselves.
  package var name: PeerText { label ?? PeerText(address) }

  /// Whether `text` is shaped like HOST:PORT (a numeric tail after the last colon, or a bracketed
  /// IPv6 address) even if the port is out of range: such a target is never a device name.
  package static func looksLikeAddress(_ text: String) -> Bool {
    if text.hasPrefix("[") { return true }
    guard let colon = text.lastIndex(of: ":") else { return false }
    let tail = text[text.index(after: colon)...]
    return !tail.isEmpty && tail.allSatisfy(\.isNumber) && !text[..<colon].contains(":")
  }

  /// Whether `text` is an IP address alone (`192.168.1.20`, `fe80::1`, `[::1]`): no device is
  /// called that, and it needs a port (review 32: it was looked up as a name).
  package static func isAddressWithoutPort(_ text: String) -> Bool {
    var host = text
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if let percent = host.firstIndex(of: "%") { host = String(host[..<percent]) }
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
  }

  /// Parses `HOST:PORT`, `[IPv6]:PORT` or `IPv6%scope` forms; nil when it is not one.
  package static func parse(_ text: String) -> Endpoint? {
    var host: Substring
    let portText: Substring
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
      host = text[text.index(after: text.startIndex)..<close]
      portText = text[text.index(close, offsetBy: 2)...]
    } else {
      guard let colon = text.lastIndex(of: ":") else { return nil }
      host = text[..<colon]
      portText = text[text.index(after: colon)...]
      // A bare IPv6 address without brackets is ambiguous; insist on brackets.
      if host.contains(":") { return nil }
    }
    guard !host.isEmpty, let port = UInt16(portText), port > 0 else { return nil }
    return Endpoint(host: String(host), port: port)
  }
}
