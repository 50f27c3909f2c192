import Foundation
import Glibc
import ShareKit

/// `share send ITEM... --to PEER...`: offer items to receivers and stream what they accept.
enum SendCommand: Command {
  static let to = Option(
    "--to", "PEER", kind: .peer, repeatable: true, "A receiver: device name or ID prefix (found nearby), or HOST:PORT ([v6addr]:port)")
  static let url = Option("--url", "URL", kind: .url, repeatable: true, "Send a URL (stored as a small .url file)")
  static let text = Option("--text", "TEXT", repeatable: true, "Send a text snippet (stored as a .txt file)")
  static let name = Option(
    "--name", "NAME",
    "Offer standard input, the --text items, or the one file or folder under NAME (default for standard input: stdin with the extension of its content's type)"
  )
  static let json = Flag("--json", "Print events as JSON lines on stdout (a stable contract)")
  static let quiet = Flag("--quiet", short: "-q", "Print nothing but errors and the items not stored")
  static let busyWait = Option(
    "--busy-wait", "DURATION", kind: .duration,
    "Keep trying a busy receiver this long, in growing pauses (30s, 2m; a bare number is seconds; default 30s; 0: give up at once)")
  static let dryRun = Flag("--dry-run", "Show what would be offered (name, kind, size, the type detected here) and send nothing")

