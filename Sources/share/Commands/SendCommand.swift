import Dispatch
import Foundation
import Glibc
import ShareKit
import TLS
import Wire

/// `share send PATH... --to HOST:PORT`: offer items to a receiver and stream what it accepts.
enum SendCommand: Command {
  static let spec = CommandSpec(
    path: ["send"], summary: "Send files to a nearby receiver",
    usage: [
      "send [PATH | URL | -]... [--url URL]... [--text TEXT]... --to HOST:PORT [--json]",
    ],
    discussion: """
      Offers every item at once (name, kind, size) over TLS 1.3 and streams the ones the
      receiver accepts; each is checked with SHA-256 and reported with the name it was stored
      under, or why it was refused. Items: files; folders (sent whole with their structure;
      symbolic links are not followed and are reported, special files skipped); URLs (an
      argument such as https://example.com, or --url); text (--text); standard input ('-',
      named with --name, streamed without knowing its size). The receiver's device ID is
      printed so you can compare it with what 'share id' prints there.
      Exit status: 0 all stored, 3 some refused or failed, 4 none stored, 1 error.
      """,
    options: [
      .value("--to", "HOST:PORT", "The receiver's address and port ([v6addr]:port for IPv6)"),
      .value("--url", "URL", repeatable: true, "Send a URL (stored as a small .url file)"),
      .value("--text", "TEXT", repeatable: true, "Send a text snippet (stored as a .txt file)"),
      .value("--name", "NAME", "Name for standard input or a text item (default: stdin, text)"),
      .flag("--json", "Print events as JSON lines on stdout (a stable contract)"),
      .flag("--quiet", short: "-q", "Print nothing but errors"),
    ],
    arguments: 0...Int.max,
    examples: [
      "share send photo.jpg notes.txt --to 192.168.1.20:40123",
      "share send ~/Pictures/trip https://example.com --text 'see you at 6' --to 192.168.1.20:40123",
      "tar c project | share send - --name project.tar --to [fe80::1%eth0]:40123 --json",
    ])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    guard let target = arguments.value("--to") else {
      throw UsageError("--to HOST:PORT is required (discovery by name is not available yet)", spec: spec)
    }
    guard let endpoint = Endpoint.parse(target) else {
      throw UsageError("'\(escape(target))' is not HOST:PORT", spec: spec)
    }
    let catalog = try catalog(from: arguments)
    let items = catalog.items
    if !arguments.flag("--quiet") {
      for note in catalog.notes { context.terminal.warn(escape(note)) }
    }
    let device = try context.device()
    let sender = try Sender(device: device)
    let json = arguments.flag("--json")
    let quiet = arguments.flag("--quiet")
    let terminal = context.terminal
    let report = SendReporter(terminal: terminal, json: json, quiet: quiet, endpoint: endpoint, items: items)

    let interrupted = Atomic<Bool>(false)
    let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        interrupted.store(true, ordering: .sequentiallyConsistent)
        sender.cancel()
      }
      source.resume()
      return source
    }
    defer { signals.forEach { $0.cancel() } }

    do {
      let result = try sender.send(items, to: endpoint) { report.event($0) }
      return report.finish(result)
    } catch {
      if interrupted.load(ordering: .sequentiallyConsistent) {
        report.failed("cancelled; nothing partial is kept in the receiver's Inbox")
        return .interrupted
      }
      report.failed(error.description, detail: error.detail)
      return .failure
    }
  }
}

import Synchronization

extension SendCommand {
  /// The items the command line names, in the order given: positional paths, URLs and `-`,
  /// then --url, then --text.
  static func catalog(from arguments: ParsedArguments) throws -> ItemCatalog {
    var catalog = ItemCatalog()
    var usedStdin = false
    for argument in arguments.positionals {
      if argument == "-" {
        guard !usedStdin else { throw UsageError("standard input ('-') can be sent only once", spec: spec) }
        usedStdin = true
        catalog.add(stream: STDIN_FILENO, name: arguments.value("--name") ?? "stdin")
      } else if ItemCatalog.looksLikeURL(argument) {
        try catalog.add(url: argument)
      } else {
        try catalog.add(path: argument)
      }
    }
    for url in arguments.all("--url") { try catalog.add(url: url) }
    for text in arguments.all("--text") {
      catalog.add(text: text, name: usedStdin ? nil : arguments.value("--name"))
    }
    guard !catalog.items.isEmpty else {
      throw UsageError("nothing to send: name files, folders, URLs, '-' or --text", spec: spec)
    }
    return catalog
  }
}

