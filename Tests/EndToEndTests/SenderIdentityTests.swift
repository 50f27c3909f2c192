import Foundation
import Glibc
import Testing

/// The Inbox says who sent an item as this home knows the sender, not only as the sender named
/// itself (review 15: a contact calling itself `bob`, or a stranger using the contact `bob`'s
/// name once its ask was accepted, was listed as plain "bob").
@Suite struct SenderIdentityTests {
  @Test func aContactIsShownByItsNameHereAndAStrangerUsingItIsMarked() throws {
    let (alice, b) = (try ShareHome(name: "alice"), try ShareHome(name: "receiver"))
    let daemon = try b.startDaemon(trusting: [alice], arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    // The contact renames itself: its items are still the contact "alice"'s.
    #expect(try alice.share("name", "bob").exited(with: 0))
    #expect(try alice.share("send", try alice.file("from-alice.txt", "hi\n").path, "--to", daemon.address).exited(with: 0))
    // Another device calls itself "alice": once accepted, its item says it is not the contact.
    let impostor = try ShareHome(name: "alice")
    let asking = try impostor.startShare("send", try impostor.file("from-impostor.txt", "hi\n").path, "--to", daemon.address)
    defer { asking.signal(SIGKILL) }
    #expect(asking.waitForStderr(containing: "waiting for the receiver's owner"))
    #expect(try b.share("accept", "1").exited(with: 0))
    #expect(asking.wait().exited(with: 0))

    let listed = try b.share("inbox", "list").stdoutText
    let contactLine = listed.split(separator: "\n").first { $0.contains("from-alice.txt") } ?? ""
    let impostorLine = listed.split(separator: "\n").first { $0.contains("from-impostor.txt") } ?? ""
    #expect(contactLine.contains("alice (calls itself bob) ("), "\(listed)")
    #expect(impostorLine.contains("alice (NOT your contact alice) ("), "\(listed)")
    #expect(try b.share("inbox", "show", "from-impostor.txt").stdoutText.contains("From:       alice (NOT your contact alice)"))
    let json = try parseJSONLines(try b.share("inbox", "list", "--json").stdoutText)
    let contact = json.first { $0["name"] as? String == "from-alice.txt" }
    let impostorJSON = json.first { $0["name"] as? String == "from-impostor.txt" }
    #expect(contact?["contact_name"] as? String == "alice" && contact?["sender_name"] as? String == "bob")
    #expect(impostorJSON?["posed_as"] as? String == "alice" && impostorJSON?["contact_name"] == nil)
  }
}
