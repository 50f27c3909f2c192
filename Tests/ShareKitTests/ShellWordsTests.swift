import Foundation
import Testing

@testable import ShareKit

/// Review 20: the resume line for `x'$(touch r)'y.bin` ran `touch` when pasted.
@Suite struct ShellWordsTests {
  static let words = [
    "plain.txt", "", "a b", "-x", "x'$(touch r)'y.bin", "it's", "`id`", "$HOME", "a\\b", "a\\'b", "line\nbreak",
    "esc\u{1B}[31m", "bidi\u{202E}txt.exe", "zwj👨\u{200D}👩", "café", "tab\there", "*?[]", "~", "!event",
    String(repeating: "long/", count: 80) + "name", "\u{7F}\u{85}", "x\u{1}\u{E0001}",
  ]

  /// What `shell` reads `line` back as: its words, NUL-separated by printf.
  func readBack(_ line: String, shell: String) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: shell)
    process.arguments = ["-c", "printf '%s\\0' " + line]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    var words = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    words.removeLast()
    return words
  }

  @Test func everyWordIsReadBackAsItIsAndShownAsPrintableText() throws {
    let line = ShellWords.line(Self.words)
    #expect(try readBack(line, shell: "/bin/bash") == Self.words)
    #expect(!line.unicodeScalars.contains(where: Escaping.isHidden), "\(line)")
    #expect(ShellWords.quoted("plain.txt") == "plain.txt")
    #expect(ShellWords.quoted("x'$(touch r)'y.bin") == #"'x'\''$(touch r)'\''y.bin'"#)
    // Words whose characters all show as themselves are POSIX single quotes: dash reads them too.
    let visible = Self.words.filter { !$0.unicodeScalars.contains(where: Escaping.isHidden) }
    #expect(try readBack(ShellWords.line(visible), shell: "/bin/sh") == visible)
  }

  @Test func aSuggestedCommandIsQuotedAsAWholeOnlyWhenNoWordNeedsQuoting() {
    #expect(ShellWords.suggestion(["share", "trust", "forget", "bob"]) == "'share trust forget bob'")
    #expect(ShellWords.suggestion(["share", "trust", "forget", "k $(touch r)"]) == "share trust forget 'k $(touch r)'")
    let refusal = ShareError.identityMismatch(expected: "aa", actual: "bb", peer: PeerText("k $(touch r)")).description
    #expect(refusal.contains("run share trust forget 'k $(touch r)', or share trust remove 'k $(touch r)' and pair"), "\(refusal)")
  }
}
