import Foundation
import ShareKit
import Synchronization

/// `share peers`: nearby share daemons, found over mDNS/DNS-SD (Avahi).
enum PeersCommand: Command {
  static let timeout = Option(
    "--timeout", "DURATION", kind: .duration, "Wait at most this long for answers (5s, 1m; a bare number is seconds; default 3s)")
  static let watch = Flag("--watch", "Keep listening and print peers as they appear, change and disappear")
  static let json = Flag("--json", "One JSON object per peer (or event), per line")

  /// How long each known device's address has to complete a TLS handshake.
  static let proofTimeout: Duration = .milliseconds(1500)

  static let spec = CommandSpec(
    path: ["peers"], summary: "List nearby peers (mDNS/DNS-SD through Avahi)",
    usage: ["peers [--timeout DURATION] [--json]", "peers --watch [--timeout DURATION] [--json]"],
    discussion: """
      Lists the share daemons Avahi sees on the local network: name, short ID, addresses, port,
      and whether each is a contact ('share trust') or this home's own daemon; with a daemon
      running with --localsend, also the LocalSend devices it heard, marked '(LocalSend)'. It returns once
      Avahi has answered for now, or after --timeout. --watch streams appeared, changed (another
      address, say) and disappeared events until interrupted (or for --timeout), each once. A browse result is only a routing
      hint: 'share send --to NAME' checks the peer's certificate against the ID before sending
      anything.

      A record's device ID is a claim anyone can make. Records are shown as one device, and as
      a contact, only when their name and ID are a pair this home knows (a contact, or a name it
      sent to before); a record that advertises a known device's ID under another name, or a
      known name with another ID, is listed on its own and marked unverified. And since a record
      may copy a contact's name and ID word for word, share asks each address of a known
      device for a TLS handshake (nothing is sent): an address whose certificate is another's
      is listed on its own, marked unverified, and so are the addresses that did not answer
      within 1.5 s ('did not answer: its certificate is unchecked'), never as the contact.
      --watch checks each record the same way as it comes.
      """,
    options: [timeout, watch, json],
    examples: ["share peers", "share peers --watch --json"])

  /// A peer as `--json` prints it.
  struct Output: Encodable {
    var event: String?
    var name: PeerText
    var aliases: [PeerText]
    var id: String?
    var shortId: String?
    var addresses: [Peer.Address]
    var port: UInt16?
    var version: String?
    var trusted: Bool
    /// A contact's name here, when it advertises none of its names (`--to` takes it).
    var contactName: PeerText?
    var isSelf: Bool
    /// "known" (its name and ID are a pair this home knows), "new", or "unverified" (its name
    /// or its ID is known here with another).
    var standing: String
    /// For an unverified record: what it claims, in a sentence.
    var unverified: String?
    /// For a known record: whether the certificate at one of its addresses proved its ID
    /// (false: none answered in time). Absent for other records and for --watch.
    var proved: Bool?

    init(_ peer: Peer, event: String? = nil) {
      self.event = event
      name = peer.name
      aliases = peer.aliases
      id = peer.id?.hex
      shortId = peer.id?.short
      addresses = peer.preferredAddresses
      port = peer.addresses.first?.port
      version = peer.version
      trusted = peer.trusted
      contactName = peer.contactName
      // A record that only claims this home's ID is no more this home than its standing says.
      isSelf = peer.isSelf && peer.standing == .known
      switch peer.standing {
      case .known: standing = "known"
      case .new: standing = "new"
      case .claimsIDOf, .nameKnownWith, .looksLike, .takesOwnName, .idLooksLike, .certificateIsNot: standing = "unverified"
      }
      unverified = PeersCommand.claim(of: peer)
      proved = peer.proved
      if peer.proved == false {
        standing = "unverified"
        unverified = PeersCommand.marks(peer).first
      }
    }
  }

