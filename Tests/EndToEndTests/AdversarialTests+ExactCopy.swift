import Foundation
import Testing

/// A record that copies a contact's name and device ID word for word (review 41, LOW 4): to mDNS
/// it is the contact; `share peers` tells it apart by the certificate at its address.
extension AdversarialTests {
  /// bob trusts alice, whose daemon is not running; a record called alice with alice's ID
  /// points at `port`. Returns the copy (published while it lives) and what bob's `share peers
  /// --json` lists under alice's name.
  static func listedCopy(of alice: ShareHome, by bob: ShareHome, at port: UInt16) throws -> (FakeAdvertiser, [[String: Any]]) {
    let trusted = try bob.share("trust", "add", try alice.deviceID(), "--name", alice.name)
    guard trusted.exited(with: 0) else { throw HarnessError("'share trust add' failed:\n\(trusted)") }
    let copy = try FakeAdvertiser(name: alice.name, port: port, txt: ["v=1", "id=\(try alice.deviceID())"])
    let deadline = ContinuousClock.now + .seconds(20)
    var listed: [[String: Any]] = []
    while ContinuousClock.now < deadline {
      let result = try bob.share("peers", "--json", "--timeout", "3")
      guard result.exited(with: 0) else { throw HarnessError("'share peers' failed:\n\(result)") }
      listed = try parseJSONLines(result.stdoutText).filter { $0["name"] as? String == alice.name }
      if !listed.isEmpty { return (copy, listed) }
    }
    throw HarnessError("share peers never saw the copy called \(alice.name)")
  }

  @Test func aWordForWordCopyOfAContactsRecordAtAnotherDeviceIsNotListedAsTheContact() throws {
    let tag = String(UUID().uuidString.prefix(8)).lowercased()
    let alice = try ShareHome(name: "copy-alice-\(tag)")
    let bob = try ShareHome(name: "copy-bob-\(tag)")
    let mallory = try ShareHome(name: "copy-mallory-\(tag)")
    let daemon = try mallory.startDaemon()
    defer { _ = daemon.stop() }
    let (copy, listed) = try Self.listedCopy(of: alice, by: bob, at: daemon.port)
    defer { withExtendedLifetime(copy) {} }
    #expect(listed.count == 1, "\(listed)")
    for peer in listed {
      #expect(peer["trusted"] as? Bool == false, "the copy is listed as the contact: \(peer)")
      #expect(peer["standing"] as? String == "unverified", "\(peer)")
      #expect((peer["unverified"] as? String ?? "").contains("certificate is another's"), "\(peer)")
    }
    // --watch checks each record as it comes (review 48: it said "(contact)").
    let watched = try bob.share("peers", "--watch", "--json", "--timeout", "4")
    let events = try parseJSONLines(watched.stdoutText).filter { $0["name"] as? String == alice.name }
    #expect(
      !events.isEmpty && events.allSatisfy { $0["trusted"] as? Bool == false && $0["standing"] as? String == "unverified" }, "\(events)")
    // And the table says so too, for a person at a terminal.
    let shown = try bob.share("peers", "--timeout", "3")
    let row = shown.stdoutText.split(separator: "\n").first { $0.hasPrefix(alice.name) } ?? ""
    #expect(row.contains("unverified") && !row.contains("(contact"), "\(shown)")
  }

  @Test func aContactsRecordNothingAnswersAtIsMarkedNotReached() throws {
    let tag = String(UUID().uuidString.prefix(8)).lowercased()
    let alice = try ShareHome(name: "copy-alice-\(tag)")
    let bob = try ShareHome(name: "copy-bob-\(tag)")
    let hole = try SilentPort()
    let (copy, listed) = try Self.listedCopy(of: alice, by: bob, at: hole.port)
    defer { withExtendedLifetime(copy) {} }
    // Nothing proved it: not listed as the contact (review 48).
    #expect(listed.count == 1 && listed[0]["trusted"] as? Bool == false && listed[0]["proved"] as? Bool == false, "\(listed)")
    #expect(listed.first?["standing"] as? String == "unverified", "\(listed)")
  }
}
