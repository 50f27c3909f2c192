import Foundation
import ShareKit

/// `share id`: this device's name and ID (the SHA-256 fingerprint of its public key).
enum IdCommand: Command {
  static let json = Flag("--json", "Print one JSON object")

  static let spec = CommandSpec(
    path: ["id"], summary: "Show this device's name and ID",
    usage: ["id [--json]"],
    discussion: """
      The ID is the SHA-256 of the DER-encoded SubjectPublicKeyInfo of this device's certificate,
      shown as 16 groups of 4 hex digits. Check it with:
        openssl x509 -in CERT -pubkey -noout | openssl pkey -pubin -outform DER | sha256sum
      The identity is created on first use (Ed25519 key, owner-only, and a self-signed certificate).
      """,
    options: [json],
    examples: ["share id", "share id --json"])

  struct Output: Encodable {
    var name: String
    var id: String
    var shortId: String
    var certificate: String
  }

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let device = try context.device()
    if arguments[Self.json] {
      context.terminal.out(JSONOutput.line(Output(
        name: device.name, id: device.fingerprint.hex, shortId: device.fingerprint.short,
        certificate: device.identity.certificateURL.path)))
    } else {
      context.terminal.out("Name: \(escape(device.name))")
      context.terminal.out("ID:   \(device.fingerprint.grouped)")
    }
    return .success
  }
}
