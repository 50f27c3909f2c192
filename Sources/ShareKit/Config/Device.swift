import Foundation
import TLS

/// This device as peers see it: its name and its persistent identity.
package struct Device: Sendable {
  package var name: String
  /// Where `name` came from.
  package var nameSource: NameSource
  package var identity: DeviceIdentity
  package var paths: SharePaths

  /// Where a device's name comes from, in the order they count.
  package enum NameSource: Sendable, Equatable {
    /// Given for this run (`share daemon --name`).
    case option
    /// The home's settings (`share name NEW`).
    case settings
    /// The host name.
    case hostName
    /// Made up because the host name says nothing (`debian`, `localhost`, a container ID):
    /// see `DeviceName.fallback`.
    case generic(hostName: String)
  }

  /// The home's device when it has an identity; else one made up for this run, in memory only
  /// (nothing is written to a home that has none: review 45, `share --home DIR peers` left a
  /// private key in any folder named).
  package static func loadOrLook(paths: SharePaths) throws(ShareError) -> Device {
    let key = paths.identity.appendingPathComponent(DeviceIdentity.keyFileName)
    if FileManager.default.fileExists(atPath: key.path) { return try load(paths: paths) }
    do {
      let identity = try DeviceIdentity.ephemeral(commonName: DeviceName.certificateName)
      let name = "share-" + identity.fingerprint.short
      return Device(name: name, nameSource: .option, identity: identity, paths: paths)
    } catch {
      throw .transport("cannot make an identity to look with: \(error)", detail: error.detail)
    }
  }

  /// Loads (creating on first use) the identity of the home at `paths`. The name comes from
  /// `name`, else the settings file, else the host name (see `DeviceName.fallback`).
  package static func load(paths: SharePaths, name: String? = nil) throws(ShareError) -> Device {
    let settings = try Settings.load(from: paths.settings)
    let identity: DeviceIdentity
    do {
      // The certificate's common name is not the device name: the name may change (`share
      // name`, `daemon --name`) without a new certificate, and the ID never depends on it.
      identity = try DeviceIdentity.loadOrCreate(in: paths.identity, commonName: DeviceName.certificateName)
    } catch {
      throw .transport("cannot load this device's identity: \(error)", detail: error.detail)
    }
    let chosen: String
    let source: NameSource
    if let name {
      (chosen, source) = (name, .option)
    } else if let configured = settings.name {
      (chosen, source) = (configured, .settings)
    } else {
      let host = Settings.hostName
      let fallback = DeviceName.fallback(hostName: host, id: identity.fingerprint)
      (chosen, source) = (fallback, fallback == host ? .hostName : .generic(hostName: host))
    }
    // Only the length is enforced here (a DNS-SD instance name's limit); what 'share name'
    // refuses besides (control characters) is escaped wherever a name is shown.
    guard !chosen.isEmpty, chosen.utf8.count <= 63 else {
      // Named where it came from (review 32: `"name": ""` read as if typed on the command line).
      let whose = source == .settings ? "the device name in \(paths.settings.path) (\"name\")" : "the device name"
      throw .configuration("\(whose) must be 1 to 63 bytes long; 'share name NEW' sets another")
    }
    return Device(name: chosen, nameSource: source, identity: identity, paths: paths)
  }

  package var fingerprint: Fingerprint { identity.fingerprint }
}

/// The rules for device names: what is allowed, and the default when the host name is generic.
package enum DeviceName {
  /// The common name of every device certificate.
  static let certificateName = "share device"

  /// Host names that say nothing about a machine: a distribution's or an image's default, so
  /// that every clone of a VM or container would be called the same.
  static let genericHostNames: Set<String> = [
    "", "localhost", "localhost.localdomain", "localhost6", "(none)", "debian", "ubuntu", "fedora", "centos", "rocky",
    "almalinux", "alma", "rhel", "arch", "archlinux", "alpine", "opensuse", "suse", "gentoo", "kali", "raspberrypi",
    "raspberry", "pi", "linux", "nixos", "void", "mint", "manjaro", "pop-os", "vagrant", "ubuntu-server", "debian-server",
    "container", "docker", "vm", "box", "host", "server", "default",
  ]

  /// The default device name: the host name, unless it is generic (`debian`, `localhost`, …)
  /// or a container ID (12 or 64 hex digits). Then it is the host name (or `share` for a
  /// container ID) followed by the first four hex digits of the device ID, as `share id` shows
  /// them — `debian-3f2a` — so that clones differ, and without putting the user's login on the
  /// network.
  package static func fallback(hostName: String, id: Fingerprint) -> String {
    var host = hostName
    for suffix in [".localdomain", ".local"] where host.lowercased().hasSuffix(suffix) && host.count > suffix.count {
      host.removeLast(suffix.count)
    }
    let suffix = String(id.hex.prefix(4))
    if isContainerID(host) { return "share-\(suffix)" }
    if genericHostNames.contains(host.lowercased()) || problem(host) != nil {
      let base = host.isEmpty || problem(host) != nil ? "share" : host
      return "\(base)-\(suffix)"
    }
    return host
  }

  /// Whether a host name is a container ID (Docker and Podman name containers by 12 or 64 hex digits).
  static func isContainerID(_ host: String) -> Bool {
    (host.count == 12 || host.count == 64) && host.allSatisfy { $0.isHexDigit && !$0.isUppercase }
  }

  /// Why `name` cannot be a device name, or nil when it can: 1 to 63 bytes (a DNS-SD instance
  /// name's limit), no control characters, no leading or trailing blanks.
  package static func problem(_ name: String) -> String? {
    if name.isEmpty || name.utf8.count > 63 { return "must be 1 to 63 bytes long" }
    if name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
      return "must not contain control characters"
    }
    if name.first?.isWhitespace == true || name.last?.isWhitespace == true {
      return "must not start or end with a blank"
    }
    return nil
  }
}
