import Dispatch
import Foundation
import Glibc
import ShareKit
import Synchronization

/// `share daemon`: receive into this home's Inbox until stopped.
enum DaemonCommand: Command {
  static let port = Option("--port", "N", kind: .number, "TCP port to listen on; 0 picks a free one (default 0)")
  static let host = Option("--host", "ADDR", kind: .address, "Address to listen on (default: all, IPv4 and IPv6)")
  static let name = Option("--name", "NAME", "Device name peers see (default: settings, else host name)")
  static let mode = Option(
    "--mode", "MODE", kind: .choice(ReceiveMode.allCases.map(\.rawValue)),
    "off, contacts or everyone (default: the last 'share receive', else everyone)")
  static let duration = Option(
    "--for", "DURATION", kind: .duration,
    "With --mode everyone: fall back to contacts after DURATION (90s, 10m, 1h; a bare number is minutes)")
  static let grace = Option(
    "--grace", "DURATION", kind: .duration,
    "How long transfers in flight may finish on SIGTERM (90s, 10m; a bare number is seconds; default 5s)")
  static let askTimeout = Option(
    "--ask-timeout", "DURATION", kind: .duration,
    "How long an ask waits for 'share accept' (90s, 10m; a bare number is seconds; default 2m)")
  static let onReceive = Option(
    "--on-receive", "CMD", kind: .shellCommand,
    "Run CMD (with /bin/sh -c) for each stored item; its metadata is in SHARE_ITEM_* variables; stopping ends a run still going after 10 s"
  )
  static let hooksUnconfined = Flag(
    "--hooks-unconfined", "Run --on-receive and --notify outside the daemon's Landlock confinement")
  static let notify = Flag("--notify", "Show a desktop notification (notify-send) for arrivals and asks")
  static let json = Flag("--json", "Print events as JSON lines on stdout")
  static let localSend = Flag("--localsend", "Also receive from LocalSend apps (phones, other computers); see 'Phones and LocalSend'")
  static let localSendPort = Option(
    "--localsend-port", "N", kind: .number, "With --localsend: its HTTPS port, and multicast's (default 53317)")
  static let localSendMulticastPort = Option(
    "--localsend-multicast-port", "N", kind: .number,
    "With --localsend: the multicast port (default: --localsend-port, or 53317 when that is 0)")
  static let localSendMulticast = Option(
    "--localsend-multicast", "WHERE", kind: .address,
    "With --localsend: multicast discovery on auto (the --host address, else the first LAN interface), off, or an IPv4 address")
  static let localSendPin = Option(
    "--localsend-pin", "PIN",
    "With --localsend: senders must give this PIN (1-\(LocalSendPin.maxBytes) bytes, printable, no spaces); "
      + "better as localsend_pin in settings.json, as 'ps' shows command lines to every user")

