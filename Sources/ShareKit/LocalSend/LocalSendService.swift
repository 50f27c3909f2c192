import Foundation
import LocalSend
import Synchronization
import TLS

/// How the daemon speaks LocalSend (`share daemon --localsend`, or `"localsend": true` in the
/// settings).
package struct LocalSendOptions: Sendable, Equatable {
  /// The HTTPS port; 0 lets the kernel choose (tests).
  package var port: UInt16 = LocalSendProtocol.defaultPort
  /// Where multicast discovery runs: the IPv4 address of one interface; nil for none (then
  /// senders must be given this machine's address, or find it by the app's HTTP scan).
  package var multicastInterface: String?
  /// The multicast port (the protocol's 53317 unless a test moves it).
  package var multicastPort: UInt16 = LocalSendProtocol.defaultPort
  /// The PIN every offer must carry (`--localsend-pin`); nil: the settings' `localsend_pin`, if any.
  package var pin: LocalSendPin?

  package init(
    port: UInt16 = LocalSendProtocol.defaultPort, multicastInterface: String? = nil,
    multicastPort: UInt16 = LocalSendProtocol.defaultPort, pin: LocalSendPin? = nil
  ) {
    self.port = port
    self.multicastInterface = multicastInterface
    self.multicastPort = multicastPort
    self.pin = pin
  }
}

/// What `share status` shows of LocalSend.
package struct LocalSendStatus: Codable, Sendable, Equatable {
  package var port: UInt16
  /// This device's LocalSend fingerprint: SHA-256 of its certificate, uppercase hex.
  package var fingerprint: String
  /// The interface address multicast discovery runs on, if it does.
  package var multicast: String?
  /// Whether offers need the PIN (`?pin=`); the PIN itself is never shown.
  package var pinRequired: Bool
}

/// The daemon's LocalSend side: the HTTPS receiver with `LocalSendGate` as its delegate, and,
/// when asked for, multicast discovery (announce at start, answer announcements).
///
/// `@unchecked Sendable`: its parts are thread-safe and set once in `init`.
final class LocalSendService: @unchecked Sendable {
  let server: LocalSendServer
  /// The devices heard by multicast or `/register`, for `share peers` and `share send`.
  let nearby = LocalSendNearby()
  private let gate: LocalSendGate
  private let discovery: MulticastDiscovery?
  private let options: LocalSendOptions
  private let note: @Sendable (String) -> Void

  /// `admission`: the caps share's receiver has, applied to LocalSend connections by their own table.
  init(
    identity: DeviceIdentity, alias: String, host: String?, options: LocalSendOptions, admission: ReceiverConfiguration,
    context: LocalSendContext, note: @escaping @Sendable (String) -> Void
  ) throws(ShareError) {
    self.options = options
    self.note = note
    let nearby = self.nearby
    gate = LocalSendGate(context: context, note: note) { sender in nearby.heard(sender.device, from: sender.address) }
    let gatekeeper = context.gatekeeper
    let door = LocalSendAdmission(
      configuration: admission,
      isContact: { certificate in Fingerprint(bytes: certificate.bytes).map { gatekeeper.trust.trusts($0) } ?? false },
      events: context.emit)
    do {
      server = try LocalSendServer(
        identity: identity,
        configuration: LocalSendServerConfiguration(
          host: host, port: options.port, alias: alias, deviceModel: LocalSendPeer.shareModel, pin: options.pin?.value),
        delegate: gate, door: door)
      if let interface = options.multicastInterface {
        let channel = try MulticastChannel(port: options.multicastPort, interfaceAddress: interface)
        let client = try LocalSendClient(identity: identity, device: server.device)
        discovery = MulticastDiscovery(channel: channel, device: server.device, client: client) { heard in
          nearby.heard(heard.device, from: heard.address)
        }
      } else {
        discovery = nil
      }
    } catch {
      throw .configuration("cannot start LocalSend: \(error)")
    }
  }

  var status: LocalSendStatus {
    LocalSendStatus(
      port: server.port, fingerprint: server.fingerprint.hex, multicast: discovery?.channel.interfaceAddress,
      pinRequired: options.pin != nil)
  }

