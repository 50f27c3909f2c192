import Foundation
import ShareKit

/// `share trust list`: this home's contacts.
enum TrustListCommand: Command {
  static let json = Flag("--json", "One JSON object per contact, per line")

  static let spec = CommandSpec(
    path: ["trust", "list"], summary: "List trusted peers (contacts)",
    usage: ["trust [list] [--json]"],
    discussion: """
      Contacts are peers identified by their device ID (certificate fingerprint). In contacts mode
      only they may send; in everyone mode their sends are accepted without asking.
      """,
    options: [json],
    examples: ["share trust", "share trust list --json"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let store = try Contacts(paths: context.paths).trusted()
    if arguments[Self.json] {
      for peer in store.peers { context.terminal.out(JSONOutput.line(peer)) }
      return .success
    }
    if store.peers.isEmpty {
      context.terminal.err("No contacts yet. Add one with 'share trust add ID --name NAME', or accept an ask with --trust.")
    }
    var table = Table("NAME", "ID", "")
    for peer in store.peers {
      table.add(peer.name.description, peer.id.grouped, peer.ask ? "(asks first)" : "")
    }
    // On a pipe, as before: no empty last cell (a name is never left out: NAME, then ID).
    if context.terminal.stdoutIsTerminal {
      table.print(to: context.terminal)
    } else {
      for row in table.rows { context.terminal.out((row.last?.isEmpty == true ? row.dropLast() : row[...]).joined(separator: "\t")) }
    }
    return .success
  }
}

/// `share trust add ID [--name NAME]`.
enum TrustAddCommand: Command {
  static let name = Option("--name", "NAME", "What to call it (default: its name so far, or the first digits of its ID)")
  static let ask = Flag("--ask", "Still ask before accepting its sends")
  static let noAsk = Flag("--no-ask", "Accept its sends without asking (a contact's default)")

  static let spec = CommandSpec(
    path: ["trust", "add"], summary: "Trust a peer by its device ID",
    usage: ["trust add ID [--name NAME] [--ask|--no-ask]"],
    discussion: """
      ID is the 64-hex-digit device ID that 'share id' prints on the peer (separators allowed).
      Adding a contact again changes only what is given: its name with --name, whether its sends
      are asked about with --ask or --no-ask.
      """,
    options: [name, ask, noAsk],
    arguments: 1...1, examples: ["share trust add 3f2a-9c01-… --name laptop"], home: .mayCreate)

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    guard let id = Fingerprint(hex: arguments.positionals[0]) else {
      throw UsageError("'\(escape(arguments.positionals[0]))' is not a device ID (64 hex digits, as 'share id' prints)", spec: spec)
    }
    if arguments[Self.ask] && arguments[Self.noAsk] { throw UsageError("--ask and --no-ask contradict each other", spec: spec) }
    // Review 30: this device's own ID was taken as a contact. Looked for only in a home that has
    // an identity already (a fresh one cannot be it, and is not given one by this command).
    if FileManager.default.fileExists(atPath: try context.paths.identity.path), try context.device().fingerprint == id {
      throw ShareError.configuration(
        "\(id.short) is this device's own ID: its own sends are taken as a contact's already, with nothing to trust")
    }
    let contacts = try Contacts(paths: context.paths)
    // A contact added again keeps what is not given (review 20: its name became its ID's digits,
    // and its --ask was lost, when a setup script added it again).
    let before = try contacts.trusted().peer(id)
    let name = arguments[Self.name] ?? before?.name.unescaped ?? id.short
    // The rules of 'share name': a contact's name is shown, and compared, as a device name.
    if let problem = DeviceName.problem(name) {
      // Review 30 L8: an empty one read "--name : must be …".
      throw UsageError(name.isEmpty ? "--name is empty: a name \(problem)" : "--name \(escape(name)): \(problem)", spec: spec)
    }
    let ask = arguments[Self.ask] || (!arguments[Self.noAsk] && before?.ask == true)
    let peer = TrustedPeer(id: id, name: PeerText(name), addedAt: before?.addedAt ?? Date(), ask: ask)
    // A contact already trusted under another name is renamed, and the person is told so.
    if let other = try contacts.trustUnlessNameTaken(peer) {
      throw ShareError.configuration(
        "your contact \(other.name) (\(other.id.short)) is called that, or something that looks like it; "
          + "give this contact another name, or remove that one first ('share trust remove \(other.id.short)')")
    }
    notifyDaemon(context)
    // A name remembered from an earlier send for another device: sends to that name now go to
    // this contact; said, since it overrides what the person saw there (review 36 L5).
    if let remembered = contacts.remembered().0.id(for: name), remembered != id {
      context.terminal.err(
        "Note: \(escape(name)) was remembered as another device (\(remembered.short)) from an earlier send; "
          + "sends to \(escape(name)) now go to this contact (\(id.short)) only")
    }
    if let before, before.name.unescaped != name {
      context.terminal.err("Renamed your contact \(before.name) to \(escape(name)) (\(id.grouped))")
    } else if let before, before.ask != ask {
      let now = ask ? "its sends are asked about now" : "its sends are accepted without asking now"
      context.terminal.err("\(escape(name)) (\(id.grouped)): \(now)")
    } else if before != nil {
      context.terminal.err("\(escape(name)) (\(id.grouped)) is your contact already")
    } else {
      context.terminal.err("Trusted \(escape(name)) (\(id.grouped))")
    }
    return .success
  }
}

