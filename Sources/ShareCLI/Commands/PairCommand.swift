import Foundation
import Glibc
import ShareKit

/// `share pair PEER`: become contacts with a nearby peer by comparing a six-digit code.
enum PairCommand: Command {
  static let yes = Flag("--yes", short: "-y", "Trust the peer once it accepts, without asking here (compare the codes first!)")

  static let spec = CommandSpec(
    path: ["pair"], summary: "Become contacts with a nearby peer, comparing a six-digit code",
    usage: ["pair PEER [--yes]"],
    discussion: """
      Numeric comparison, as Bluetooth pairs: both devices derive a six-digit code from both
      certificates and a random nonce of each side, the peer committed to its own before it sees
      this one's. This command shows it; the peer's owner sees it in 'share requests' and accepts
      with 'share accept N'. Here, confirm that the codes match (or pass --yes after comparing):
      only then do both devices trust each other; a "no" on either side leaves neither trusting
      the other. A man in the middle would present other certificates and could not choose its
      nonces to make the two codes match: they would differ (but for one chance in a million).
      The peer must be receiving from everyone ('share receive everyone --for 5m' there).
      PEER is a device name, an ID prefix, or HOST:PORT.
      """,
    options: [yes],
    arguments: 1...1, argumentKind: .peer, examples: ["share pair lab-b", "share pair 192.168.1.20:40123"], home: .mayCreate)

  static func refuseEmpty(_ peer: String) throws {
    guard peer.allSatisfy(\.isWhitespace) else { return }
    throw UsageError("PEER is empty; give a name, an ID prefix or HOST:PORT", spec: spec)
  }

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    try refuseEmpty(arguments.positionals[0])
    // Checked before anything is sent: the code must be confirmed here (or --yes given) for
    // either device to trust the other.
    guard arguments[Self.yes] || isatty(STDIN_FILENO) == 1 else {
      throw UsageError("confirm the code on a terminal, or pass --yes after comparing it", spec: spec)
    }
    let device = try context.device()
    let resolver = try PeerResolver(device: device, contacts: Contacts(paths: context.paths))
    guard let endpoint = try SendCommand.resolveTargets([arguments.positionals[0]], resolver: resolver, context: context).first else {
      throw ShareError.configuration("no such peer")
    }
    let (terminal, paths) = (context.terminal, try context.paths)
    let sender = try Sender(device: device)
    let yes = arguments[Self.yes]
    // A device that calls itself like a contact cannot become a second contact by that name
    // (review 27: it did, and `--to bob` then picked either): refused as soon as the peer is
    // known, before its owner is asked (review 36 L7), and again, with the contacts as they are
    // then, before this side confirms (review 40), so neither device trusts the other.
    let outcome = try sender.pair(
      with: endpoint,
      refuse: { name, id in Self.nameClash(name, id, contacts: paths, terminal) },
      showCode: { code, name, id in
        terminal.err("Pairing with \(name) (\(id.grouped))")
        terminal.err("Verification code: \(terminal.paint(code, .bold))")
        terminal.err("Check that \(name)'s owner sees the same code in 'share requests', and accepts it there.")
      },
      confirm: {
        // Asked once the peer's owner accepted; the peer trusts this device only after a yes.
        if yes { return true }
        return Self.confirmed(terminal, "\(endpoint)'s owner accepted. Does it show the same code? [y/N] ")
      },
      observer: { event in
        switch event {
        case .waiting: terminal.err("Waiting for \(endpoint)'s owner to accept…")
        case .busy(let said, let retryIn):
          let seconds = max(1, Int((retryIn / .seconds(1)).rounded()))
          terminal.err("\(endpoint) \(SendReporter.turnedAway(said)); trying again in \(seconds) s (Ctrl-C to stop)")
        default: break
        }
      })
    guard outcome.accepted else {
      if outcome.declinedHere {
        terminal.err("Not paired: neither device trusts the other.")
        return .failure
      }
      throw ShareError.peerFailure(code: "declined", message: outcome.reason ?? "the pairing was declined")
    }
    do {
      try Contacts(paths: paths).pair(with: TrustedPeer(id: outcome.peerFingerprint, name: outcome.peerName))
    } catch {
      // The other device trusts this one already: say so, and how to undo it.
      throw ShareError.configuration(
        "\(error); \(outcome.peerName) trusts this device now: remove it there ('share trust remove') or pair again once that is settled"
      )
    }
    _ = try? ControlClient.send(.reload, paths: paths)
    terminal.err("Paired: \(outcome.peerName) (\(outcome.peerFingerprint.grouped)) is a contact of this home.")
    return .success
  }

  /// Why the peer cannot be paired by its name here (a contact has it, or one like it), told
  /// on `terminal`; nil when it can.
  static func nameClash(
    _ name: PeerText, _ id: Fingerprint, contacts paths: SharePaths, _ terminal: Terminal
  ) -> String? {
    // Contacts that cannot be read are no clash here: the pairing's own write checks again.
    guard let clash = (try? Contacts(paths: paths).trusted())?.contact(sharingNameWith: name, other: id) else { return nil }
    terminal.err("Pairing with \(name) (\(id.grouped))")
    terminal.err(Self.clashWarning(clash))
    terminal.err(Self.clashRefusal(clash))
    return "a contact is called that"
  }

  static func clashWarning(_ contact: TrustedPeer) -> String {
    "warning: NOT your contact \(contact.name) (\(contact.id.short)): another device using that name or one like it; "
      + "it cannot become a contact by it"
  }

  static func clashRefusal(_ contact: TrustedPeer) -> String {
    "Not pairing: your contact \(contact.name) (\(contact.id.short)) is called that. Ask this device's owner to rename it "
      + "('share name'), or remove your contact first ('share trust remove \(contact.id.short)')."
  }

  /// Asks `question` and reads a yes; what was typed while waiting is no answer to it (review 27).
  static func confirmed(_ terminal: Terminal, _ question: String) -> Bool {
    tcflush(STDIN_FILENO, TCIFLUSH)
    terminal.errRaw(question)
    return readLine().map { ["y", "yes"].contains($0.lowercased().trimmingCharacters(in: .whitespaces)) } ?? false
  }
}