  func start() {
    server.start()
    let pin = options.pin == nil ? "" : ", PIN required"
    note("LocalSend: receiving on port \(server.port) (fingerprint \(server.fingerprint.hex)\(pin))")
    guard let discovery else { return }
    discovery.start()
    do {
      try discovery.announce()
    } catch {
      note("LocalSend: cannot announce on \(discovery.channel.interfaceAddress): \(error)")
    }
  }

  /// The devices heard recently, after announcing this one and giving them `wait` to answer
  /// (the LocalSend app answers by `/register`, localsend-cli only announces every few seconds).
  func peers(wait: Duration) -> [LocalSendPeer] {
    if let discovery, (try? discovery.announce()) != nil, wait > .zero {
      Thread.sleep(forTimeInterval: wait / .seconds(1))
    }
    return nearby.current()
  }

  func stop() {
    discovery?.stop()
    server.stop()
  }
}

extension LocalSendService {
  /// The daemon's LocalSend receiver, if the options (`--localsend`) or the settings turn it on;
  /// it listens where share's receiver does (`--host`). Its PIN is `--localsend-pin`, else the
  /// settings' `localsend_pin` (however LocalSend was turned on: the file is the better place for
  /// a secret, since a command line is visible in `ps`).
  static func make(
    options: DaemonOptions, settings: Settings, device: Device, context: LocalSendContext,
    note: @escaping @Sendable (String) -> Void
  ) throws(ShareError) -> LocalSendService? {
    let fromSettings = try LocalSendOptions(settings: settings, host: options.host)
    guard var chosen = options.localSend ?? fromSettings else { return nil }
    if chosen.pin == nil { chosen.pin = try LocalSendPin(settings: settings) }
    return try LocalSendService(
      identity: device.identity, alias: device.name, host: options.host, options: chosen,
      admission: options.configuration, context: context, note: note)
  }
}

/// Where multicast discovery runs: `off`, `auto`, or the IPv4 address of one interface.
package enum MulticastSetting: Sendable, Equatable {
  case off
  case auto
  case interface(String)

  /// Parses `off`, `auto` or an IPv4 address; nil for anything else.
  package init?(_ text: String) {
    switch text {
    case "off": self = .off
    case "auto": self = .auto
    default:
      guard MulticastChannel.isIPv4(text) else { return nil }
      self = .interface(text)
    }
  }

  /// The interface address to use: for `auto`, the address the daemon listens on when that is
  /// one IPv4 address (so a daemon on 127.0.0.1 announces on loopback only), else the first
  /// interface that is up, not loopback and multicast-capable.
  package func resolve(host: String?) -> String? {
    switch self {
    case .off: return nil
    case .interface(let address): return address
    case .auto:
      if let host, MulticastChannel.isIPv4(host) { return host }
      return MulticastChannel.defaultInterfaceAddress()
    }
  }
}

extension LocalSendOptions {
  /// The options for `port` and `multicast` with the daemon listening on `host`; multicast uses
  /// the same port (the protocol's 53317 when the HTTPS port is left to the kernel).
  package init(port: UInt16, multicast: MulticastSetting, host: String?) {
    self.init(
      port: port, multicastInterface: multicast.resolve(host: host),
      multicastPort: port == 0 ? LocalSendProtocol.defaultPort : port)
  }

  /// The options the settings ask for, or nil when they do not turn LocalSend on.
  init?(settings: Settings, host: String?) throws(ShareError) {
    guard settings.localsend == true else { return nil }
    let text = settings.localsendMulticast ?? "auto"
    guard let multicast = MulticastSetting(text) else {
      throw .configuration("localsend_multicast is '\(text)' in the settings; it must be auto, off or an IPv4 address")
    }
    self.init(port: settings.localsendPort ?? LocalSendProtocol.defaultPort, multicast: multicast, host: host)
  }
}

extension LocalSendPin {
  /// The settings' `localsend_pin`, checked; nil when there is none.
  init?(settings: Settings) throws(ShareError) {
    guard let text = settings.localsendPin else { return nil }
    do {
      try self.init(text)
    } catch {
      throw .configuration("localsend_pin in the settings \(error)")
    }
  }
}
