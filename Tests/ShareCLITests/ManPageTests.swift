import Foundation
import Testing

@testable import ShareCLI

/// share(1) is made from the declarations and the README's marked prose: every command, option
/// and exit code is in it, and its prose is the README's as it is now. `man --warnings` reads it
/// in EndToEndTests.
@Suite struct ManPageTests {
  static let page = share(["man"]).out
  /// The repository, from this file's path (Tests/ShareCLITests/…).
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func everyCommandOptionAndExitCodeIsInThePage() {
    let run = share(["man"])
    #expect(run.code == .success && run.err.isEmpty, "\(run)")
    #expect(run.out.hasPrefix(#".\" share(1)."#))
    #expect(run.out.contains("\n.SH NAME\nshare \\- \(Roff.escape(CommandLineModel.abstract))\n"))
    for command in CommandLineModel.commands {
      #expect(run.out.contains(".SS \"share \(command.name)\"\n"), "no section for share \(command.name)")
      for usage in command.usage { #expect(run.out.contains(ManPage.usageLine(usage)), "\(command.name): no usage '\(usage)'") }
      for option in command.options + CommandLineModel.globalOptions + CommandLineModel.topLevelOptions {
        var tag = option.names.reversed().map { Roff.bold(Roff.escape($0, literal: true)) }.joined(separator: ", ")
        if let placeholder = option.placeholder { tag += " " + Roff.italic(Roff.escape(placeholder)) }
        #expect(run.out.contains(".TP\n\(tag)\n\(Roff.escape(option.help))"), "\(command.name): no \(option.long)")
      }
    }
    for code in ExitCode.allCases { #expect(run.out.contains(".TP\n\\fB\(code.rawValue)\\fR\n"), "exit code \(code.rawValue)") }
    #expect(!run.out.contains("__complete"), "the hidden command is in the page")
  }

  @Test func everyConceptSectionHasTheREADMEsProse() throws {
    let titles = ["DESCRIPTION"] + ManPage.proseBeforeExitStatus + ManPage.proseAfterExitStatus
    let prose = ManualProse.embedded
    for title in titles {
      let markdown = try #require(prose.markdown(for: title), "README.md has no '<!-- man: \(title) -->' region")
      #expect(markdown.split(separator: "\n").count > 1, "\(title) is empty")
      let heading = title.contains(" ") ? ".SH \"\(title)\"\n" : ".SH \(title)\n"
      let body = try #require(Self.page.components(separatedBy: heading).dropFirst().first, "no \(title) section")
      #expect(!body.hasPrefix(".SH"), "\(title) is empty in the page")
    }
    let sentence = "the device ID each peer name had when this home first sent"
    #expect(Self.page.contains(sentence), "FILES does not say what the README says")
  }

  /// The embedded prose is the README as it is in the repository: a build that embedded an older
  /// README (the plugin not rerun) fails here.
  @Test func theEmbeddedProseIsTheRepositorysMarkdownAsItIsNow() throws {
    let names = EmbeddedDocuments.files.keys.sorted()
    #expect(names == ["Inbox/README.md", "README.md"])
    for name in names {
      let now = try String(contentsOf: Self.repository.appendingPathComponent(name), encoding: .utf8)
      #expect(EmbeddedDocuments.files[name] == now, "\(name) changed since it was embedded")
      let lines = now.split(separator: "\n").map { String($0).trimmingWhitespace }
      let openings = lines.filter { $0.hasPrefix(ManualProse.opening) && $0.hasSuffix("-->") }.count
      let closings = lines.filter { $0 == ManualProse.closing }.count
      #expect(openings == closings && openings > 0, "\(name): \(openings) regions opened, \(closings) closed")
      #expect(ManualProse.regions(in: now).count == openings)
    }
  }

  /// The documents the page names by their installed names are installed under those names.
  @Test func theDocumentsThePageNamesAreInstalledUnderThoseNames() throws {
    let package = try String(contentsOf: Self.repository.appendingPathComponent("scripts/package.sh"), encoding: .utf8)
    let install = try String(contentsOf: Self.repository.appendingPathComponent("scripts/install.sh"), encoding: .utf8)
    for (source, installed) in ManPage.installedDocuments {
      #expect(package.contains("put \(source) \"$doc/\(installed)\""), "package.sh: \(source) as \(installed)")
      #expect(install.contains("file\t\(source)\t$doc/\(installed)\t"), "install.sh: \(source) as \(installed)")
      #expect(Self.page.contains(Roff.bold(Roff.escape(installed))))
    }
  }

  /// The page has none of the README's other sections: a link to one names README.md.
  @Test func aLinkToAREADMESectionNamesTheREADME() {
    let lines = ManPage.prose("How these hold: [Security](#security); rules: [TYPES](Inbox/TYPES.md).")
    #expect(lines == [".PP", "How these hold: Security in \\fBREADME.md\\fR; rules: \\fBTYPES.md\\fR."])
  }

  @Test func sourceDateEpochDatesThePage() {
    let run = share(["man"], environment: ["SOURCE_DATE_EPOCH": "1764460800"])
    #expect(run.out.contains("\n.TH SHARE 1 \"2025-11-30\" \"share \(shareVersion)\" \"User Commands\"\n"), "\(run)")
    #expect(Self.page.contains("\n.TH SHARE 1 \"\" \"share \(shareVersion)\""))
  }
}

/// The roff and Markdown pieces the page is made of.
@Suite struct RoffTests {
  @Test func dashesThatStartAWordAreMinusesAndOthersHyphens() {
    #expect(Roff.escape("--to PEER, -q, read-only, 2-core") == #"\-\-to PEER, \-q, read-only, 2-core"#)
    #expect(Roff.escape("read-only", literal: true) == #"read\-only"#)
  }

  @Test func backslashesRequestsAndNonASCIIAreEscaped() {
    #expect(Roff.escape(#"a\b"#) == #"a\eb"#)
    #expect(Roff.escape("Inbox — “x” →") == #"Inbox \[u2014] \[u201C]x\[u201D] \[u2192]"#)
    #expect(Roff.textLine(".hidden") == #"\&.hidden"# && Roff.textLine("'quoted") == #"\&'quoted"#)
    #expect(Roff.textLine("plain .dot") == "plain .dot")
    #expect(Roff.quoted(#"say "hi""#) == #""say ""hi""""#)
  }

  @Test func markdownInlineMarksBecomeFonts() {
    #expect(Roff.inline("run `share --to x` *now* or **never**") == #"run \fBshare \-\-to x\fR \fInow\fR or \fBnever\fR"#)
    #expect(Roff.inline("a * b and ~/Downloads/*") == "a * b and ~/Downloads/*")
    let link = Roff.inline("see [the rules](Inbox/TYPES.md).") { label, target in label + "<" + target + ">" }
    #expect(link == "see the rules<Inbox/TYPES.md>.")
  }

  @Test func markdownBlocksBecomeParagraphsExamplesAndLists() {
    let markdown = """
      First line
      second line.

      ```sh
      .hidden --flag
      ```
      - `FOO`, `BAR`: what they do:
        still the same item.
      - a bullet
      <!-- a comment -->
      """
    #expect(
      MarkdownRoff.render(markdown) == [
        ".PP", "First line second line.",
        ".PP", ".RS 4", ".nf", #"\&.hidden \-\-flag"#, ".fi", ".RE",
        ".TP", #"\fBFOO\fR, \fBBAR\fR"#, "what they do: still the same item.",
        #".IP \(bu 2"#, "a bullet",
      ])
  }

  @Test func regionsAreTakenInOrderAndJoinedByTitle() {
    let readme = "intro\n<!-- man: A -->\none\n<!-- /man -->\nskip\n<!-- man: B -->\ntwo\n<!-- /man -->\n<!-- man: A -->\nthree"
    let prose = ManualProse(documents: [("README.md", readme), ("Other.md", "<!-- man: B -->\nfour\n<!-- /man -->")])
    #expect(prose.sections == [.init(title: "A", markdown: "one\n\nthree"), .init(title: "B", markdown: "two\n\nfour")])
  }
}
