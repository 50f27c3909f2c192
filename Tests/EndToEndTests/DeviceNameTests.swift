import Foundation
import Testing

/// One device name, set once with `share name`, shown everywhere: `share id`, the daemon's
/// status and advertisement, and what a receiver sees of a sender.
@Suite struct DeviceNameTests {
  @Test func aNameSetWithShareNameIsTheNameIdTheDaemonAndReceiversUse() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let set = try a.share("name", "lab-c")
    #expect(set.exited(with: 0), "\(set)")
    #expect(set.stderrText.contains("now called lab-c"), "\(set)")
    let shown = try a.share("name")
    #expect(shown.stdoutLines == ["lab-c"], "\(shown)")
    #expect(try a.share("id").stdoutLines.first == "Name: lab-c")

    let daemon = try a.startDaemon()
    defer { _ = daemon.stop() }
    let status = try parseJSONLines(try a.share("status", "--json").stdoutText).first
    #expect(status?["name"] as? String == "lab-c", "\(String(describing: status))")

    let receiver = try b.startDaemon(trusting: [a])
    defer { _ = receiver.stop() }
    let sent = try a.share("send", try a.file("n.txt", "n\n").path, "--to", receiver.address)
    #expect(sent.exited(with: 0), "\(sent)")
    // A contact here under its old name: the log names both (review 18: as the Inbox does).
    #expect(receiver.waitForLog("alice (calls itself lab-c) ("), "the receiver did not see the sender as lab-c:\n\(receiver.log)")
    #expect(try b.listedItems().first?["sender_name"] as? String == "lab-c")
  }

  @Test func idPrintsTheNameTheRunningDaemonAdvertisesEvenWhenGivenWithDashDashName() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon(arguments: ["--name", "lab-b"])
    defer { _ = daemon.stop() }
    let id = try b.share("id")
    #expect(id.exited(with: 0), "\(id)")
    #expect(id.stdoutLines.first == "Name: lab-b", "\(id)")
    #expect(id.stderrText.contains("--name"), "\(id)")
    let json = try parseJSONLines(try b.share("id", "--json").stdoutText).first
    #expect(json?["name"] as? String == "lab-b")
  }

  @Test func renamingWhileTheDaemonRunsSaysItKeepsItsNameUntilRestarted() throws {
    let b = try ShareHome(name: "bob")
    let daemon = try b.startDaemon()
    defer { _ = daemon.stop() }
    let renamed = try b.share("name", "lab-d")
    #expect(renamed.exited(with: 0), "\(renamed)")
    #expect(renamed.stderrText.contains("still advertises bob"), "\(renamed)")
    #expect(renamed.stderrText.contains("restart"), "\(renamed)")
    let settings =
      try JSONSerialization.jsonObject(with: Data(contentsOf: b.home.appendingPathComponent("settings.json"))) as? [String: Any]
    #expect(settings?["name"] as? String == "lab-d")
  }

  @Test(arguments: ["", String(repeating: "x", count: 64), "tab\there", " lead"])
  func aBadNameIsAUsageErrorAndChangesNothing(name: String) throws {
    let b = try ShareHome(name: "bob")
    let result = try b.share("name", name)
    #expect(result.exited(with: 64), "\(result)")
    #expect(result.stderrText.hasPrefix("Error: the device name must"), "\(result)")
    #expect(try b.share("name").stdoutLines == ["bob"])
  }
}