  static let spec = CommandSpec(
    path: ["daemon"], summary: "Receive items into Documents/Inbox until stopped",
    usage: ["daemon [--port N] [--host ADDR] [--name NAME] [--mode MODE [--for DURATION]] [--json]"],
    discussion: """
      Listens for senders over TLS 1.3 (a client certificate is required) and files what it
      accepts into Documents/Inbox, read-only. Prints 'listening on port N' on stdout once ready
      (with --json, a {"event":"listening",...} line); logs to stderr.

      Receive modes: off (refuses everything), contacts (only trusted peers, see 'share trust'),
      everyone (strangers' asks wait for 'share accept N'; --for 10m falls back to contacts).
      Nothing is written to disk before an ask is accepted. Change the mode of a running
      daemon with 'share receive'.

      SIGTERM or Ctrl-C: stops taking new asks, lets transfers in flight finish within --grace,
      then cancels them keeping their staging, so the sender's next try resumes.
      SIGHUP reloads the declarations and the contacts (a broken file keeps the old one).

      The daemon confines itself with Landlock: it can change files only in its own folders
      (configuration, Inbox and staging, runtime) and /dev/null, and so can the --on-receive
      command it runs, unless --hooks-unconfined starts a separate, unconfined process for it.
      Where the kernel has no Landlock, it says so and runs unconfined.
      --localsend also speaks LocalSend protocol v2 (HTTPS, same certificate; its fingerprint is
      in 'share status'): every file goes through the same modes, asks, type rules and Inbox.
      A PIN (localsend_pin in settings.json, or --localsend-pin) is asked of every LocalSend
      sender before that; 'share status' says whether one is required, never the PIN.
      One daemon per home. Under systemd, readiness is reported through $NOTIFY_SOCKET.
      """,
    options: [
      port, host, name, mode, duration, grace, askTimeout, onReceive, hooksUnconfined, notify, json, localSend,
      localSendPort, localSendMulticast, localSendMulticastPort, localSendPin,
    ],
    examples: [
      "share daemon --port 0", "share --home /tmp/peer-b daemon --name lab-b --json",
      "share daemon --mode everyone --for 10m --notify", "share daemon --localsend",
      "share daemon --on-receive 'logger -t share \"got $SHARE_ITEM_NAME from $SHARE_SENDER_NAME\"'",
    ], home: .mayCreate)

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    var options = DaemonOptions()
    options.port = UInt16(try arguments.integer(Self.port, in: 0...65535) ?? 0)
    options.host = arguments[Self.host]
    options.name = arguments[Self.name]
    options.mode = try modeSetting(arguments)
    if let seconds = try arguments.duration(Self.grace, bare: .seconds, in: 0...3600) { options.grace = .seconds(seconds) }
    if let seconds = try arguments.duration(Self.askTimeout, bare: .seconds, in: 1...86400) {
      options.askTimeout = .seconds(seconds)
    }
    options.onReceive = arguments[Self.onReceive]
    options.notify = arguments[Self.notify]
    options.configuration.host = options.host
    options.configuration.port = options.port
    options.localSend = try localSendOptions(arguments, host: options.host)
    let paths = try context.paths
    let runner = HookRunner.Configuration(command: options.onReceive, notify: options.notify, inbox: paths.inbox.path)
    let unconfinedHooks = arguments[Self.hooksUnconfined] && (options.onReceive != nil || options.notify)
    let confinement = try Confinement.enter(paths: paths, unconfinedHooks: unconfinedHooks ? runner : nil)

    if case .confined(_, _, let hooks) = confinement { options.hookRunner = hooks }

    let log = DaemonLog(terminal: context.terminal, json: arguments[Self.json])
    let daemon = try Daemon(paths: paths, options: options, events: { log.record($0) }, note: { log.note($0) })

    let stopping = Atomic<Bool>(false)
    let graceTime = options.grace
    Signals.onSignal { number in
      if number == SIGHUP {
        daemon.reload()
        return
      }
      guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
      log.note("stopping (signal \(number)): no new asks; transfers in flight get \(graceTime) to finish")
      daemon.stop()
      exit(ExitCode.success.rawValue)
    }
    // Started first: a second daemon for this home stops at the home's lock, before it says
    // anything about receiving.
    try daemon.start()
    switch confinement {
    case .confined(let abi, let writable, let hooks):
      let outside = hooks == nil ? "" : "; hooks run outside it"
      log.note("confined with Landlock (ABI \(abi)): changes files only in \(writable.joined(separator: ", "))\(outside)")
    case .unavailable(let why):
      log.note("warning: not confined: \(why); the daemon can change any file this user can")
    }
    log.note("type declarations: \(daemon.status.declarations)")
    log.note(
      "receiving as \(escape(daemon.device.name)) (\(daemon.device.fingerprint.short)) into \(paths.inbox.path), mode \(daemon.gatekeeper.mode.effective().rawValue)"
    )
    // The main thread only waits: the daemon's threads do the work and the signal thread ends the
    // process. (Not dispatchMain(): on Linux it waits in sigsuspend with every signal unblocked,
    // which would let a SIGTERM kill the process instead of stopping it gracefully.)
    DispatchSemaphore(value: 0).wait()
    return .success
  }

  /// The LocalSend options from --localsend and its companions, or nil to use the settings.
  static func localSendOptions(_ arguments: ParsedArguments, host: String?) throws -> LocalSendOptions? {
    let port = try arguments.integer(Self.localSendPort, in: 0...65535)
    let multicastText = arguments[Self.localSendMulticast]
    let multicastPort = try arguments.integer(Self.localSendMulticastPort, in: 1...65535)
    let pinText = arguments[Self.localSendPin]
    guard arguments[Self.localSend] else {
      if port != nil || multicastText != nil || multicastPort != nil || pinText != nil {
        throw UsageError("--localsend-port, --localsend-multicast(-port) and --localsend-pin go with --localsend", spec: spec)
      }
      return nil
    }
    guard let multicast = MulticastSetting(multicastText ?? "auto") else {
      throw UsageError("--localsend-multicast takes auto, off or an IPv4 address, not '\(escape(multicastText ?? ""))'", spec: spec)
    }
    var options = LocalSendOptions(port: UInt16(port ?? 53317), multicast: multicast, host: host)
    if let multicastPort { options.multicastPort = UInt16(multicastPort) }
    do {
      // The message never repeats the PIN: it is a secret.
      options.pin = try pinText.map { text throws(LocalSendPin.Problem) in try LocalSendPin(text) }
    } catch {
      throw UsageError("--localsend-pin \(error)", spec: spec)
    }
    return options
  }

  /// The mode from --mode / --for, or nil to use the home's settings.
  static func modeSetting(_ arguments: ParsedArguments) throws -> ModeSetting? {
    guard let text = arguments[Self.mode] else {
      if arguments[Self.duration] != nil { throw UsageError("--for goes with --mode everyone", spec: spec) }
      return nil
    }
    let receiveMode = try choice(text, as: ReceiveMode.self, what: "--mode takes", spec: spec)
    var until: Date? = nil
    if let seconds = try arguments.duration(Self.duration, bare: .minutes, in: 1...(366 * 86400)) {
      guard receiveMode == .everyone else { throw UsageError("--for goes with --mode everyone", spec: spec) }
      until = Date().addingTimeInterval(seconds)
    }
    return ModeSetting(mode: receiveMode, until: until)
  }
}

