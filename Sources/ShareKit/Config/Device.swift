import Foundation
import TLS

/// This device as peers see it: its name and its persistent identity.
public struct Device: Sendable {
  public var name: String
  public var identity: DeviceIdentity
  public var paths: SharePaths

  /// Loads (creating on first use) the identity of the home at `paths`. The name comes from
  /// `name`, else the settings file, else the host name.
  public static func load(paths: SharePaths, name: String? = nil) throws(ShareError) -> Device {
    let settings = try Settings.load(from: paths.settings)
    let chosen = name ?? settings.name ?? Settings.hostName
    guard !chosen.isEmpty, chosen.utf8.count <= 63 else {
      throw .configuration("the device name must be 1 to 63 bytes long")
    }
    do {
      let identity = try DeviceIdentity.loadOrCreate(in: paths.identity, commonName: chosen)
      return Device(name: chosen, identity: identity, paths: paths)
    } catch {
      throw .transport("cannot load this device's identity: \(error)", detail: error.detail)
    }
  }

  public var fingerprint: Fingerprint { identity.fingerprint }
}
