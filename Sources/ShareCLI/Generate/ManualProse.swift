/// The man page's prose: the regions of the repository's Markdown marked for it,
///
///     <!-- man: RECEIVE MODES -->
///     …Markdown…
///     <!-- /man -->
///
/// embedded at build time (the EmbedDocuments plugin), so the README stays the one place the
/// prose is written. Regions with the same title form one section, in the order of the
/// documents (README.md first) and of the regions in each.
struct ManualProse: Sendable {
  struct Section: Sendable, Equatable {
    var title: String
    var markdown: String
  }

  /// In the order their first region appears.
  var sections: [Section]

  /// The README's prose, as embedded in this build.
  static var embedded: ManualProse {
    let names = EmbeddedDocuments.files.keys.sorted { ($0 == "README.md" ? 0 : 1, $0) < ($1 == "README.md" ? 0 : 1, $1) }
    return ManualProse(documents: names.map { ($0, EmbeddedDocuments.files[$0] ?? "") })
  }

  init(documents: [(name: String, text: String)]) {
    sections = []
    for (_, text) in documents {
      for (title, markdown) in Self.regions(in: text) {
        if let index = sections.firstIndex(where: { $0.title == title }) {
          sections[index].markdown += "\n\n" + markdown
        } else {
          sections.append(Section(title: title, markdown: markdown))
        }
      }
    }
  }

  func markdown(for title: String) -> String? { sections.first { $0.title == title }?.markdown }

  static let opening = "<!-- man: "
  static let closing = "<!-- /man -->"

  /// The marked regions of one document, in order. A region left open runs to the end.
  static func regions(in text: String) -> [(title: String, markdown: String)] {
    var regions: [(title: String, markdown: String)] = []
    var current: (title: String, lines: [String])? = nil
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      let trimmed = line.trimmingWhitespace
      if trimmed.hasPrefix(opening), trimmed.hasSuffix("-->") {
        if let open = current { regions.append((open.title, open.lines.joined(separator: "\n"))) }
        current = (String(trimmed.dropFirst(opening.count).dropLast(3)).trimmingWhitespace, [])
      } else if trimmed == closing {
        if let open = current { regions.append((open.title, open.lines.joined(separator: "\n"))) }
        current = nil
      } else {
        current?.lines.append(line)
      }
    }
    if let open = current { regions.append((open.title, open.lines.joined(separator: "\n"))) }
    return regions
  }
}

extension String {
  /// Without spaces and tabs at either end.
  var trimmingWhitespace: String {
    let characters = Substring(self).drop { $0 == " " || $0 == "\t" }
    return String(characters.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