  static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let given = try arguments.duration(Self.timeout, bare: .seconds, in: 0...3600)
    let timeout = given ?? 3
    let terminal = context.terminal
    // Looking writes nothing: a home without an identity looks with one made up for this run.
    let device = try Device.loadOrLook(paths: context.paths)
    let resolver = try PeerResolver(device: device, contacts: Contacts(paths: context.paths))
    let book = try resolver.knownIdentities(warn: { terminal.warn($0) })
    let directory = PeerDirectory(book: book)
    let json = arguments[Self.json]
    // A record that copies a contact's name and ID is told from it only by its certificate.
    let proof = try PeerProof(device: device, timeout: proofTimeout)
    if arguments[Self.watch] { return try watch(directory, proof: proof, json: json, for: given, terminal: terminal) }
    let listed = try runBlocking { try await directory.snapshot(timeout: .seconds(timeout)) }
    let peers = proof.prove(listed)
    // LocalSend devices this home's daemon heard (it announces, and they answer meanwhile).
    // A claim is unverified when it names a share device, or when its fingerprint is claimed
    // from elsewhere too (review 31: a stranger squatting a phone's fingerprint).
    let heard = try LocalSendPeer.heard(paths: context.paths, wait: min(Double(timeout), 1))
    let localSend = heard.map { claim in
      (claim, claim.impersonation(of: peers.filter { !$0.isSelf }, book: book) ?? claim.notPinned(book: book) ?? claim.contested(in: heard))
    }
    if peers.isEmpty && localSend.isEmpty && !json { terminal.err("No peers nearby.") }
    if !json && terminal.stdoutIsTerminal {
      table(peers, localSend: localSend).print(to: terminal)
    } else {
      for peer in peers { show(peer, event: nil, json: json, terminal: terminal) }
      for (peer, unverified) in localSend { show(peer, unverified: unverified, json: json, terminal: terminal) }
    }
    return .success
  }

  /// A LocalSend device as `--json` prints it.
  struct LocalSendOutput: Encodable {
    var name: PeerText
    var `protocol` = "localsend"
    var fingerprint: PeerText
    var address: String
    var port: UInt16
    var deviceModel: String?
    var deviceType: String?
    var unverified: String?
  }

  static func show(_ peer: LocalSendPeer, unverified: String?, json: Bool, terminal: Terminal) {
    if json {
      terminal.out(
        JSONOutput.line(
          LocalSendOutput(
            name: peer.alias, fingerprint: peer.fingerprint, address: peer.address,
            port: peer.port, deviceModel: peer.deviceModel, deviceType: peer.deviceType, unverified: unverified)))
      return
    }
    terminal.out("\(peer.alias)\t\(peer.fingerprint.prefix(12))\t\(shownAddress(peer))\t\(localSendMarks(unverified))")
  }

  /// A LocalSend device's address as listed: `host:port`, an IPv6 host in brackets, escaped.
  static func shownAddress(_ peer: LocalSendPeer) -> String {
    peer.shownAddress
  }

  /// A LocalSend device's marks as listed: `(LocalSend)`, with the unverified mark if any.
  static func localSendMarks(_ unverified: String?) -> String {
    "(" + (["LocalSend"] + (unverified.map { [$0] } ?? [])).joined(separator: ", ") + ")"
  }

  /// `--watch`: each appearance, change and disappearance once, until interrupted.
  /// `seconds`: how long to watch (`--timeout`; review 16: it was taken and ignored), else until
  /// interrupted.
  static func watch(
    _ directory: PeerDirectory, proof: PeerProof, json: Bool, for seconds: Double?, terminal: Terminal
  ) throws -> ExitCode {
    let stream = try directory.watch()
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<(any Error)?>(nil)
    Task {
      var settled = false
      do {
        for try await event in stream {
          switch event {
          // Proved as the listing's records are (review 48: --watch called a copy a contact).
          case .appeared(let peer): for each in proof.prove([peer]) { show(each, event: "appeared", json: json, terminal: terminal) }
          case .changed(let peer): for each in proof.prove([peer]) { show(each, event: "changed", json: json, terminal: terminal) }
          case .disappeared(let peer): show(peer, event: "disappeared", json: json, terminal: terminal)
          case .settled:
            if !json && !settled { terminal.err("(Avahi has answered for now; watching for changes, Ctrl-C to stop)") }
            settled = true
          }
        }
      } catch {
        failure.withLock { $0 = error }
      }
      done.signal()
    }
    if let seconds {
      _ = done.wait(timeout: .now() + seconds)
    } else {
      done.wait()
    }
    if let error = failure.withLock({ $0 }) { throw error }
    return .success
  }

  /// What an unverified record claims, in words; nil for any other.
  static func claim(of peer: Peer) -> String? {
    switch peer.standing {
    case .known, .new: return nil
    case .claimsIDOf(let names):
      let whose = peer.isSelf ? "this home's" : names.map(escape).joined(separator: " or ") + "'s"
      return "unverified: advertises \(whose) device ID under another name"
    case .nameKnownWith(let id):
      return "unverified: this home knows \(peer.name) with ID \(id.short)"
    case .takesOwnName:
      return "unverified: advertises this device's own name"
    case .looksLike(let name):
      return "unverified: only looks like \(escape(name)), a device this home knows"
    case .idLooksLike(let name):
      return "unverified: its ID starts as \(escape(name))'s does, and is not it"
    case .certificateIsNot(let name):
      let whose = name.isEmpty ? "this device's" : escape(name) + "'s"
      return "unverified: advertises \(whose) name and ID, and its certificate is another's"
    }
  }

  /// The marks after a peer: this home, a contact, or what an unverified record claims.
  static func marks(_ peer: Peer) -> [String] {
    if let claim = claim(of: peer) { return [claim] }
    if peer.proved == false {
      let whose = (peer.contactName ?? peer.name).description
      return ["unverified: claims to be \(whose), and did not answer: its certificate is unchecked"]
    }
    let contact = peer.contactName.map { "your contact \($0)" } ?? "contact"
    return [peer.isSelf ? "this home" : nil, peer.trusted ? contact : nil].compactMap { $0 }
  }

  static func show(_ peer: Peer, event: String?, json: Bool, terminal: Terminal) {
    if json {
      terminal.out(JSONOutput.line(Output(peer, event: event)))
      return
    }
    let marks = marks(peer)
    let addresses = peer.preferredAddresses.map { "\($0.address.contains(":") ? "[\($0.address)]" : $0.address):\($0.port)" }
    let names = ([peer.name] + peer.aliases).map(\.description).joined(separator: ", ")
    let line =
      "\(names)\t\(peer.id?.short ?? "(no ID)")\t\(addresses.map(escape).joined(separator: " "))\(marks.isEmpty ? "" : "\t(" + marks.joined(separator: ", ") + ")")"
    terminal.out(event.map { "\($0): " + line } ?? line)
  }
}
