import TextEscaping

/// Why discovery failed. `description` is one sentence for a user, saying what
/// failed and what to do; `detail` holds the C-level detail (Avahi's error
/// code and `avahi_strerror` text) for `--verbose`.
package enum DiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
  /// avahi-daemon, or the D-Bus system bus it is reached through, is not
  /// running or went away. `detail` names the call or event and gives Avahi's
  /// own text, e.g. "avahi_client_new: Daemon not running".
  case daemonUnreachable(detail: String)
  /// A libavahi call failed: the C function (or callback) that reported it,
  /// Avahi's error code (`AVAHI_ERR_*`, negative) and its `avahi_strerror` text.
  case avahi(call: String, code: Int32, message: String)
  /// One discovered instance could not be resolved (no SRV/address answer in
  /// time, or a malformed record). Non-fatal for a browse.
  case resolveFailed(ServiceInstance, code: Int32, message: String)
  /// A service name we were asked to publish is not acceptable.
  case invalidServiceName(String, reason: String)
  /// A service type is not of the form `_name._tcp` / `_name._udp`.
  case invalidServiceType(String)
  /// A TXT key or value we were asked to publish is not acceptable.
  case invalidTXT(key: String, reason: String)

  /// The sentence shown when Avahi cannot be reached.
  package static let daemonUnreachableAdvice =
    "Avahi is not running (avahi-daemon). Start it (sudo systemctl start avahi-daemon, "
    + "or scripts/avahi-up.sh), or send directly with --to HOST:PORT."

  package var description: String {
    switch self {
    case .daemonUnreachable:
      return Self.daemonUnreachableAdvice
    case .avahi(let call, _, let message):
      return "Avahi call \(call) failed: \(message)."
    case .resolveFailed(let instance, _, let message):
      return "Could not resolve \"\(Escaping.escaped(instance.name, maximumLength: .max))\" on "
        + "\(Escaping.escaped(instance.interfaceName, maximumLength: .max)) (\(instance.ipProtocol)): \(message)."
    case .invalidServiceName(let name, let reason):
      return "Invalid service name \"\(Escaping.escaped(name, maximumLength: .max))\": \(reason)."
    case .invalidServiceType(let type):
      return
        "Invalid service type \"\(Escaping.escaped(type, maximumLength: .max))\": expected _name._tcp or _name._udp."
    case .invalidTXT(let key, let reason):
      return "Invalid TXT entry \"\(Escaping.escaped(key, maximumLength: .max))\": \(reason)."
    }
  }

  /// The C-level detail for `--verbose`, or nil when there is none.
  package var detail: String? {
    switch self {
    case .daemonUnreachable(let detail):
      return detail
    case .avahi(let call, let code, let message):
      return "\(call): \(message) (avahi error \(code))"
    case .resolveFailed(_, let code, let message):
      return "avahi_service_resolver: \(message) (avahi error \(code))"
    default:
      return nil
    }
  }
}
