import Foundation
import ShareKit
import Synchronization

/// `share peers`: nearby share daemons, found over mDNS/DNS-SD (Avahi).
enum PeersCommand: Command {
  static let timeout = Option("--timeout", "SECONDS", kind: .number, "Wait at most this long for answers (default 3)")
  static let watch = Flag("--watch", "Keep listening and print peers as they appear and disappear")
  static let json = Flag("--json", "One JSON object per peer (or event), per line")

  static let spec = CommandSpec(
    path: ["peers"], summary: "List nearby peers (mDNS/DNS-SD through Avahi)",
    usage: ["peers [--timeout SECONDS] [--json]", "peers --watch [--json]"],
    discussion: """
      Lists the share daemons Avahi sees on the local network: name, short ID, addresses, port,
      and whether each is a contact ('share trust') or this home's own daemon; with a daemon
      running with --localsend, also the LocalSend devices it heard, marked '(LocalSend)'. It returns once
      Avahi has answered for now, or after --timeout. --watch streams appear and disappear
      events until interrupted. A browse result is only a routing hint: 'share send --to NAME'
      checks the peer's certificate against the ID before sending anything.
      """,
    options: [timeout, watch, json],
    examples: ["share peers", "share peers --watch --json"])

  /// A peer as `--json` prints it.
  struct Output: Encodable {
    var event: String?
    var name: PeerText
    var aliases: [PeerText]
    var id: String?
    var shortId: String?
    var addresses: [Peer.Address]
    var port: UInt16?
    var version: String?
    var trusted: Bool
    var isSelf: Bool

    init(_ peer: Peer, event: String? = nil) {
      self.event = event
      name = peer.name
      aliases = peer.aliases
      id = peer.id?.hex
      shortId = peer.id?.short
      addresses = peer.preferredAddresses
      port = peer.addresses.first?.port
      version = peer.version
      trusted = peer.trusted
      isSelf = peer.isSelf
    }
  }

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let timeout = try arguments.integer(Self.timeout, in: 0...3600) ?? 3
    let device = try context.device()
    let directory = PeerDirectory(own: device.fingerprint, trust: try Contacts(paths: context.paths).trusted())
    let json = arguments[Self.json]
    let terminal = context.terminal
    if arguments[Self.watch] {
      let stream = try directory.watch()
      let done = DispatchSemaphore(value: 0)
      let failure = Mutex<(any Error)?>(nil)
      Task {
        do {
          for try await event in stream {
            switch event {
            case .appeared(let peer): show(peer, event: "appeared", json: json, terminal: terminal)
            case .changed(let peer): show(peer, event: "changed", json: json, terminal: terminal)
            case .disappeared(let peer): show(peer, event: "disappeared", json: json, terminal: terminal)
            case .settled: if !json { terminal.err("(Avahi has answered for now; watching for changes, Ctrl-C to stop)") }
            }
          }
        } catch {
          failure.withLock { $0 = error }
        }
        done.signal()
      }
      done.wait()
      if let error = failure.withLock({ $0 }) { throw error }
      return .success
    }
    let peers = try runBlocking { try await directory.snapshot(timeout: .seconds(timeout)) }
    // LocalSend devices this home's daemon heard (it announces, and they answer meanwhile).
    let localSend = LocalSendPeer.heard(paths: context.paths, wait: min(Double(timeout), 1))
    if peers.isEmpty && localSend.isEmpty && !json { terminal.err("No peers nearby.") }
    for peer in peers { show(peer, event: nil, json: json, terminal: terminal) }
    for peer in localSend { show(peer, json: json, terminal: terminal) }
    return .success
  }

  /// A LocalSend device as `--json` prints it.
  struct LocalSendOutput: Encodable {
    var name: String
    var `protocol` = "localsend"
    var fingerprint: String
    var address: String
    var port: UInt16
    var deviceModel: String?
    var deviceType: String?
  }

  static func show(_ peer: LocalSendPeer, json: Bool, terminal: Terminal) {
    if json {
      terminal.out(JSONOutput.line(LocalSendOutput(
        name: peer.alias, fingerprint: peer.fingerprint, address: peer.address,
        port: peer.port, deviceModel: peer.deviceModel, deviceType: peer.deviceType)))
      return
    }
    let address = peer.address.contains(":") ? "[\(peer.address)]:\(peer.port)" : "\(peer.address):\(peer.port)"
    terminal.out("\(escape(peer.alias))\t\(escape(String(peer.fingerprint.prefix(12))))\t\(escape(address))\t(LocalSend)")
  }

  static func show(_ peer: Peer, event: String?, json: Bool, terminal: Terminal) {
    if json {
      terminal.out(JSONOutput.line(Output(peer, event: event)))
      return
    }
    let marks = [peer.isSelf ? "this home" : nil, peer.trusted ? "contact" : nil].compactMap { $0 }
    let addresses = peer.preferredAddresses.map { "\($0.address.contains(":") ? "[\($0.address)]" : $0.address):\($0.port)" }
    let line = "\(peer.name)\t\(peer.id?.short ?? "(no ID)")\t\(addresses.map(escape).joined(separator: " "))\(marks.isEmpty ? "" : "\t(" + marks.joined(separator: ", ") + ")")"
    terminal.out(event.map { "\($0): " } .map { $0 + line } ?? line)
  }
}
