/// The Markdown the README's marked regions use, as man(7) requests: paragraphs, fenced code
/// blocks, and lists (an item that starts with `code` and a colon is a tagged paragraph, as a
/// man page lists files and variables; any other item a bullet). Headings, tables and HTML
/// comments are left out: a man page has its own section headings.
enum MarkdownRoff {
  static func render(_ markdown: String, link: Roff.LinkStyle = { label, _ in label }) -> [String] {
    var output: [String] = []
    var lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
    while let line = lines.first {
      let trimmed = line.trimmingWhitespace
      if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("<!--") || trimmed.hasPrefix("|") {
        lines = lines.dropFirst()
      } else if trimmed.hasPrefix("```") {
        output += codeBlock(&lines)
      } else if let item = listItem(&lines) {
        output += self.item(item, link: link)
      } else {
        var paragraph: [String] = []
        while let next = lines.first, !startsBlock(next) {
          paragraph.append(next.trimmingWhitespace)
          lines = lines.dropFirst()
        }
        output += [".PP", Roff.textLine(Roff.inline(paragraph.joined(separator: " "), link: link))]
      }
    }
    return output
  }

  private static func startsBlock(_ line: String) -> Bool {
    let trimmed = line.trimmingWhitespace
    return trimmed.isEmpty || trimmed.hasPrefix("```") || trimmed.hasPrefix("- ") || trimmed.hasPrefix("* ")
      || trimmed.hasPrefix("#") || trimmed.hasPrefix("<!--") || trimmed.hasPrefix("|")
  }

  /// A fenced block, as it is (no fill), indented.
  private static func codeBlock(_ lines: inout ArraySlice<String>) -> [String] {
    var output = [".PP", ".RS 4", ".nf"]
    lines = lines.dropFirst()
    while let line = lines.first {
      lines = lines.dropFirst()
      if line.trimmingWhitespace.hasPrefix("```") { break }
      output.append(Roff.textLine(Roff.escape(line, literal: true)))
    }
    return output + [".fi", ".RE"]
  }

  /// A list item's text, its continuation lines (indented) joined to it.
  private static func listItem(_ lines: inout ArraySlice<String>) -> String? {
    guard let first = lines.first?.trimmingWhitespace, first.hasPrefix("- ") || first.hasPrefix("* ") else { return nil }
    var text = String(first.dropFirst(2))
    lines = lines.dropFirst()
    while let next = lines.first, next.hasPrefix(" "), !startsBlock(next) {
      text += " " + next.trimmingWhitespace
      lines = lines.dropFirst()
    }
    return text
  }

  /// `code`...: rest → a tagged paragraph; anything else → a bullet.
  private static func item(_ text: String, link: Roff.LinkStyle) -> [String] {
    if text.hasPrefix("`"), let colon = tagEnd(in: text) {
      let tag = String(text[..<colon])
      let body = String(text[text.index(colon, offsetBy: 2)...])
      return [".TP", Roff.textLine(Roff.inline(tag, link: link)), Roff.textLine(Roff.inline(body, link: link))]
    }
    return [#".IP \(bu 2"#, Roff.textLine(Roff.inline(text, link: link))]
  }

  /// Where the first `: ` outside a code span is.
  private static func tagEnd(in text: String) -> String.Index? {
    var inCode = false
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      if character == "`" { inCode.toggle() }
      let next = text.index(after: index)
      if !inCode, character == ":", next < text.endIndex, text[next] == " " { return index }
      index = next
    }
    return nil
  }
}
