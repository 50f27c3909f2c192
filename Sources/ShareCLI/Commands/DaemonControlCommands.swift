import Foundation
import ShareKit

/// `share status`: what the running daemon is doing.
enum StatusCommand: Command {
  static let json = Flag("--json", "Print one JSON object")

  static let spec = CommandSpec(
    path: ["status"], summary: "Show the running daemon: mode, name, port, transfers, asks",
    usage: ["status [--json]"], options: [json],
    examples: ["share status", "share status --json"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    guard let status = try ControlClient.send(.status, paths: context.paths).status else {
      throw ShareError.configuration("the daemon sent no status")
    }
    let terminal = context.terminal
    if arguments[Self.json] {
      terminal.out(JSONOutput.line(status))
      return .success
    }
    terminal.out("Daemon:      \(escape(status.name)) (\(status.id.prefix(12))), pid \(status.pid), port \(status.port)")
    terminal.out("Mode:        \(status.mode.rawValue)\(status.modeUntil.map { " until \(LocalTime.string($0, seconds: true))" } ?? "")")
    terminal.out("Advertised:  \(status.advertisedAs.map { escape($0) } ?? "-") (\(status.advertising))")
    terminal.out("Inbox:       \(status.inbox)")
    terminal.out("Types:       \(escape(status.declarations))")
    if let localsend = status.localsend {
      let multicast = localsend.multicast.map { "multicast on \($0)" } ?? "no multicast"
      let pin = localsend.pinRequired ? ", PIN required" : ""
      terminal.out("LocalSend:   port \(localsend.port), \(multicast)\(pin), fingerprint \(localsend.fingerprint)")
    } else {
      terminal.out("LocalSend:   off (share daemon --localsend)")
    }
    if status.transfers.isEmpty {
      terminal.out("Transfers:   none")
    } else {
      terminal.out("Transfers:")
      for t in status.transfers {
        let percent = t.bytesExpected > 0 ? Int(Double(t.bytesReceived) * 100 / Double(t.bytesExpected)) : 100
        // A stream's size is known when it ends: no share of an unknown whole.
        let done =
          t.sizeUnknown == true
          ? "\(formatBytes(t.bytesReceived)) so far (size not known until it ends)"
          : "\(formatBytes(t.bytesReceived)) of \(formatBytes(t.bytesExpected)) (\(percent)%)"
        terminal.out(
          "  from \(SenderLabel.who(t.peerName, contactName: t.contactName, posedAs: nil)) (\(t.peerId.prefix(12))): \(t.items) item(s), \(done)"
        )
      }
    }
    terminal.out("Asks:        \(status.pending.isEmpty ? "none waiting" : "\(status.pending.count) waiting (see 'share requests')")")
    if status.partsKept > 0 {
      let parts = status.partsKept == 1 ? "1 interrupted item" : "\(status.partsKept) interrupted items"
      let staging = URL(fileURLWithPath: status.inbox).deletingLastPathComponent().appendingPathComponent(".share/staging").path
      terminal.out(
        "Kept:        \(formatBytes(status.partsKeptBytes)) of \(parts), for their senders to resume "
          + "(in \(escape(staging)); gone after \(status.partsKeptDays) days unused)")
    }
    return .success
  }
}

/// `share receive MODE [--for DURATION]`: change the running daemon's receive mode.
enum ReceiveCommand: Command {
  static let duration = Option(
    "--for", "DURATION", kind: .duration,
    "With everyone: fall back to contacts after DURATION (90s, 10m, 1h; a bare number is minutes)")

  static let spec = CommandSpec(
    path: ["receive"], summary: "Set who may send: off, contacts or everyone",
    usage: ["receive off|contacts|everyone [--for DURATION]"],
    discussion: """
      off: refuse everything (not advertised). contacts: only trusted peers ('share trust').
      everyone: strangers may ask, and their asks wait for 'share accept'; with --for, the daemon
      falls back to contacts after DURATION (90s, 10m, 2h). The mode is kept for the next start;
      with no daemon running, it is only kept, for the next start.
      """,
    options: [duration],
    arguments: 1...1, argumentKind: .choice(ReceiveMode.allCases.map(\.rawValue)),
    examples: ["share receive everyone --for 10m", "share receive contacts", "share receive off"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let mode = try choice(arguments.positionals[0], as: ReceiveMode.self, what: "the mode is", spec: spec)
    let seconds = try arguments.duration(Self.duration, bare: .minutes, in: 1...(366 * 86400))
    if seconds != nil, mode != .everyone { throw UsageError("--for goes with everyone", spec: spec) }
    guard try RunningDaemon.isRunning(context.paths) else {
      // No daemon: the mode waits in the settings for the next start.
      let setting = ModeSetting(mode: mode, until: seconds.map { Date().addingTimeInterval($0) })
      try Settings.update(at: context.paths.settings) { settings in
        settings.receiveMode = setting.mode
        settings.receiveUntil = setting.until
      }
      context.terminal.err(
        "No daemon is running for this home; 'share daemon' will start with \(mode.rawValue)\(until(setting.until)).")
      return .success
    }
    let status = try ControlClient.send(.receive(mode: mode, forSeconds: seconds), paths: context.paths).status
    context.terminal.err("Receiving: \(mode.rawValue)\(until(status?.modeUntil))")
    return .success
  }

  /// " until TIME", with seconds when it is within the hour (review 36: `--for 90s` said
  /// "until 12:02").
  static func until(_ date: Date?, now: Date = Date()) -> String {
    date.map { " until \(LocalTime.string($0, seconds: $0.timeIntervalSince(now) < 3600))" } ?? ""
  }
}

/// `share requests`: asks waiting for the person.
enum RequestsCommand: Command {
  static let json = Flag("--json", "One JSON object per ask, per line")

