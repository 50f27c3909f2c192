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

  /// Review 18: `share send` to a stranger reached by HOST:PORT that calls itself by a contact's
  /// name said "Connected to bob-desk … stored in bob-desk's Inbox". The sender shows receivers
  /// as the Inbox shows senders.
  @Test func theSenderShowsAReceiverAsThisHomeKnowsIt() throws {
    let (alice, contact) = (try ShareHome(name: "alice"), try ShareHome(name: "bob-desk"))
    let impostor = try ShareHome(name: "bob-desk")
    #expect(try alice.share("trust", "add", try contact.deviceID(), "--name", "bob-desk").exited(with: 0))
    let daemon = try impostor.startDaemon(trusting: [alice])
    defer { _ = daemon.stop() }
    let file = try alice.file("notes.txt", "hi\n").path

    let sent = try alice.share("send", file, "--to", daemon.address)
    #expect(sent.exited(with: 0), "\(sent)")
    #expect(sent.stderrText.contains("Connected to bob-desk (NOT your contact bob-desk) at "), "\(sent)")
    #expect(sent.stderrLines.last?.hasPrefix("1 of 1 stored in the Inbox of bob-desk (NOT your contact bob-desk)") == true, "\(sent)")
    let events = try parseJSONLines(try alice.share("send", file, "--to", daemon.address, "--json").stdoutText)
    for name in ["connected", "done"] {
      let event = events.first { $0["event"] as? String == name }
      #expect(event?["posed_as"] as? String == "bob-desk" && event?["contact_name"] == nil, "\(String(describing: event))")
    }

    // The same device made a contact under another name is that contact here.
    #expect(try alice.share("trust", "add", try impostor.deviceID(), "--name", "lab-server").exited(with: 0))
    let named = try alice.share("send", file, "--to", daemon.address, "--json")
    let connected = try parseJSONLines(named.stdoutText).first { $0["event"] as? String == "connected" }
    #expect(connected?["contact_name"] as? String == "lab-server" && connected?["posed_as"] == nil, "\(named)")
    let plain = try alice.share("send", file, "--to", daemon.address)
    #expect(plain.stderrText.contains("Connected to lab-server (calls itself bob-desk) at "), "\(plain)")
  }

  /// Review 18: with `trust.json` restored by hand (no reload), the daemon's copy of the contacts
  /// lacked the contact `alice`, and `share accept N --trust` of a stranger calling itself alice
  /// made a second contact of that name. The contacts on disk decide.
  @Test func acceptAndTrustChecksTheContactsOnDiskNotTheDaemonsCopy() throws {
    let (alice, b) = (try ShareHome(name: "alice"), try ShareHome(name: "receiver"))
    let daemon = try b.startDaemon(trusting: [alice], arguments: ["--mode", "everyone"])
    defer { _ = daemon.stop() }
    let trustFile = b.home.appendingPathComponent("trust.json")
    let saved = try Data(contentsOf: trustFile)
    #expect(try b.share("trust", "remove", "alice").exited(with: 0))  // the daemon reloads: no contacts
    try saved.write(to: trustFile)  // restored by hand, without a reload

    let impostor = try ShareHome(name: "alice")
    let asking = try impostor.startShare("send", try impostor.file("x.txt", "x\n").path, "--to", daemon.address)
    defer { asking.signal(SIGKILL) }
    #expect(asking.waitForStderr(containing: "waiting for the receiver's owner"))
    let accepted = try b.share("accept", "1", "--trust")
    #expect(accepted.exited(with: 1) && accepted.stderrText.contains("your contact named alice has ID"), "\(accepted)")
    let contacts = try b.share("trust").stdoutLines
    #expect(contacts.count == 1 && contacts[0].hasPrefix("alice"), "\(contacts)")
  }
}
