import Dispatch
import Foundation
import Glibc
import InboxStore
import ShareKit
import Wire

/// `share daemon`: receive into this home's Inbox until stopped.
enum DaemonCommand: Command {
  static let spec = CommandSpec(
    path: ["daemon"], summary: "Receive items into Documents/Inbox until stopped",
    usage: ["daemon [--port N] [--host ADDR] [--name NAME] [--json]"],
    discussion: """
      Listens for senders over TLS 1.3 (a client certificate is required) and files what it
      accepts into Documents/Inbox, read-only. Prints 'listening on port N' on stdout once ready
      (with --json, a {"event":"listening",...} line); logs to stderr. SIGTERM or Ctrl-C stops it.
      """,
    options: [
      .value("--port", "N", "TCP port to listen on; 0 picks a free one (default 0)"),
      .value("--host", "ADDR", "Address to listen on (default: all, IPv4 and IPv6)"),
      .value("--name", "NAME", "Device name peers see (default: settings, else host name)"),
      .flag("--json", "Print events as JSON lines on stdout"),
    ],
    examples: ["share daemon --port 0", "share --home /tmp/peer-b daemon --name lab-b --json"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let port = try arguments.integer("--port", in: 0...65535) ?? 0
    let device = try context.device(name: arguments.value("--name"))
    let store: InboxStore
    do {
      store = try InboxStore(documents: context.paths.documents)
    } catch {
      throw ShareError.inbox(error)
    }
    // Nothing can be resumed yet: an interrupted transfer's staging is removed, never shown.
    store.removeStaging()

    let log = DaemonLog(terminal: context.terminal, json: arguments.flag("--json"))
    let types = try TypeGate.load(paths: context.paths)
    let receiver = try Receiver(
      device: device, store: store, policy: ReceivePolicy(types: types),
      configuration: ReceiverConfiguration(host: arguments.value("--host"), port: UInt16(port)),
      events: { log.record($0) })

    let signals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
      source.setEventHandler {
        log.note("stopping (signal \(number))")
        receiver.stop()
        exit(ExitCode.success.rawValue)
      }
      source.resume()
      return source
    }
    log.note("type declarations: \(types.source)")
    log.note("receiving as \(escape(device.name)) (\(device.fingerprint.short)) into \(context.paths.inbox.path)")
    receiver.start()
    withExtendedLifetime(signals) { dispatchMain() }
  }
}

/// Turns receiver events into log lines on stderr, or JSON lines on stdout.
struct DaemonLog: Sendable {
  var terminal: Terminal
  var json: Bool

  struct Event: Encodable {
    var event: String
    var time = Date()
    var port: UInt16? = nil
    var peerName: String? = nil
    var peerId: String? = nil
    var address: String? = nil
    var item: String? = nil
    var storedAs: String? = nil
    var size: Int64? = nil
    var type: String? = nil
    var reason: String? = nil
    var stored: Int? = nil
    var refused: Int? = nil
    var failed: Int? = nil
    var message: String? = nil
  }

  func note(_ message: String) {
    if json {
      terminal.out(JSONOutput.line(Event(event: "note", message: message)))
    } else {
      terminal.err("share: \(message)")
    }
  }

  func record(_ event: ReceiverEvent) {
    switch event {
    case .listening(let port):
      if json {
        terminal.out(JSONOutput.line(Event(event: "listening", port: port)))
      } else {
        terminal.out("listening on port \(port)")
      }
    case .connected(let peer):
      emit(Event(event: "connected", peerName: peer.name, peerId: peer.fingerprint.hex, address: peer.address),
           "\(describe(peer)) connected from \(peer.address)")
    case .asked(let peer, let items, let answers):
      let accepted = answers.filter(\.accepted).count
      emit(Event(event: "asked", peerName: peer.name, peerId: peer.fingerprint.hex, stored: accepted, refused: items.count - accepted),
           "\(describe(peer)) offers \(items.count) item(s); accepted \(accepted)")
    case .stored(let peer, let item, let storedAs, let size, let type):
      emit(Event(event: "stored", peerName: peer.name, peerId: peer.fingerprint.hex, item: item.name, storedAs: storedAs, size: size, type: type),
           "stored \(escape(storedAs)) (\(formatBytes(size))) from \(describe(peer))")
    case .refused(let peer, let item, let reason):
      emit(Event(event: "refused", peerName: peer.name, peerId: peer.fingerprint.hex, item: item.name, reason: reason),
           "refused \(escape(item.name)) from \(describe(peer)): \(escape(reason))")
    case .failed(let peer, let item, let reason):
      emit(Event(event: "failed", peerName: peer.name, peerId: peer.fingerprint.hex, item: item.name, reason: reason),
           "failed to receive \(escape(item.name)) from \(describe(peer)): \(escape(reason))")
    case .connectionFailed(let address, let peer, let error):
      emit(Event(event: "connection_failed", peerName: peer?.name, peerId: peer?.fingerprint.hex, address: address, reason: error.description),
           "connection from \(address) failed: \(escape(error.description))" + (terminal.verbose ? " [\(escape(error.detail))]" : ""))
    case .finished(let peer, let stored, let refused, let failed):
      emit(Event(event: "finished", peerName: peer.name, peerId: peer.fingerprint.hex, stored: stored, refused: refused, failed: failed),
           "\(describe(peer)): \(stored) stored, \(refused) refused, \(failed) failed")
    }
  }

  private func emit(_ event: Event, _ text: String) {
    if json {
      terminal.out(JSONOutput.line(event))
    } else {
      terminal.err("share: " + text)
    }
  }

  private func describe(_ peer: PeerInfo) -> String {
    "\(escape(peer.name)) (\(peer.fingerprint.short))"
  }
}