  static let spec = CommandSpec(
    path: ["requests"], summary: "List asks waiting for you to accept or decline",
    usage: ["requests [--json]"], options: [json],
    examples: ["share requests"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let asks = try ControlClient.send(.requests, paths: context.paths).requests ?? []
    let terminal = context.terminal
    if arguments[Self.json] {
      for ask in asks { terminal.out(JSONOutput.line(ask)) }
      return .success
    }
    if asks.isEmpty {
      terminal.err("No asks are waiting.")
      return .success
    }
    for ask in asks {
      let seconds = max(0, Int(ask.expiresAt.timeIntervalSinceNow))
      let contact = ask.contactName.map { $0 == ask.peerName ? ", your contact" : ", your contact \($0)" } ?? ""
      terminal.out("[\(ask.id)] \(ask.peerName) (\(ask.peerId))\(contact) from \(ask.address), \(seconds)s left")
      if let code = ask.pairingCode { terminal.out("    pairing, code \(code)") }
      if let warning = ask.warning { terminal.out("    \(warning)") }
      for item in ask.items {
        var size = item.size.map(formatBytes) ?? "unknown size"
        if let files = item.files { size += files == 1 ? " in 1 file" : " in \(files) files" }
        let verdict = item.accepted ? "" : " — will be refused: \(item.reason.map(made) ?? "")"
        // A name starting with a dot is hidden from 'ls' and file managers (review 29).
        let hidden = item.name.unescaped.hasPrefix(".") ? " (hidden: its name starts with a dot)" : ""
        terminal.out("    \(item.kind) \(item.name)\(hidden), \(size), \(typeName(item, verbose: terminal.verbose))\(verdict)")
        if let command = item.acceptWith { terminal.out("      to accept it: \(command)") }
      }
      if ask.itemCount > ask.items.count { terminal.out("    … and \(ask.itemCount - ask.items.count) more item(s)") }
    }
    for ask in asks { terminal.err(hint(for: ask)) }
    return .success
  }

  /// "ISO disk image", with its identifier under --verbose; the identifier when no description came.
  static func typeName(_ item: AskedItem, verbose: Bool) -> String {
    guard let type = item.type.map({ escape($0) }) else { return "?" }
    guard let description = item.typeDescription.map({ escape($0) }), description != type else { return type }
    return verbose ? "\(description) (\(type))" : description
  }

  /// What to run for an ask: a pairing is accepted as it is (both sides then trust each other);
  /// a send may also trust its sender, unless it cannot be a contact (`whyNotTrusted`).
  static func hint(for ask: PendingAsk) -> String {
    if ask.pairingCode != nil {
      return "[\(ask.id)] If \(ask.peerName) shows the same code: 'share accept \(ask.id)'; else 'share decline \(ask.id)'."
    }
    // A contact that is asked (`share trust add --ask`) is trusted already (review 22: the hint
    // offered to trust it).
    let trust =
      ask.whyNotTrusted == nil && ask.contactName == nil ? " (add --trust to trust \(ask.peerName) from now on)" : ""
    return "[\(ask.id)] Accept with 'share accept \(ask.id)'\(trust), decline with 'share decline \(ask.id)'."
  }
}

/// `share accept N` / `share decline N`.
enum AcceptCommand: Command {
  static let trust = Flag("--trust", "Also trust the sender: its next sends are accepted without asking")

  static let spec = CommandSpec(
    path: ["accept"], summary: "Accept a waiting ask",
    usage: ["accept N [--trust]"],
    discussion: """
      N is the ask's number in 'share requests'. --trust makes the sender a contact too; a
      pairing request is accepted without --trust: accepting it makes both devices contacts.
      """,
    options: [trust],
    arguments: 1...1, argumentKind: .askID, examples: ["share accept 3", "share accept 3 --trust"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    try decide(arguments, context, accept: true, spec: spec)
  }
}

enum DeclineCommand: Command {
  static let spec = CommandSpec(
    path: ["decline"], summary: "Decline a waiting ask", usage: ["decline N"], arguments: 1...1, argumentKind: .askID,
    examples: ["share decline 3"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    try decide(arguments, context, accept: false, spec: spec)
  }
}

private func decide(_ arguments: ParsedArguments, _ context: CommandContext, accept: Bool, spec: CommandSpec) throws -> ExitCode {
  guard let id = Int(arguments.positionals[0]) else {
    throw UsageError("N is the ask's number that 'share requests' shows, not '\(escape(arguments.positionals[0]))'", spec: spec)
  }
  let trust = accept && arguments[AcceptCommand.trust]
  if trust, let ask = try ControlClient.send(.requests, paths: context.paths).requests?.first(where: { $0.id == id }),
    ask.pairingCode != nil
  {
    throw UsageError("ask \(id) is a pairing request: accept it without --trust (both devices then trust each other)", spec: spec)
  }
  let request: ControlRequest = accept ? .accept(id: id, trust: trust) : .decline(id: id)
  let decided = try ControlClient.send(request, paths: context.paths).decided
  let who = decided.map { "\($0.peerName) (\($0.peerId.prefix(12)))" } ?? "the sender"
  // Review 30 L4: the reply did not say that the sender is now a contact.
  let contact = trust ? "; it is now a contact: its next sends are accepted without asking" : ""
  context.terminal.err("\(accept ? "Accepted" : "Declined") ask \(id) from \(who)\(contact)")
  return .success
}