/// Turns receiver events into log lines on stderr, or JSON lines on stdout.
struct DaemonLog: Sendable {
  var terminal: Terminal
  var json: Bool

  /// One `--json` line; what a peer wrote is `PeerText`, carried whole (JSON-escaped).
  struct Event: Encodable {
    var event: String
    var time = Date()
    var port: UInt16? = nil
    var peerName: PeerText? = nil
    var peerId: String? = nil
    /// The peer's name here when it is a contact; or, for a stranger whose name looks like a
    /// contact's, that contact's (`posed_as`): as the Inbox's metadata says it.
    var contactName: PeerText? = nil
    var posedAs: PeerText? = nil
    var address: String? = nil
    var item: PeerText? = nil
    var storedAs: PeerText? = nil
    var size: Int64? = nil
    var type: String? = nil
    var reason: PeerText? = nil
    var stored: Int? = nil
    var refused: Int? = nil
    var failed: Int? = nil
    /// For `asked`: how many items the ask offers, and how many of them were accepted (its
    /// `stored` and `refused` say the same, from before anything was stored).
    var offered: Int? = nil
    var accepted: Int? = nil
    var message: String? = nil
    /// For a refused item, the command that would accept it (for the receiver's owner).
    var acceptWith: String? = nil
    /// For `ask`: its number (for 'share accept N'), what it offers (the first 100 items, and
    /// how many in all), and a pairing's code.
    var ask: Int? = nil
    var items: [AskedItem]? = nil
    var itemCount: Int? = nil
    var pairingCode: String? = nil
  }

  func note(_ message: String) {
    if json {
      terminal.out(JSONOutput.line(Event(event: "note", message: message)))
    } else {
      terminal.err("share: \(message)")
    }
  }

