import Foundation
import Testing

@testable import ShareCLI
@testable import ShareKit

/// Issue 11.2 in `share peers` and `share send`'s choice of peer: an advertised name is anyone's
/// text, so it reaches the terminal escaped and cut whichever way it is shown.
@Suite struct PeerTextOutputTests {
  static let hostile =
    "lab\u{1B}]52;c;cHduZWQ=\u{07}\u{1B}]8;;https://evil.example/\u{07}b\u{1B}]8;;\u{07}\u{202E}"
    + String(repeating: "\u{1B}[2J", count: 200)

  static func peer(_ name: String) -> Peer {
    Peer(
      name: PeerText(name), aliases: [PeerText(name + "-2")], id: Fingerprint(bytes: Array(repeating: 0x66, count: 32)),
      version: "1", addresses: [Peer.Address(address: "127.0.0.1", port: 40123, interface: "lo")], isSelf: false, trusted: false)
  }

  @Test(arguments: [false, true])
  func anAdvertisedNameIsShownEscapedAndCut(json: Bool) {
    let console = CapturedConsole()
    let terminal = Terminal(environment: [:], verbose: false, console: console)
    PeersCommand.show(Self.peer(Self.hostile), event: "added", json: json, terminal: terminal)
    let shown = console.out
    #expect(!shown.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" }, "\(shown.debugDescription)")
    if json {
      let object = try? JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any]
      #expect((object?["name"] as? String)?.hasPrefix("lab\u{1B}]52;") == true, "JSON carries the value itself: \(shown)")
    } else {
      #expect(shown.hasPrefix(#"added: lab\u{1B}]52;c;"#), "\(shown)")
      // The line lists the name and its alias, each cut.
      #expect(shown.count < 2 * PeerText.displayLength + 100, "\(shown.count) characters")
    }
  }
}

/// Found by review 13: a record that only claimed this home's ID was `"is_self":true` beside
/// `"standing":"unverified"`, and one that takes this device's name said nothing of it.
@Suite struct PeerStandingOutputTests {
  static func peer(_ standing: Peer.Standing, isSelf: Bool) -> Peer {
    Peer(
      name: PeerText("me"), id: Fingerprint(bytes: Array(repeating: 0x66, count: 32)), version: "1",
      addresses: [Peer.Address(address: "127.0.0.1", port: 40123, interface: "lo")], isSelf: isSelf, trusted: false,
      standing: standing)
  }

  @Test func onlyARecordWhoseNameAndIDAreThisHomesIsSelf() {
    #expect(PeersCommand.Output(Self.peer(.known, isSelf: true)).isSelf)
    let copy = PeersCommand.Output(Self.peer(.claimsIDOf(["me"]), isSelf: true))
    #expect(!copy.isSelf && copy.standing == "unverified")
  }

  @Test func aRecordTakingThisDevicesNameIsMarked() {
    let taker = Self.peer(.takesOwnName, isSelf: false)
    #expect(PeersCommand.Output(taker).standing == "unverified")
    #expect(PeersCommand.marks(taker) == ["unverified: advertises this device's own name"])
  }
}
