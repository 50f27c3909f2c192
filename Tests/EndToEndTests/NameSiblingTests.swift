import Foundation
import Testing

/// Review 41: for a name this home does not know yet, `--to twin` went straight to whichever
/// device had won the name on the link (resolved directly), though another device called the
/// same stood beside it as `twin #2` — and that one could be the device meant. Both are offered,
/// and off a terminal the send is refused, naming both.
@Suite(.serialized) struct NameSiblingTests {
  @Test func aNewNameWithASecondDeviceOfTheNameNearbyIsNotSentToEither() throws {
    let tag = String(UUID().uuidString.prefix(8)).lowercased()
    let name = "twin-\(tag)"
    let (first, second, sender) = (try ShareHome(name: name), try ShareHome(name: name), try ShareHome(name: "sib-\(tag)"))
    let one = try first.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = one.stop() }
    let two = try second.startDaemon(arguments: ["--mode", "everyone"])
    defer { _ = two.stop() }
    // Avahi renames the second registration of the name: both are listed.
    let deadline = ContinuousClock.now + .seconds(30)
    var names: Set<String> = []
    while ContinuousClock.now < deadline && !names.isSuperset(of: [name, "\(name) #2"]) {
      let listed = try sender.share("peers", "--json", "--timeout", "3")
      names = Set(try parseJSONLines(listed.stdoutText).flatMap { [$0["name"] as? String ?? ""] + ($0["aliases"] as? [String] ?? []) })
    }
    try #require(names.isSuperset(of: [name, "\(name) #2"]), "share peers never saw both: \(names)")
    let sent = try sender.share("send", try sender.file("for-twin.txt", "hi\n").path, "--to", name)
    #expect(!sent.exited(with: 0), "\(sent)")
    #expect(sent.stderrText.contains("choose one") && sent.stderrText.contains("\(name) #2"), "\(sent)")
    #expect(!first.inboxNames().contains("for-twin.txt") && !second.inboxNames().contains("for-twin.txt"))
    #expect(one.log.contains("asks to send") == false && two.log.contains("asks to send") == false, "\(one.log)\n\(two.log)")
  }
}