  func record(_ event: DaemonEvent) {
    switch event {
    case .listening(let port):
      if json {
        terminal.out(JSONOutput.line(Event(event: "listening", port: port)))
      } else {
        terminal.out("listening on port \(port)")
      }
    case .connected(let peer):
      emit(
        Event(event: "connected", peer: peer, address: peer.address),
        "\(describe(peer)) connected from \(peer.address)")
    case .ask(let ask):
      let what = ask.pairingCode.map { "asks to pair (code \($0))" } ?? "asks to send \(ask.itemCount) item(s)"
      emit(
        Event(
          event: "ask", peerName: ask.peerName, peerId: ask.peerId, address: ask.address, ask: ask.id, items: ask.items,
          itemCount: ask.itemCount, pairingCode: ask.pairingCode),
        "\(ask.peerName) (\(String(ask.peerId.prefix(12)))) \(what): 'share accept \(ask.id)' or 'share decline \(ask.id)'"
          + (ask.warning.map { " — \($0)" } ?? ""))
    case .withdrawn(let ask):
      emit(
        Event(event: "withdrawn", peerName: ask.peerName, peerId: ask.peerId, address: ask.address, ask: ask.id),
        "ask \(ask.id) from \(ask.peerName) (\(String(ask.peerId.prefix(12)))) withdrawn: the sender went away")
    case .asked(let peer, let offered, let accepted):
      emit(
        Event(event: "asked", peer: peer, stored: accepted, refused: offered - accepted, offered: offered, accepted: accepted),
        "\(describe(peer)) offers \(offered) item(s); accepted \(accepted)")
    case .stored(let peer, let item, let storedAs, let size, let type):
      emit(
        Event(event: "stored", peer: peer, item: item, storedAs: storedAs, size: size, type: type),
        "stored \(storedAs) (\(formatBytes(size))) from \(describe(peer))")
    case .refused(let peer, let item, let reason, let acceptWith):
      emit(
        Event(event: "refused", peer: peer, item: item, reason: reason, acceptWith: acceptWith),
        "refused \(item) from \(describe(peer)): \(made(reason))" + (acceptWith.map { "; to accept it: \($0)" } ?? ""))
    case .refusedMore(let peer, let count, let reason):
      emit(
        Event(event: "refused_more", peer: peer, reason: reason, refused: count),
        "refused \(count) more items from \(describe(peer)), the first of them: \(made(reason))")
    case .failed(let peer, let item, let reason):
      emit(
        Event(event: "failed", peer: peer, item: item, reason: reason),
        "failed to receive \(item) from \(describe(peer)): \(made(reason))")
    case .failedMore(let peer, let count, let reason):
      emit(
        Event(event: "failed_more", peer: peer, reason: reason, failed: count),
        "failed to receive \(count) more items from \(describe(peer)), the first of them: \(made(reason))")
    case .connectionFailed(let address, let peer, let error):
      connectionFailed(address: address, peer: peer, error: error)
    case .paired(let peer):
      emit(
        Event(event: "paired", peer: peer),
        "\(describe(peer)) is now a contact (paired)")
    case .finished(let peer, let stored, let refused, let failed):
      emit(
        Event(event: "finished", peer: peer, stored: stored, refused: refused, failed: failed),
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

  /// How a connection ended, after "connection from ADDRESS": refused by this daemon (review
  /// 18: it said "the peer refused", of its own refusal), or failed.
  private static func ended(_ error: ShareError) -> String {
    if case .refusedHere(let message) = error { return "refused: \(escape(message))" }
    return "failed: \(escape(error.description))"
  }

  /// A connection that failed or was refused; a peer that proved who it is is named as
  /// everywhere else (review 23: only its address).
  private func connectionFailed(address: String, peer: PeerInfo?, error: ShareError) {
    let reason = PeerText(error.description)
    emit(
      peer.map { Event(event: "connection_failed", peer: $0, address: address, reason: reason) }
        ?? Event(event: "connection_failed", address: address, reason: reason),
      "connection from \(peer.map { "\(describe($0)) at " } ?? "")\(address) \(Self.ended(error))"
        + (terminal.verbose ? " [\(escape(error.detail))]" : ""))
  }

  /// A peer as this home knows it (`SenderLabel.who`: review 18, a stranger using a contact's
  /// name read as the contact in the log) and the start of its ID.
  private func describe(_ peer: PeerInfo) -> String {
    "\(SenderLabel.who(peer.name, contactName: peer.contactName, posedAs: peer.posedAs)) (\(peer.fingerprint.short))"
  }
}

extension DaemonLog.Event {
  /// An event about `peer`: its name as it gave it, its ID, and who it is here.
  init(
    event: String, peer: PeerInfo, address: String? = nil, item: PeerText? = nil, storedAs: PeerText? = nil,
    size: Int64? = nil, type: String? = nil, reason: PeerText? = nil, stored: Int? = nil, refused: Int? = nil,
    failed: Int? = nil, offered: Int? = nil, accepted: Int? = nil, acceptWith: String? = nil
  ) {
    self.init(
      event: event, peerName: peer.name, peerId: peer.fingerprint.hex, contactName: peer.contactName, posedAs: peer.posedAs,
      address: address, item: item, storedAs: storedAs, size: size, type: type, reason: reason, stored: stored,
      refused: refused, failed: failed, offered: offered, accepted: accepted, acceptWith: acceptWith)
  }
}
