import Dispatch
import Foundation
import Glibc
import ShareKit
import Synchronization
import TLS
import Wire

/// `share send ITEM... --to PEER...`: offer items to receivers and stream what they accept.
enum SendCommand: Command {
  static let spec = CommandSpec(
    path: ["send"], summary: "Send files, folders, URLs and text to nearby receivers",
    usage: [
      "send [PATH | URL | -]... [--url URL]... [--text TEXT]... --to HOST:PORT... [--json | --quiet]",
    ],
    discussion: """
      Offers every item at once (name, kind, size) over TLS 1.3 and streams the ones the
      receiver accepts; each is checked with SHA-256 and reported with the name it was stored
      under, or why it was refused. Items: files; folders (sent whole with their structure;
      symbolic links are not followed and are reported, special files skipped); URLs (an
      argument such as https://example.com, or --url); text (--text); standard input ('-',
      named with --name, streamed without knowing its size). The receiver's device ID is
      printed so you can compare it with what 'share id' prints there.

      --to may be repeated: the sends run at once, each with its own result; a slow or failing
      receiver does not hold back the others. With several receivers, standard input is first
      spooled to a temporary file.

      On a terminal a progress bar per receiver is drawn on stderr. --json prints one JSON object
      per line per event on stdout (a stable contract; see README.md): connected, answered,
      progress (at most 5 a second per receiver), stored, refused, failed, done.
      Exit status: 0 all stored, 3 some refused or failed, 4 none stored, 1 error, 130 interrupted.
      """,
    options: [
      .value("--to", "HOST:PORT", repeatable: true, "A receiver's address and port ([v6addr]:port for IPv6)"),
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
      "share send slides.pdf --to 192.168.1.20:40123 --to 192.168.1.21:40123",
    ])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let targets = arguments.all("--to")
    guard !targets.isEmpty else {
      throw UsageError("--to HOST:PORT is required (discovery by name is not available yet)", spec: spec)
    }
    var endpoints: [Endpoint] = []
    for target in targets {
      guard let endpoint = Endpoint.parse(target) else {
        throw UsageError("'\(escape(target))' is not HOST:PORT", spec: spec)
      }
      endpoints.append(endpoint)
    }
    var catalog = try catalog(from: arguments)
    if endpoints.count > 1 { try catalog.spoolStreams() }
    let device = try context.device()
    let reporter = SendReporter(
      terminal: context.terminal, json: arguments.flag("--json"), quiet: arguments.flag("--quiet"),
      endpoints: endpoints, items: catalog.items)
    for note in catalog.notes { reporter.warn(escape(note)) }
    let senders = try endpoints.map { _ in try Sender(device: device) }

    let interrupted = Atomic<Bool>(false)
    let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        interrupted.store(true, ordering: .sequentiallyConsistent)
        senders.forEach { $0.cancel() }
      }
      source.resume()
      return source
    }
    defer { signals.forEach { $0.cancel() } }

    // One thread per receiver; each result lands in its slot.
    let results = Mutex<[Result<SendReport, ShareError>?]>(Array(repeating: nil, count: endpoints.count))
    let group = DispatchGroup()
    for (index, endpoint) in endpoints.enumerated() {
      group.enter()
      let items = catalog.items
      let thread = Thread {
        let result: Result<SendReport, ShareError>
        do {
          result = .success(try senders[index].send(items, to: endpoint) { reporter.event($0, recipient: index) })
        } catch {
          result = .failure(ShareError.wrap(error))
        }
        reporter.finished(recipient: index, result)
        results.withLock { $0[index] = result }
        group.leave()
      }
      thread.start()
    }
    group.wait()
    let all = results.withLock { $0.compactMap { $0 } }
    return reporter.summarize(all, interrupted: interrupted.load(ordering: .sequentiallyConsistent))
  }

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
