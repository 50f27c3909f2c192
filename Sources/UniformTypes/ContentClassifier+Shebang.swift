/// A `#!` line before binary data: a Python zipapp (`#!/usr/bin/env python3` and a ZIP) or a
/// self-extracting shell archive runs when made executable, whatever follows the line
/// (review 18: a zipapp named `.zip` was accepted as data; libmagic calls its bytes
/// `application/octet-stream`).
extension ContentClassifier {
  /// The script type of content that is not text but starts (after a UTF-8 BOM) with `#!` and an
  /// absolute interpreter path, as the kernel runs it. A word there instead of a path is a
  /// signature (`#!AMR` audio, `#!SILK`), left to libmagic.
  static func binaryShebangType(_ head: UnsafeRawBufferPointer) -> (TypeIdentifier, String)? {
    let offset = startsWith(head, [0xEF, 0xBB, 0xBF]) ? 3 : 0
    guard head.count > offset + 2, head[offset] == UInt8(ascii: "#"), head[offset + 1] == UInt8(ascii: "!") else {
      return nil
    }
    var start = offset + 2
    while start < head.count, head[start] == UInt8(ascii: " ") || head[start] == UInt8(ascii: "\t") { start += 1 }
    guard start < head.count, head[start] == UInt8(ascii: "/") else { return nil }
    return shebangType(head)
  }
}

/// libmagic names some scripts from the words in text (Magdir `javascript`, `python`, `ruby`,
/// `perl`: `require(`, `import`, `def`, `class … <`), not from a `#!` line: Node's API docs and
/// READMEs that show code are "JavaScript source" or a "Python script" to it (review 20: 67 of
/// 626 Markdown files on one machine were refused as scripts).
extension ContentClassifier {
  /// The script kinds libmagic also names from words alone. Its other script answers rest on a
  /// signature at the start of the file (`<?php`, `@echo off`, `REGEDIT4`, an INF's `[Version]`)
  /// and stay what they are.
  static let keywordGuessedScripts: [TypeIdentifier] = [
    "com.netscape.javascript-source", .pythonScript, "public.ruby-script", "public.perl-script",
  ]

  /// Whether `type`, libmagic's answer for text, is a script guessed from words: one of
  /// `keywordGuessedScripts`, for text without a `#!` line (which is proof, whatever the name).
  static func isKeywordGuess(_ type: TypeIdentifier, head: UnsafeRawBufferPointer, registry: TypeRegistry) -> Bool {
    shebangType(head) == nil && keywordGuessedScripts.contains { registry.conforms(type, to: $0) }
  }
}
