import Foundation
import Testing

@testable import ShareCLI

/// `share trust add`: a contact's name follows the rules of `share name`, and one name (letter
/// case and look-alike characters aside) is never two contacts (review 13: `x` and `X`, or two
/// contacts called `x\ny`, were both added, and a send by that name reached whichever came first).
@Suite struct TrustAddTests {
  static func id(_ digit: Character) -> String { String(repeating: digit, count: 64) }

  @Test func aSecondContactOfOneNameOrOfALookAlikeIsRefusedAndTheFirstKept() {
    let home = ScratchHome()
    defer { home.remove() }
    #expect(share(["trust", "add", Self.id("1"), "--name", "lab-b"], environment: home.environment).code == .success)
    for name in ["lab-b", "LAB-B", "lab\u{2010}b", "l\u{430}b-b"] {
      let second = share(["trust", "add", Self.id("2"), "--name", name], environment: home.environment)
      #expect(second.code == .failure && second.err.contains("your contact lab-b (111111111111) is called that"), "\(second)")
    }
    // The contact itself may be renamed (and is told so: review 16), and another device take
    // another name.
    let renamed = share(["trust", "add", Self.id("1"), "--name", "Lab-B"], environment: home.environment)
    #expect(renamed.code == .success && renamed.err.contains("Renamed your contact lab-b to Lab-B"), "\(renamed)")
    #expect(share(["trust", "add", Self.id("2"), "--name", "lab-c"], environment: home.environment).code == .success)
    let listed = share(["trust"], environment: home.environment)
    #expect(listed.outLines.count == 2 && listed.outLines[0].hasPrefix("Lab-B") && listed.outLines[1].hasPrefix("lab-c"), "\(listed)")
  }

