/// Settings of a LocalSend receiver that do not change while it runs.
package struct LocalSendServerConfiguration: Sendable {
  /// Address to listen on; nil for every interface.
  package var host: String?
  /// TCP port; 0 lets the kernel choose (tests).
  package var port: UInt16
  /// How this device introduces itself.
  package var alias: String
  package var deviceModel: String?
  package var deviceType: DeviceType
  /// When set, prepare-upload needs `?pin=` with this value.
  package var pin: String?
  package var limits: LocalSendLimits
  package var http: HTTPLimits
  /// A client must finish the TLS handshake within this time.
  package var handshakeTimeout: Duration
  /// An active session with no upload for this long gives way to the next offer. A sender
  /// starts uploading as soon as its offer is accepted; a minute is ample, and one that got its
  /// tokens and went away holds the one session no longer than that.
  package var sessionTimeout: Duration
  /// Connections served at once, in total and per client address.
  package var maxConnections: Int
  package var maxConnectionsPerAddress: Int

  package init(
    host: String? = nil, port: UInt16 = LocalSendProtocol.defaultPort, alias: String,
    deviceModel: String? = "Linux", deviceType: DeviceType = .desktop, pin: String? = nil,
    limits: LocalSendLimits = .default, http: HTTPLimits = .default,
    handshakeTimeout: Duration = .seconds(10), sessionTimeout: Duration = .seconds(60),
    maxConnections: Int = 32, maxConnectionsPerAddress: Int = 8
  ) {
    self.host = host
    self.port = port
    self.alias = alias
    self.deviceModel = deviceModel
    self.deviceType = deviceType
    self.pin = pin
    self.limits = limits
    self.http = http
    self.handshakeTimeout = handshakeTimeout
    self.sessionTimeout = sessionTimeout
    self.maxConnections = maxConnections
    self.maxConnectionsPerAddress = maxConnectionsPerAddress
  }
}
