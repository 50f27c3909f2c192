import Foundation
import ShareKit

/// `share id`: this device's name and ID (the SHA-256 fingerprint of its public key).
enum IdCommand: Command {
  static let json = Flag("--json", "Print one JSON object")

  static let spec = CommandSpec(
    path: ["id"], summary: "Show this device's name and ID",
    usage: ["id [--json]"],
    discussion: """
      The name is the one peers see: the running daemon's, else this home's ('share name').
      The ID is the SHA-256 of the DER-encoded SubjectPublicKeyInfo of this device's certificate,
      shown as 16 groups of 4 hex digits. Check it with:
        openssl x509 -in CERT -pubkey -noout | openssl pkey -pubin -outform DER | sha256sum
      The identity is created on first use (Ed25519 key, owner-only, and a self-signed certificate).
      """,
    options: [json],
    examples: ["share id", "share id --json"], home: .mayCreate)

  struct Output: Encodable {
    var name: String
    var id: String
    var shortId: String
    var certificate: String
    /// The name Avahi advertises, when a daemon runs and it differs (a name taken on the network).
    var advertisedAs: String?
  }

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let device = try context.device()
    let running = try RunningDaemon.status(context.paths)
    let name = running?.name ?? device.name
    let advertised = running?.advertisedAs.flatMap { $0 == name ? nil : $0 }
    if arguments[Self.json] {
      context.terminal.out(
        JSONOutput.line(
          Output(
            name: name, id: device.fingerprint.hex, shortId: device.fingerprint.short,
            certificate: device.identity.certificateURL.path, advertisedAs: advertised)))
      return .success
    }
    context.terminal.out("Name: \(escape(name))")
    context.terminal.out("ID:   \(device.fingerprint.grouped)")
    if let advertised {
      context.terminal.err("(advertised as \(escape(advertised)): the name \(escape(name)) is taken on this network)")
    }
    if running != nil, name != device.name {
      context.terminal.err("(the running daemon was started with --name; this home's name is \(escape(device.name)))")
    }
    return .success
  }
}

/// `share name [NEW]`: the device name peers see, set once for this home.
enum NameCommand: Command {
  static let spec = CommandSpec(
    path: ["name"], summary: "Show or set this device's name",
    usage: ["name [NEW]"],
    discussion: """
      Without NEW: the name peers see and where it comes from. With NEW: keeps it in this home's
      settings; the daemon advertises it, sends carry it, and 'share id' prints it. A running
      daemon keeps its name until it is restarted.

      Without a name in the settings, the host name is used; a generic host name (localhost,
      debian, ubuntu, … or a container ID) gets the first four hex digits of the device ID
      added, as in debian-3f2a, so that machines cloned from one image differ.
      """,
    arguments: 0...1, argumentKind: .text,
    examples: ["share name", "share name lab-b", "share name \"Alice's laptop\""], home: .mayCreate)

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    guard let new = arguments.positionals.first else {
      let device = try context.device()
      context.terminal.out(device.name)
      context.terminal.err(origin(of: device))
      return .success
    }
    if let problem = DeviceName.problem(new) { throw UsageError("the device name \(problem)", spec: spec) }
    try Settings.update(at: context.paths.settings) { $0.name = new }
    context.terminal.err("This device is now called \(escape(new)).")
    if let running = try RunningDaemon.status(context.paths), running.name != new {
      context.terminal.err(
        "The running daemon still advertises \(escape(running.name)) (pid \(running.pid)); restart it to use the new name.")
    }
    return .success
  }

  private static func origin(of device: Device) -> String {
    switch device.nameSource {
    case .option: return "(given with --name)"
    case .settings: return "(set with 'share name')"
    case .hostName: return "(the host name; set another with 'share name NEW')"
    case .generic(let host):
      return
        "(the host name \(escape(host.isEmpty ? "(none)" : host)) is generic, so the start of the device ID was added; set another with 'share name NEW')"
    }
  }
}

/// The daemon of this home, when one runs.
enum RunningDaemon {
  /// Its status, or nil when none answers.
  static func status(_ paths: SharePaths) -> DaemonStatus? {
    (try? ControlClient.send(.status, paths: paths))?.status
  }

  /// Whether one listens for this home; a control socket that another user serves, or a daemon
  /// that does not answer, is an error rather than "none" (nothing is sent to it).
  static func isRunning(_ paths: SharePaths) throws -> Bool {
    try ControlClient.sendIfRunning(.status, paths: paths) != nil
  }
}