  /// Review 30: this device's own ID was taken as a contact; a fresh home is given no identity.
  @Test func thisDevicesOwnIDIsNoContact() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let shown = share(["id", "--json"], environment: home.environment)
    let object = try JSONSerialization.jsonObject(with: Data(shown.out.utf8)) as? [String: Any]
    let id = try #require(object?["id"] as? String, "\(shown)")
    let own = share(["trust", "add", id, "--name", "me"], environment: home.environment)
    #expect(own.code == .failure && own.err.contains("is this device's own ID"), "\(own)")
    let fresh = ScratchHome()
    defer { fresh.remove() }
    #expect(share(["trust", "add", id, "--name", "lab-b"], environment: fresh.environment).code == .success)
    #expect(!FileManager.default.fileExists(atPath: fresh.url.appendingPathComponent("identity").path))
  }

  @Test(arguments: ["two\nlines", "evil\u{1b}[2J", " padded", String(repeating: "a", count: 64)])
  func aNameThatCannotBeADeviceNameIsAUsageError(name: String) {
    let home = ScratchHome()
    defer { home.remove() }
    let added = share(["trust", "add", Self.id("1"), "--name", name], environment: home.environment)
    #expect(added.code == .usage && added.err.contains("--name"), "\(added)")
    #expect(share(["trust"], environment: home.environment).err.contains("No contacts yet"))
  }

  /// Review 18: a contact that really had a new identity was refused with the advice to run
  /// `share trust forget NAME`, which said it forgot the name and changed nothing: the contact's
  /// ID still pinned it, and the next send was refused with the same advice.
  @Test func forgettingAContactsNameSaysTheContactStillPinsItAndHowToChangeThat() {
    let home = ScratchHome()
    defer { home.remove() }
    #expect(share(["trust", "add", Self.id("1"), "--name", "bob-desk"], environment: home.environment).code == .success)
    let forgot = share(["trust", "forget", "Bob-Desk"], environment: home.environment)
    #expect(forgot.code == .failure, "\(forgot)")
    #expect(forgot.err.contains("bob-desk is your contact (1111-"), "\(forgot)")
    #expect(forgot.err.contains("run 'share trust remove Bob-Desk' and pair again ('share pair Bob-Desk')"), "\(forgot)")
    #expect(share(["trust", "add", Self.id("2"), "--name", "k $(x)"], environment: home.environment).code == .success)
    let quoted = share(["trust", "forget", "k $(x)"], environment: home.environment)
    #expect(quoted.err.contains("run share trust remove 'k $(x)' and pair again (share pair 'k $(x)')"), "\(quoted)")
    #expect(share(["trust", "forget", "other"], environment: home.environment).err.contains("no ID is remembered for other"))
  }

  /// Review 36: with another ID remembered for a contact's name (a send to a device calling
  /// itself so), `share trust forget NAME` — the advice `share send` gives — forgot it, yet said
  /// "Error:" and exited 1.
  @Test func forgettingTheIDRememberedBesideAContactSucceedsAndSaysTheContactStaysExpected() throws {
    let home = ScratchHome()
    defer { home.remove() }
    #expect(share(["trust", "add", Self.id("1"), "--name", "laptop"], environment: home.environment).code == .success)
    let other = String(repeating: "2", count: 64)
    let known = """
      {"peers":[{"name":"laptop","id":"\(other)","first_seen":"2025-01-01T00:00:00Z","last_seen":"2025-01-01T00:00:00Z"}]}
      """
    try Data(known.utf8).write(to: home.url.appendingPathComponent("known_peers.json"))
    let forgot = share(["trust", "forget", "laptop"], environment: home.environment)
    #expect(forgot.code == .success, "\(forgot)")
    #expect(
      forgot.err.contains("Forgot the ID remembered for laptop (2222-") && forgot.err.contains("laptop is your contact (1111-"), "\(forgot)"
    )
    let again = share(["trust", "forget", "laptop"], environment: home.environment)
    #expect(again.code == .failure && again.err.contains("no other ID is remembered for laptop"), "\(again)")
  }

  /// Review 20: adding a contact again without --name renamed it to its ID's digits, and reset
  /// its --ask and when it was added.
  @Test func addingAContactAgainChangesOnlyWhatIsGiven() throws {
    let home = ScratchHome()
    defer { home.remove() }
    #expect(share(["trust", "add", Self.id("1"), "--name", "charlie", "--ask"], environment: home.environment).code == .success)
    let before = share(["trust", "--json"], environment: home.environment).out
    let again = share(["trust", "add", Self.id("1")], environment: home.environment)
    #expect(again.code == .success && again.err.contains("charlie (1111-") && again.err.contains("is your contact already"), "\(again)")
    #expect(share(["trust", "--json"], environment: home.environment).out == before)
    let unasked = share(["trust", "add", Self.id("1"), "--no-ask"], environment: home.environment)
    #expect(unasked.code == .success && unasked.err.contains("accepted without asking now"), "\(unasked)")
    let after = share(["trust", "--json"], environment: home.environment).out
    #expect(after.contains("\"name\":\"charlie\"") && after.contains("\"ask\":false"), "\(after)")
    #expect(share(["trust", "add", Self.id("1"), "--ask", "--no-ask"], environment: home.environment).code == .usage)
  }

  /// Review 36 L5: `trust add ID --name N`, with another ID remembered for N from an earlier
  /// send, said nothing, though sends to N go to the contact from then on.
  @Test func aNameRememberedForAnotherDeviceIsNotedWhenAContactTakesIt() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let other = String(repeating: "2", count: 64)
    let known = """
      {"peers":[{"name":"Laptop","id":"\(other)","first_seen":"2025-01-01T00:00:00Z","last_seen":"2025-01-01T00:00:00Z"}]}
      """
    try Data(known.utf8).write(to: home.url.appendingPathComponent("known_peers.json"))
    let added = share(["trust", "add", Self.id("1"), "--name", "laptop"], environment: home.environment)
    #expect(added.code == .success && added.err.contains("Trusted laptop (1111-"), "\(added)")
    #expect(added.err.contains("laptop was remembered as another device (222222222222)"), "\(added)")
    #expect(added.err.contains("now go to this contact (111111111111) only"), "\(added)")
    let same = share(["trust", "add", other, "--name", "laptop2"], environment: home.environment)
    #expect(same.code == .success && !same.err.contains("remembered as another"), "\(same)")
  }
}
