import Discovery
import Foundation
import TextEscaping
import TLS

/// A nearby device as discovery sees it: one entry per device ID, however many interfaces and
/// addresses it was seen on. Everything here came from the network: a routing hint only. The
/// TLS certificate must match `id` before any item metadata is sent.
public struct Peer: Sendable, Equatable, Codable {
  /// Where the peer can be reached.
  public struct Address: Sendable, Hashable, Codable {
    /// Numeric; an IPv6 link-local address keeps its scope (`fe80::1%eth0`).
    public var address: String
    public var port: UInt16
    public var interface: String
  }

  /// The advertised instance name: the device name, as anyone on the network may write it.
  public var name: PeerText
  /// Other instance names seen with the same device ID (after a name collision, or a record
  /// that copies the ID): a send by any of them reaches this ID, and only this ID.
  public var aliases: [PeerText] = []
  /// The device ID from the TXT record; nil when the record has none or a malformed one.
  public var id: Fingerprint?
  /// The protocol version it advertises.
  public var version: String?
  public var addresses: [Address]
  /// This home's own daemon.
  public var isSelf: Bool
  /// A contact of this home.
  public var trusted: Bool

  /// A stable key: the device ID, else the name (a record without an ID).
  var key: String { id?.hex ?? "name:\(name.unescaped)" }

  /// Whether it is advertised as `name` (its own name or an alias).
  public func isCalled(_ name: String, caseInsensitive: Bool = false) -> Bool {
    let names = ([self.name] + aliases).map(\.unescaped)
    if caseInsensitive { return names.contains { $0.lowercased() == name.lowercased() } }
    return names.contains(name)
  }

  /// Addresses in the order to try: IPv4, then global IPv6, then link-local IPv6.
  public var preferredAddresses: [Address] {
    addresses.sorted { rank($0) < rank($1) }
  }

  private func rank(_ address: Address) -> Int {
    if !address.address.contains(":") { return 0 }
    return address.address.lowercased().hasPrefix("fe80") ? 2 : 1
  }

  /// The endpoint to send to: every address to try, and the certificate it must present.
  public var endpoint: Endpoint? {
    let ordered = preferredAddresses
    guard let first = ordered.first else { return nil }
    var endpoint = Endpoint(host: first.address, port: first.port, label: name.unescaped, expectedFingerprint: id)
    endpoint.alternatives = ordered.dropFirst().map { ($0.address, $0.port) }
    return endpoint
  }
}

/// The TXT keys share advertises (at most 9 characters each, nothing that identifies a person).
public enum AdvertisedKeys {
  /// Protocol version.
  public static let version = "v"
  /// Device ID: the 64 hex digits of the certificate's public-key fingerprint.
  public static let id = "id"

  /// The TXT record for a device.
  public static func record(for device: Device) -> [String: String] {
    [version: String(protocolVersionString), id: device.fingerprint.hex]
  }

  static let protocolVersionString = "1"
}
