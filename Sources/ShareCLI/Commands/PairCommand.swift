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
      Numeric comparison, as Bluetooth and KDE Connect pair: both devices derive a six-digit code
      from both certificates. This command shows it; the peer's owner sees it in 'share requests'
      and accepts with 'share accept ID' (then the peer trusts this device). Here, confirm that the
      codes match (or pass --yes after comparing) and this home trusts the peer too. A
      man in the middle would present other certificates, and the codes would differ.
      The peer must be receiving from everyone ('share receive everyone --for 5m' there).
      PEER is a device name, an ID prefix, or HOST:PORT.
      """,
    options: [yes],
    arguments: 1...1, argumentKind: .peer, examples: ["share pair lab-b", "share pair 192.168.1.20:40123"])

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let device = try context.device()
    let resolver = PeerResolver(device: device, contacts: Contacts(paths: context.paths))
    guard let endpoint = try SendCommand.resolveTargets([arguments.positionals[0]], resolver: resolver, context: context).first else {
      throw ShareError.configuration("no such peer")
    }
    let terminal = context.terminal
    let sender = try Sender(device: device)
    let outcome = try sender.pair(
      with: endpoint,
      showCode: { code, name, id in
        terminal.err("Pairing with \(escape(name)) (\(id.grouped))")
        terminal.err("Verification code: \(terminal.paint(code, .bold))")
        terminal.err("Check that \(escape(name))'s owner sees the same code in 'share requests', and accepts it there.")
      },
      observer: { event in
        if case .waiting = event { terminal.err("Waiting for \(escape(endpoint.description))'s owner to accept…") }
      })
    guard outcome.accepted else {
      throw ShareError.peerFailure(code: "declined", message: PeerText(outcome.reason ?? "the pairing was declined"))
    }
    terminal.err("\(escape(outcome.peerName)) accepted: it now trusts this device.")
    if !arguments[Self.yes] {
      guard isatty(STDIN_FILENO) == 1 else {
        throw ShareError.configuration("not trusting \(escape(outcome.peerName)) here: confirm the code on a terminal, or pass --yes after comparing")
      }
      terminal.errRaw("Does \(escape(outcome.peerName)) show the code \(outcome.code)? [y/N] ")
      guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased().trimmingCharacters(in: .whitespaces)) else {
        terminal.err("Not trusted here. (Remove this device there with 'share trust remove'.)")
        return .failure
      }
    }
    try Contacts(paths: context.paths).pair(with: TrustedPeer(id: outcome.peerFingerprint, name: outcome.peerName))
    _ = try? ControlClient.send(.reload, paths: context.paths)
    terminal.err("Paired: \(escape(outcome.peerName)) (\(outcome.peerFingerprint.grouped)) is a contact of this home.")
    return .success
  }
}
