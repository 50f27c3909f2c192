import Testing

@testable import UniformTypes

/// Review 20, finding 2: libmagic names JavaScript, Python, Ruby and Perl from the words in text
/// (`require(`, `import`, `def`), so a README that shows code, or a TypeScript declaration file,
/// was refused as a script. A guess is not proof: a name of a harmless kind of text outweighs it,
/// while a `#!` line still makes any text a script.
@Suite("libmagic's keyword guesses of a script do not outweigh a text name")
struct KeywordGuessTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  static let javaScript = SampleBytes.utf8("# Notes\n\n```js\nconst fs = require(\"fs\");\n```\n")
  static let python = SampleBytes.utf8("# Usage\n\n```python\nimport os\nfrom x import y\n\ndef main():\n    pass\n```\n")
  static let ruby = SampleBytes.utf8("# Usage\n\n    require \"rack/test\"\n\n    class HomepageTest < Test::Unit::TestCase\n    end\n")
  static let declarations = SampleBytes.utf8(
    "/// <reference types=\"node\"/>\nimport { Minimatch } from 'minimatch';\nexport type MatchSet = Minimatch['set'];\n")

  func judge(_ name: String, _ head: [UInt8], kind: ItemKind = .file) throws -> Verdict {
    try Self.policy.get().judge(
      name: name, kind: kind, head: head, totalSize: Int64(head.count), sniffer: try Self.sniffer.get())
  }

  /// What libmagic and share's classifier make of `head`: the precondition of every test here.
  func classified(_ head: [UInt8]) throws -> ContentType {
    let magic = try Self.sniffer.get().sniff(head)
    return ContentClassifier.classify(head: head, truncated: false, magic: magic, registry: Self.registry)
  }

  @Test("libmagic takes these texts for scripts from their words, and share marks that a guess")
  func theseAreKeywordGuesses() throws {
    for (head, type) in [
      (Self.javaScript, "com.netscape.javascript-source"), (Self.python, "public.python-script"),
      (Self.ruby, "public.ruby-script"), (Self.declarations, "com.netscape.javascript-source"),
    ] as [([UInt8], TypeIdentifier)] {
      let content = try classified(head)
      #expect(content.type == type && content.isKeywordGuess, "\(content)")
    }
    #expect(try !classified(SampleBytes.utf8("#!/usr/bin/env node\nconst fs = require(\"fs\");\n")).isKeywordGuess)
  }

  @Test("Markdown and text that show code are accepted as what their names say")
  func markdownWithCodeIsAccepted() throws {
    for head in [Self.javaScript, Self.python, Self.ruby] {
      for (name, type) in [
        ("README.md", "net.daringfireball.markdown"), ("readme.markdown", "net.daringfireball.markdown"),
        ("notes.txt", "public.plain-text"),
      ] as [(String, TypeIdentifier)] {
        let verdict = try judge(name, head)
        #expect(verdict.accepted && verdict.type == type && verdict.decidedBy == "Text", "\(name): \(verdict.reason)")
      }
    }
  }

  @Test("TypeScript that begins with import is TypeScript source, not JavaScript")
  func typeScriptDeclarationsAreAccepted() throws {
    for name in ["glob.d.ts", "bin.d.mts", "index.ts"] {
      let verdict = try judge(name, Self.declarations)
      #expect(
        verdict.accepted && verdict.type == "com.microsoft.typescript" && verdict.decidedBy == "Text",
        "\(name): \(verdict.reason)")
    }
  }

  /// Review 28: every `.vue` was refused as JavaScript, libmagic's guess from its words.
  @Test("Vue and Svelte components that begin with import are components, not JavaScript")
  func webComponentsAreAccepted() throws {
    let component = SampleBytes.utf8(
      "<script>\nimport { ref } from 'vue'\nexport default { setup() { return { count: ref(0) } } }\n</script>\n<template><p>{{ count }}</p></template>\n"
    )
    let components: [(String, TypeIdentifier)] = [("App.vue", "org.vuejs.single-file-component"), ("Card.svelte", "dev.svelte.component")]
    for (name, type) in components {
      let verdict = try judge(name, component)
      #expect(verdict.accepted && verdict.type == type, "\(name): \(verdict.reason)")
    }
    let script = try judge("App.vue", SampleBytes.utf8("#!/usr/bin/env node\nrequire('child_process')\n"))
    #expect(!script.accepted, "a #! line stays proof of a script: \(script.reason)")
  }

  @Test("a text snippet of the same words is accepted as a .txt of them is")
  func snippetsAreAccepted() throws {
    let verdict = try judge("snippet", Self.javaScript, kind: .text)
    #expect(verdict.accepted, "\(verdict.reason)")
  }

  @Test("a #! line stays proof of a script under a text name, in a file and in a snippet")
  func shebangStaysProof() throws {
    let node = SampleBytes.utf8("#!/usr/bin/env node\nconst fs = require(\"fs\");\n")
    let shell = SampleBytes.utf8("#!/bin/sh\necho hello\n")
    for (name, head) in [("notes.txt", node), ("README.md", node), ("notes.txt", shell), ("glob.d.ts", shell)] {
      let verdict = try judge(name, head)
      #expect(!verdict.accepted && verdict.decidedBy == "public.script", "\(name): \(verdict.reason)")
    }
    #expect(try !judge("snippet", node, kind: .text).accepted)
  }

  @Test("a script's name is a script whatever the words, and a name that says nothing leaves the guess standing")
  func scriptNamesAndNamelessFilesStayRefused() throws {
    for name in ["tool.js", "tool.py", "tool.rb", "tool.sh", "notes"] {
      let verdict = try judge(name, Self.javaScript)
      #expect(!verdict.accepted && verdict.decidedBy == "public.script", "\(name): \(verdict.reason)")
    }
  }

  @Test("a script accepted by the declarations is still typed by its own name, not by libmagic's guess")
  func guessIsNotFirmUnderAScriptName() throws {
    let policy = try TypePolicy(registry: Self.registry, declarations: .builtinDefault)
    let guess = try classified(Self.javaScript)
    let agreed = policy.agreement(name: .pythonScript, content: guess)
    #expect(agreed?.0 == .pythonScript && agreed?.1 == .textFamily, "\(String(describing: agreed))")
  }
}