/// `share trust remove ID|NAME`.
enum TrustRemoveCommand: Command {
  static let spec = CommandSpec(
    path: ["trust", "remove"], summary: "Stop trusting a peer",
    usage: ["trust remove ID-PREFIX|NAME"], arguments: 1...1, argumentKind: .contact, examples: ["share trust remove laptop"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let query = arguments.positionals[0]
    switch try Contacts(paths: context.paths).untrust(matching: query) {
    case .noMatch:
      throw ShareError.configuration("no contact matches '\(escape(query))' (see 'share trust list')")
    case .ambiguous(let matches):
      throw ShareError.configuration("'\(escape(query))' matches \(matches.count) contacts; give more of the ID")
    case .removed(let peer):
      notifyDaemon(context)
      context.terminal.err("No longer trusted: \(peer.name) (\(peer.id.grouped))")
      return .success
    }
  }
}

/// Tells a running daemon to re-read its contacts; quiet when none runs.
private func notifyDaemon(_ context: CommandContext) {
  _ = try? ControlClient.send(.reload, paths: context.paths)
}

/// `share trust forget NAME`: forget the ID remembered for a peer name (trust on first use).
enum TrustForgetCommand: Command {
  static let spec = CommandSpec(
    path: ["trust", "forget"], summary: "Forget the device ID remembered for a peer name",
    usage: ["trust forget NAME"],
    discussion: """
      The first time this home sends to a peer by name, it remembers the device ID that name had;
      a later send to that name from another ID is refused as a possible impersonation. When the
      peer really has a new identity (reinstalled, new home), compare its ID ('share id' there)
      and forget the old one here.
      """,
    arguments: 1...1, examples: ["share trust forget lab-b"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let name = arguments.positionals[0]
    let contacts = try Contacts(paths: context.paths)
    let forgotten = try contacts.forget(name: name)
    // A contact's ID pins its name whatever was remembered: forgetting alone changed nothing, and
    // said it had (review 18: the refusal's advice went round in a loop).
    // Forgetting a remembered ID beside a contact did what was asked (review 36: it said
    // "Error:" and exited 1, and `share send` advises exactly this command).
    if let contact = try contacts.trusted().peers.first(where: { KnownIdentities.sameName($0.name.unescaped, name) }) {
      let stays =
        "\(contact.name) is your contact (\(contact.id.grouped)): its ID stays expected; if it really has a new identity, "
        + "compare it with 'share id' there, then run \(ShellWords.suggestion(["share", "trust", "remove", name])) and pair again "
        + "(\(ShellWords.suggestion(["share", "pair", name])))"
      guard let id = forgotten else { throw ShareError.configuration("no other ID is remembered for \(escape(name)); " + stays) }
      context.terminal.err("Forgot the ID remembered for \(escape(name)) (\(id.grouped)). " + stays + ".")
      return .success
    }
    guard let id = forgotten else {
      throw ShareError.configuration("no ID is remembered for \(escape(name))")
    }
    context.terminal.err("Forgot \(escape(name)) (\(id.grouped)); the next send to it remembers the ID it presents then.")
    return .success
  }
}
