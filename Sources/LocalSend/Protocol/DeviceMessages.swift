/// Device types (protocol §7.1), used only for icons. Unknown values read as `desktop`, as the
/// document asks and the LocalSend app does.
package enum DeviceType: String, Codable, Sendable, CaseIterable {
  case mobile, desktop, web, headless, server

  package init(from decoder: any Decoder) throws {
    let value = try decoder.singleValueContainer().decode(String.self)
    self = DeviceType(rawValue: value.lowercased()) ?? .desktop
  }
}

/// Whether a device's server speaks HTTPS or plain HTTP (the JSON field `protocol`).
package enum ProtocolScheme: String, Codable, Sendable {
  case http, https
}

/// A device as it describes itself in a register request, an announcement and the `info`
/// object of prepare-upload (protocol §3, §4.1): everything a peer needs to reach it.
package struct LocalSendDevice: Codable, Sendable, Equatable {
  package var alias: String
  /// Protocol version, "major.minor".
  package var version: String
  package var deviceModel: String?
  package var deviceType: DeviceType?
  /// In HTTPS mode the SHA-256 of its certificate; in HTTP mode a random string. Only a hint:
  /// the document says it is ignored in HTTPS mode, where the certificate speaks.
  package var fingerprint: String
  package var port: Int
  /// The JSON field `protocol`.
  package var scheme: ProtocolScheme
  /// Whether its download API (§5) is on; absent means false.
  package var download: Bool

  package init(
    alias: String, version: String = LocalSendProtocol.version, deviceModel: String?,
    deviceType: DeviceType?, fingerprint: String, port: Int, scheme: ProtocolScheme = .https,
    download: Bool = false
  ) {
    self.alias = alias
    self.version = version
    self.deviceModel = deviceModel
    self.deviceType = deviceType
    self.fingerprint = fingerprint
    self.port = port
    self.scheme = scheme
    self.download = download
  }

  enum CodingKeys: String, CodingKey {
    case alias, version, deviceModel, deviceType, fingerprint, port, download
    case scheme = "protocol"
  }

  /// The fields it shares with `DeviceInfo` are read as `DeviceInfo` reads them, but the
  /// fingerprint must be there.
  package init(from decoder: any Decoder) throws {
    let info = try DeviceInfo(from: decoder)
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      alias: info.alias, version: info.version, deviceModel: info.deviceModel, deviceType: info.deviceType,
      fingerprint: try container.decode(String.self, forKey: .fingerprint),
      port: try container.decode(Int.self, forKey: .port),
      scheme: try container.decode(ProtocolScheme.self, forKey: .scheme), download: info.download)
  }

  /// What `info` and the register response say about this device.
  package var info: DeviceInfo {
    DeviceInfo(
      alias: alias, version: version, deviceModel: deviceModel, deviceType: deviceType,
      fingerprint: fingerprint, download: download)
  }
}

/// The answer to `GET /info` and to `POST /register` (protocol §3.2, §6.1): a device without
/// its port and scheme, which the asker already used.
package struct DeviceInfo: Codable, Sendable, Equatable {
  package var alias: String
  package var version: String
  package var deviceModel: String?
  package var deviceType: DeviceType?
  package var fingerprint: String
  package var download: Bool

  package init(
    alias: String, version: String, deviceModel: String?, deviceType: DeviceType?,
    fingerprint: String, download: Bool
  ) {
    self.alias = alias
    self.version = version
    self.deviceModel = deviceModel
    self.deviceType = deviceType
    self.fingerprint = fingerprint
    self.download = download
  }

  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    alias = try container.decode(String.self, forKey: .alias)
    version = try container.decode(String.self, forKey: .version)
    deviceModel = try container.decodeIfPresent(String.self, forKey: .deviceModel)
    deviceType = try container.decodeIfPresent(DeviceType.self, forKey: .deviceType)
    fingerprint = try container.decodeIfPresent(String.self, forKey: .fingerprint) ?? ""
    download = try container.decodeIfPresent(Bool.self, forKey: .download) ?? false
  }
}

/// A multicast datagram (§3.1): a device plus `announce` — true for an announcement, which
/// asks others to answer, false for an answer. Older apps sent `announcement` instead.
package struct MulticastMessage: Codable, Sendable, Equatable {
  package var device: LocalSendDevice
  package var announce: Bool

  package init(device: LocalSendDevice, announce: Bool) {
    self.device = device
    self.announce = announce
  }

  enum Keys: String, CodingKey { case announce, announcement }

  package init(from decoder: any Decoder) throws {
    device = try LocalSendDevice(from: decoder)
    let container = try decoder.container(keyedBy: Keys.self)
    announce =
      try container.decodeIfPresent(Bool.self, forKey: .announce)
      ?? container.decodeIfPresent(Bool.self, forKey: .announcement) ?? false
  }

  package func encode(to encoder: any Encoder) throws {
    try device.encode(to: encoder)
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(announce, forKey: .announce)
  }
}