/// Prints a send as it goes: human lines, or JSON events.
final class SendReporter {
  let terminal: Terminal
  let json: Bool
  let quiet: Bool
  let endpoint: Endpoint
  let names: [Int: String]

  init(terminal: Terminal, json: Bool, quiet: Bool, endpoint: Endpoint, items: [OutgoingItem]) {
    self.terminal = terminal
    self.json = json
    self.quiet = quiet
    self.endpoint = endpoint
    names = Dictionary(items.map { ($0.offer.id, $0.offer.name) }, uniquingKeysWith: { a, _ in a })
  }

  struct Event: Encodable {
    var event: String
    var to: String
    var peerName: String? = nil
    var peerId: String? = nil
    var item: String? = nil
    var status: String? = nil
    var storedAs: String? = nil
    var reason: String? = nil
    var type: String? = nil
    var size: Int64? = nil
    var sha256: String? = nil
    var sent: Int64? = nil
    var total: Int64? = nil
    var stored: Int? = nil
    var refused: Int? = nil
    var failed: Int? = nil
    var message: String? = nil
  }

  func event(_ event: SendEvent) {
    switch event {
    case .connected(let name, let fingerprint):
      if json {
        terminal.out(JSONOutput.line(Event(event: "connected", to: endpoint.description, peerName: name, peerId: fingerprint.hex)))
      } else if !quiet {
        terminal.err("Connected to \(escape(name)) at \(endpoint.address)")
        terminal.err("  receiver ID: \(fingerprint.grouped)")
      }
    case .answered(let answers):
      for answer in answers {
        let name = names[answer.id] ?? "#\(answer.id)"
        if json {
          terminal.out(JSONOutput.line(Event(
            event: "answered", to: endpoint.description, item: name, status: answer.accepted ? "accepted" : "rejected",
            reason: answer.reason, type: answer.type)))
        } else if !quiet && !answer.accepted {
          terminal.warn("\(escape(name)) will not be sent: \(escape(answer.reason ?? "refused"))")
        }
      }
    case .progress(let sent, let total):
      if json { throttledProgress(sent: sent, total: total) }
    case .receipt:
      break
    }
  }

  private var lastProgress = ContinuousClock.now - .seconds(1)
  private func throttledProgress(sent: Int64, total: Int64) {
    let now = ContinuousClock.now
    guard now - lastProgress >= .milliseconds(200) || sent == total else { return }
    lastProgress = now
    terminal.out(JSONOutput.line(Event(event: "progress", to: endpoint.description, sent: sent, total: total)))
  }

  func finish(_ report: SendReport) -> ExitCode {
    var counts = (stored: 0, refused: 0, failed: 0)
    for item in report.receipt.items {
      let name = names[item.id] ?? "#\(item.id)"
      let reason = item.reason ?? report.abandoned[item.id]
      switch item.status {
      case .stored: counts.stored += 1
      case .rejected: counts.refused += 1
      case .failed: counts.failed += 1
      }
      if json {
        terminal.out(JSONOutput.line(Event(
          event: item.status == .stored ? "stored" : (item.status == .rejected ? "refused" : "failed"),
          to: endpoint.description, item: name, status: item.status.rawValue, storedAs: item.storedAs,
          reason: item.status == .stored ? nil : reason, type: item.type, size: item.size, sha256: item.sha256?.hex)))
      } else if !quiet {
        switch item.status {
        case .stored:
          let renamed = item.storedAs.map { $0 == name ? "" : " as \(escape($0))" } ?? ""
          terminal.out("stored   \(escape(name))\(renamed)")
        case .rejected:
          terminal.out("refused  \(escape(name)): \(escape(reason ?? "refused"))")
        case .failed:
          terminal.out("failed   \(escape(name)): \(escape(reason ?? "failed"))")
        }
      }
    }
    let total = report.receipt.items.count
    if json {
      terminal.out(JSONOutput.line(Event(event: "done", to: endpoint.description, peerName: report.peerName, peerId: report.peerFingerprint.hex, stored: counts.stored, refused: counts.refused, failed: counts.failed)))
    } else if !quiet {
      terminal.err("\(counts.stored) of \(total) stored in \(escape(report.peerName))'s Inbox")
    }
    if counts.stored == total { return .success }
    return counts.stored == 0 ? .refused : .partial
  }

  func failed(_ message: String, detail: String? = nil) {
    if json {
      terminal.out(JSONOutput.line(Event(event: "failed", to: endpoint.description, message: message)))
    }
    terminal.error(message, detail: detail)
  }
}
