import Foundation
import Testing

/// `share send --dry-run`: what would be offered, with the types the sender detects; nothing sent.
@Suite struct DryRunTests {
  @Test func aDryRunListsEachItemWithItsDetectedTypeAndContactsNobody() throws {
    let a = try ShareHome(name: "alice")
    let photo = try a.pngFile("photo.png")
    let disguised = try a.copy(URL(fileURLWithPath: "/bin/true"), as: "cat.png")
    let result = try a.share("send", photo.path, disguised.path, "--text", "hi", "--dry-run", "--json")
    #expect(result.exited(with: 0), "\(result)")
    let items = try parseJSONLines(result.stdoutText)
    #expect(items.map { $0["name"] as? String } == ["photo.png", "cat.png", "text.txt"])
    #expect(items.map { $0["type"] as? String } == ["public.png", "public.unix-executable", "public.utf8-plain-text"])
    let human = try a.share("send", photo.path, "--dry-run")
    #expect(human.stdoutLines.first?.hasPrefix("file\tphoto.png") == true, "\(human)")
    #expect(human.stderrText.contains("nothing was sent"))
  }

  /// Review 38: with --json, what a dry run leaves out was said as text on stderr, where a real
  /// send gives warning events.
  @Test func aJSONDryRunGivesItsWarningsAsEvents() throws {
    let a = try ShareHome(name: "alice")
    let folder = a.files.appendingPathComponent("trip")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("x\n".utf8).write(to: folder.appendingPathComponent("x.txt"))
    try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path, withDestinationPath: "/etc/hostname")
    let result = try a.share("send", folder.path, "--dry-run", "--json")
    #expect(result.exited(with: 0), "\(result)")
    let lines = try parseJSONLines(result.stdoutText)
    #expect(lines.contains { $0["event"] as? String == "warning" && ($0["message"] as? String)?.contains("link") == true }, "\(lines)")
    #expect(!result.stderrText.contains("Warning:"), "\(result)")
  }
}