  static let spec = CommandSpec(
    path: ["send"], summary: "Send files, folders, URLs and text to nearby receivers",
    usage: [
      "send [PATH | URL | -]... [--url URL]... [--text TEXT]... [--to PEER]... [--json | --quiet]"
    ],
    discussion: """
      Offers every item at once (name, kind, size) over TLS 1.3 and streams the ones the
      receiver accepts; each is checked with SHA-256 and reported with the name it was stored
      under, or why it was refused. Items: files; folders (sent whole with their structure;
      symbolic links are not followed and are reported, special files skipped); URLs (an
      argument such as https://example.com, or --url); text (--text); standard input ('-',
      named by its content, stdin.png or stdin.txt, or with --name; streamed without knowing its
      size). The receiver's device ID is
      printed so you can compare it with what 'share id' prints there.

      PEER is a device name or an ID prefix, found nearby through Avahi (the receiver's
      certificate must match the ID it advertises, and the ID this home saw for that name
      before), or HOST:PORT to connect directly without discovery. Without --to: the one peer
      nearby, or a numbered choice on a terminal when there are several.

      --to may be repeated: the sends run at once, each with its own result; a slow or failing
      receiver does not hold back the others. With several receivers, standard input is first
      spooled to a temporary file. A receiver that is busy (too many connections starting at
      once) is tried again after a pause of about a second, then longer ones, for --busy-wait.

      On a terminal a progress bar per receiver is drawn on stderr. --json prints one JSON object
      per line per event on stdout (a stable contract; see README.md): busy, connected, waiting,
      answered, sending, progress (at most 5 a second per receiver), stored, refused, failed,
      done, warning; and error, when the command fails.
      Exit status: 0 all stored, 3 some refused or failed (or a folder's entries left out here:
      links, pipes, unreadable files), 4 none stored, 1 error, 130 interrupted.
      """,
    options: [to, url, text, name, json, quiet, busyWait, dryRun],
    arguments: 0...Int.max, argumentKind: .path,
    examples: [
      "share send photo.jpg notes.txt --to 192.168.1.20:40123",
      "share send ~/Pictures/trip https://example.com --text 'see you at 6' --to 192.168.1.20:40123",
      "tar c project | share send - --name project.tar --to [fe80::1%eth0]:40123 --json",
      "share send slides.pdf --to 192.168.1.20:40123 --to 192.168.1.21:40123",
    ], home: .mayCreate)

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    // The usage says one or the other: --json already prints no words for people.
    if arguments[Self.json] && arguments[Self.quiet] { throw UsageError("--json and --quiet cannot be used together", spec: spec) }
    // Checked before a dry run too, which would otherwise take what the send refuses (review 30).
    let busyWait = try arguments.duration(Self.busyWait, bare: .seconds, in: 0...3600) ?? 30
    let catalog = try catalog(from: arguments, terminal: context.terminal)
    if arguments[Self.dryRun] { return try dryRun(catalog, arguments: arguments, context: context) }
    let device = try context.device()
    let resolver = try PeerResolver(device: device, contacts: Contacts(paths: context.paths))
    let contacts = try Contacts(paths: context.paths).trusted()
    let endpoints = try resolveTargets(arguments.all(Self.to), resolver: resolver, context: context)
    let send = try MultiSend(device: device, catalog: catalog, to: endpoints, busyWait: .seconds(busyWait))
    let reporter = SendReporter(
      terminal: context.terminal, json: arguments[Self.json], quiet: arguments[Self.quiet],
      endpoints: endpoints, commandLine: context.commandLine, skippedEntries: catalog.skippedEntries,
      identify: { [contacts] in contacts.identify($0, calling: $1) })
    for note in catalog.notes { reporter.warn(escape(note)) }
    Signals.onSignal { number in
      guard number != SIGHUP else { return }
      send.cancel()
    }
    let results = send.run(events: { reporter.event($1, recipient: $0) }, finished: { reporter.finished(recipient: $0, $1) })
    for note in resolver.remember(endpoints, results) where !arguments[Self.json] { context.terminal.warn(note) }
    return reporter.summarize(results, interrupted: send.wasCancelled)
  }

  /// One offered item as `--dry-run --json` prints it.
  struct OfferOutput: Encodable {
    var name: String
    var kind: String
    var size: Int64?
    var type: String?
    var entries: Int?
    var source: String
  }

  /// What would be offered, with the type detected here from name and content; nothing is sent.
  static func dryRun(_ catalog: ItemCatalog, arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
    let gate = try TypeGate.load(paths: context.paths)
    let terminal = context.terminal
    for note in catalog.notes {
      // With --json, as the send's own warning events (review 38: text on stderr).
      if arguments[Self.json] {
        terminal.out(JSONOutput.line(SendReporter.Event(event: "warning", message: PeerText(escape(note)))))
      } else {
        terminal.warn(escape(note))
      }
    }
    for item in catalog.preview(judgedBy: gate) {
      if arguments[Self.json] {
        terminal.out(
          JSONOutput.line(
            OfferOutput(
              name: item.name, kind: item.kind, size: item.size, type: item.type, entries: item.entries, source: item.source)))
      } else {
        let size = item.size.map(formatBytes) ?? "size unknown"
        let files = item.files.map { ", \($0) files" } ?? ""
        terminal.out("\(item.kind)\t\(escape(item.name))\t\(size)\(files)\t\(item.type ?? "-")")
      }
    }
    if !arguments[Self.json] { terminal.err("(dry run: nothing was sent)") }
    return .success
  }

  /// Turns each `--to` into an endpoint: HOST:PORT directly; a name or ID prefix through
  /// discovery, pinned (see `PeerResolver`). Without `--to`, the one peer nearby, or a choice on
  /// a terminal.
  static func resolveTargets(_ given: [String], resolver: PeerResolver, context: CommandContext) throws -> [Endpoint] {
    // An empty one (`--to=`, an unset "$peer") would be looked up as a name.
    if given.contains(where: { $0.allSatisfy(\.isWhitespace) }) {
      throw UsageError("--to is empty; give a name, an ID prefix or HOST:PORT", spec: spec)
    }
    var seen: Set<String> = []
    let targets = given.filter { seen.insert($0).inserted }
    for target in targets where Endpoint.parse(target) == nil && Endpoint.looksLikeAddress(target) {
      throw UsageError("'\(escape(target))' is not HOST:PORT with a port from 1 to 65535", spec: spec)
    }
    for target in targets where Endpoint.parse(target) == nil && Endpoint.isAddressWithoutPort(target) {
      // An IPv6 address takes its port after brackets (review 36: `fe80::1%eth0:45847` was told
      // it had no port).
      let brackets = target.filter { $0 == ":" }.count > 1 && !target.hasPrefix("[") ? ", an IPv6 address in brackets: [ADDRESS]:PORT" : ""
      throw UsageError(
        "'\(escape(target))' is an address without a port; give the port too, as HOST:PORT\(brackets) (the receiver's 'share status' shows it)",
        spec: spec)
    }
    // A name a LocalSend device announced to this home's daemon goes to it by LocalSend — unless
    // it names a share device this home knows (a contact, a pinned name, one of their IDs, this
    // device) or one advertising nearby now: an announcement proves nothing, and must never take
    // a send meant for that device (review 15). Seeing who is nearby costs a browse, made only
    // when a target matched a LocalSend device.
    var localSend = LocalSendMatch.of(targets, paths: try context.paths)
    if localSend.contains(where: { $0 != .none }) {
      let book = try resolver.knownIdentities(warn: { _ in })
      let timeout = resolver.timeout
      let nearby = try runBlocking { try await PeerDirectory(book: book).snapshot(timeout: timeout) }.filter { !$0.isSelf }
      for (index, target) in targets.enumerated() where LocalSendPeer.namesShareDevice(target, nearby: nearby, book: book) {
        // A contact whose ID is the LocalSend device's own fingerprint is that device.
        if let id = book.id(for: target), localSend[index].peer?.fingerprint.unescaped == id.hex.uppercased() { continue }
        localSend[index] = .none
      }
    }
    for (target, match) in zip(targets, localSend) {
      guard case .ambiguous(let devices, let byPrefix) = match else { continue }
      if byPrefix {
        let advice = "give more of the fingerprint of the one meant ('share peers' lists them)"
        throw ShareError.configuration("the fingerprints of \(devices) LocalSend devices start with '\(escape(target))'; \(advice)")
      }
      let advice = "give a prefix of the fingerprint of the one meant ('share peers' lists them)"
      throw ShareError.configuration("\(devices) LocalSend devices use the name '\(escape(target))'; \(advice)")
    }
    let others = zip(targets, localSend).filter { $0.1 == .none }.map(\.0)
    var resolved: [Endpoint] = []
    if !others.isEmpty || targets.isEmpty {
      resolved = try resolver.resolve(
        others, warn: { context.terminal.warn($0) }, choose: { try pick(among: $0, query: $1, context: context) })
    }
    var next = resolved.makeIterator()
    var endpoints: [Endpoint] = []
    for (target, match) in zip(targets, localSend) {
      guard var endpoint = match.endpoint ?? next.next() else { continue }
      endpoint.target = target
      endpoints.append(endpoint)
    }
    endpoints += Array(IteratorSequence(next))
    return onePerDevice(endpoints, terminal: context.terminal)
  }

  /// One device named twice (`--to bob --to BOB`, a name and its ID prefix) gets one send, with
  /// a warning (review 36: the second was dropped without a word).
  static func onePerDevice(_ endpoints: [Endpoint], terminal: Terminal) -> [Endpoint] {
    var devices: [Fingerprint: Endpoint] = [:]
    return endpoints.filter { endpoint in
      guard let id = endpoint.expectedFingerprint else { return true }
      guard let first = devices[id] else {
        devices[id] = endpoint
        return true
      }
      let named = { (endpoint: Endpoint) in escape(endpoint.target ?? endpoint.name.unescaped) }
      terminal.warn("--to \(named(endpoint)) is the same device as --to \(named(first)) (\(id.short)): its items go there once")
      return false
    }
  }

  /// Several peers fit: a numbered choice on a terminal, else an error that lists them.
  static func pick(among peers: [Peer], query: String?, context: CommandContext) throws -> Peer {
    let listing = peers.enumerated().map { index, peer in
      let marks = [peer.id?.short ?? "no ID"] + PeersCommand.marks(peer)
      return "  \(index + 1). \(peer.name) (\(marks.joined(separator: ", ")))"
    }
    let what = query.map { "several peers match '\(escape($0))'" } ?? "several peers are nearby"
    guard isatty(STDIN_FILENO) == 1, context.terminal.stderrIsTerminal else {
      throw ShareError.configuration("\(what); choose one with --to NAME or an ID prefix:\n" + listing.joined(separator: "\n"))
    }
    context.terminal.err("\(what):\n" + listing.joined(separator: "\n"))
    context.terminal.errRaw("Send to which one? [1-\(peers.count)] ")
    guard let answer = readLine(), let choice = Int(answer.trimmingCharacters(in: .whitespaces)),
      peers.indices.contains(choice - 1)
    else { throw ShareError.cancelled("no peer chosen") }
    return peers[choice - 1]
  }

  /// The items the command line names, in the order given: positional paths, URLs and `-`,
  /// then --url, then --text. --name names standard input, else the --text items, else the one
  /// file or folder named; anything else is a usage error rather than a name silently ignored.
  static func catalog(from arguments: ParsedArguments, terminal: Terminal) throws -> ItemCatalog {
    let name = arguments[Self.name]
    let paths = arguments.positionals.filter { $0 != "-" && !ItemCatalog.looksLikeURL($0) }
    let streams = arguments.positionals.filter { $0 == "-" }.count
    guard streams <= 1 else { throw UsageError("standard input ('-') can be sent only once", spec: spec) }
    let texts = arguments.all(Self.text)
    // An empty PATH (an unset "$file") was the current folder, sent whole.
    if arguments.positionals.contains("") {
      throw UsageError("a PATH is empty; name a file or folder ('.' for this folder)", spec: spec)
    }
    if arguments.all(Self.url).contains("") { throw UsageError("--url is empty; give the URL to send", spec: spec) }
    if texts.contains("") { throw UsageError("--text is empty; give the text to send", spec: spec) }
    if let name, let problem = ItemCatalog.problem(withName: name) {
      throw UsageError("--name \(Escaping.quoted(name)) cannot name an item: \(problem)", spec: spec)
    }
    let namesPath = name != nil && streams == 0 && texts.isEmpty
    if namesPath, paths.count != 1 {
      throw UsageError(
        "--name names standard input ('-'), the --text items, or a single file or folder, not \(paths.count) paths", spec: spec)
    }
    // After '--' every word is a path: an option there is most likely misplaced (review 32).
    let optionNames = Set(spec.allOptions.flatMap(\.names))
    for argument in arguments.positionals where optionNames.contains(argument) {
      guard !FileManager.default.fileExists(atPath: argument) else { continue }
      throw UsageError("'\(argument)' comes after '--', where every word is a file to send; put options before '--'", spec: spec)
    }
    var catalog = ItemCatalog()
    for argument in arguments.positionals {
      if argument == "-" {
        if isatty(STDIN_FILENO) == 1, !arguments[Self.quiet] { terminal.err("Reading standard input; end it with Ctrl-D.") }
        if let name {
          catalog.add(stream: STDIN_FILENO, name: name)
        } else {
          try catalog.add(stream: STDIN_FILENO, namedByContent: "stdin")
        }
      } else if ItemCatalog.looksLikeURL(argument) {
        try catalog.add(url: argument)
      } else {
        try catalog.add(path: argument, name: namesPath ? name : nil)
      }
    }
    for url in arguments.all(Self.url) { try catalog.add(url: url) }
    for text in texts { catalog.add(text: text, name: streams == 0 ? name : nil) }
    guard !catalog.items.isEmpty else {
      throw UsageError("nothing to send: name files, folders, URLs, '-' or --text", spec: spec)
    }
    return catalog
  }
}
