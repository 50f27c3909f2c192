import Foundation
import Testing

@testable import ShareCLI

/// `share __complete SOURCE`, which the completion scripts call at Tab time: what each source
/// lists from a home, what it leaves out, and that it never fails or writes. Nearby peers (Avahi)
/// are in EndToEndTests.
@Suite struct CompleteCommandTests {
  static let id = String(repeating: "3f2a9c01", count: 8)

  @Test func contactsAreOfferedByNameForTrustRemoveAndForTo() throws {
    let home = ScratchHome()
    defer { home.remove() }
    #expect(share(["trust", "add", Self.id, "--name", "my laptop"], environment: home.environment).code == .success)
    let contacts = share(["__complete", "contacts"], environment: home.environment)
    #expect(contacts.code == .success && contacts.outLines == ["my laptop"] && contacts.err.isEmpty, "\(contacts)")
    let peers = share(["__complete", "peers"], environment: home.environment)
    #expect(peers.code == .success && peers.outLines.contains("my laptop") && peers.err.isEmpty, "\(peers)")
  }

  @Test func namesSentToBeforeAreOfferedForTo() throws {
    let home = ScratchHome()
    defer { home.remove() }
    let known = """
      {"peers":[{"name":"lab-b","id":"\(Self.id)","first_seen":"2025-01-01T00:00:00Z","last_seen":"2025-01-01T00:00:00Z"}]}
      """
    try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
    try Data(known.utf8).write(to: home.url.appendingPathComponent("known_peers.json"))
    let peers = share(["__complete", "peers"], environment: home.environment)
    #expect(peers.outLines.contains("lab-b"), "\(peers)")
  }

  /// A name with a control character, an escape sequence or a backslash would reach the
  /// terminal, or not be the peer's name once escaped: it is not offered at all.
  @Test func aNameThatCannotBePrintedAsItIsIsLeftOut() throws {
    let home = ScratchHome()
    defer { home.remove() }
    // 'share trust add' refuses control characters (review 13): a contacts file written by
    // another version, or by hand, may still hold them.
    let names = ["evil\u{1b}]0;owned\u{7}", "two\nlines", #"back\slash"#, "fine"]
    let peers = names.enumerated().map { index, name in
      ["id": String(repeating: String(index + 1), count: 64), "name": name, "ask": false, "added_at": "2025-01-01T00:00:00Z"]
    }
    try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
    try JSONSerialization.data(withJSONObject: ["peers": peers]).write(to: home.url.appendingPathComponent("trust.json"))
    let contacts = share(["__complete", "contacts"], environment: home.environment)
    #expect(contacts.code == .success && contacts.outLines == ["fine"], "\(contacts)")
  }

  @Test func theInboxIsOfferedAndAHomeWithoutOneGetsNoFolders() throws {
    let home = ScratchHome()
    defer { home.remove() }
    home.remove()
    let empty = share(["__complete", "inbox"], environment: home.environment)
    #expect(empty.code == .success && empty.out.isEmpty, "\(empty)")
    #expect(!FileManager.default.fileExists(atPath: home.url.path), "Tab made the home")
    let inbox = home.url.appendingPathComponent("Documents/Inbox")
    try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
    try Data("hi".utf8).write(to: inbox.appendingPathComponent("notes.txt"))
    let listed = share(["__complete", "inbox"], environment: home.environment)
    #expect(listed.outLines == ["notes.txt"], "\(listed)")
  }

  @Test func withoutADaemonThereAreNoAsksAndNoError() {
    let home = ScratchHome()
    defer { home.remove() }
    let asks = share(["__complete", "asks"], environment: home.environment)
    #expect(asks.code == .success && asks.out.isEmpty && asks.err.isEmpty, "\(asks)")
  }

  @Test func typesAreTheIdentifiersTheDeclarationsName() {
    let home = ScratchHome()
    defer { home.remove() }
    let types = share(["__complete", "types"], environment: home.environment)
    #expect(types.code == .success && types.outLines.contains("public.image") && types.outLines.contains("public.executable"), "\(types)")
    #expect(Set(types.outLines).count == types.outLines.count, "a word twice")
  }

  @Test func theCommandIsHiddenAndAnUnknownSourceIsAUsageError() {
    #expect(!share(["help"]).out.contains("__complete"))
    #expect(!Entrypoint.topLevelNames.contains("__complete"))
    let run = share(["__complete", "files"])
    #expect(run.code == .usage && run.errLines.first == "Error: no completions for 'files'", "\(run)")
  }
}
