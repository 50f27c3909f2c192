import TextEscaping

/// Flat OpenDocument (`.fodt`, `.fods`, `.fodp`, `.fodg`): one XML file whose root is
/// `office:document`. It holds a Basic library inline (`office:scripts` → `office:script` →
/// `ooo:library-embedded` → `ooo:source-code`) and binds scripts to events
/// (`script:event-listener`, e.g. on `dom:load`), which LibreOffice runs as it runs `Basic/` in a
/// zipped package (review 18: a `.fodt` whose load event called `Shell` was accepted as text).
extension ContentClassifier {
  /// The local names of the elements that carry or start macros in a flat OpenDocument file.
  /// Matched under any prefix: LibreOffice reads the namespaces, not the prefixes `office:`,
  /// `ooo:` and `script:` its own files use.
  static let flatOpenDocumentMacroElements = ["script", "library-embedded", "source-code", "event-listener"]

  /// The OpenDocument office namespace, which the root element of a flat file binds.
  static let officeNamespace = Array("urn:oasis:names:tc:opendocument:xmlns:office:1.0".utf8)

  /// The first macro element of a flat OpenDocument file in `head` (its qualified name), or nil
  /// when the head is not one or holds none. Only the head is read: a script element past it is
  /// not seen (Inbox/TYPES.md says so).
  static func flatOpenDocumentMacros(_ head: UnsafeRawBufferPointer) -> String? {
    // Looked for in the bytes first: nearly no text holds the namespace, and a String's search
    // (by characters) over a 64 KiB head cost a tenth of the receiver's time on real files.
    guard ByteSearch.contains(officeNamespace, in: head), mayHoldOpenDocumentMacroElement(head) else { return nil }
    let text = String(decoding: head, as: UTF8.self)
    guard isFlatOpenDocument(text) else { return nil }
    return openDocumentMacroElement(in: text[...])
  }

  /// Whether `bytes` hold what a macro element `openDocumentMacroElement` finds needs: one of
  /// the local names after a `<` or a `:`, and then the name's end (`>`, `/`, a blank, a `:`,
  /// any byte past ASCII, which may be Unicode's blank) or the bytes' end. Review 28: a big flat
  /// file was read as Characters a MiB at a time, 11 s of CPU for 64 MiB; every file holds
  /// `<office:scripts`, which ends otherwise, and only bytes that pass are read as text, so no
  /// verdict changes (`WholeTextScanTests`).
  static func mayHoldOpenDocumentMacroElement(_ bytes: UnsafeRawBufferPointer) -> Bool {
    flatOpenDocumentMacroElementNeedles.contains { needle in
      var from = 0
      while let found = ByteSearch.firstIndex(of: needle, in: bytes, from: from) {
        let end = found + needle.count
        guard end < bytes.count else { return true }
        let next = bytes[end]
        if next >= 0x80 || (0x09...0x0D).contains(next) || [0x20, 0x3E, 0x2F, 0x3A].contains(next) { return true }
        from = found + 1
      }
      return false
    }
  }

  /// Each macro element's local name after a `<` and after a `:`.
  private static let flatOpenDocumentMacroElementNeedles = flatOpenDocumentMacroElements.flatMap { local in
    ["<", ":"].map { Array(($0 + local).utf8) }
  }

  /// The first element in OpenDocument XML `text` whose local name carries or starts macros
  /// (`flatOpenDocumentMacroElements`), as its qualified name, escaped; nil when none. The one
  /// rule for a flat file and for a zipped package's XML parts (review 28: an event listener in
  /// an odt's `content.xml` was accepted, the same listener in a `.fodt` refused).
  static func openDocumentMacroElement(in text: Substring) -> String? {
    var rest = text
    while let open = rest.firstIndex(of: "<") {
      rest = rest[rest.index(after: open)...]
      let name = rest.prefix { !($0 == ">" || $0 == "/" || $0.isWhitespace) }
      guard !name.isEmpty, name.first != "?", name.first != "!" else { continue }
      let local = name.split(separator: ":", maxSplits: 1).last.map(String.init) ?? ""
      guard flatOpenDocumentMacroElements.contains(local) else { continue }
      // An Impress click action (next slide, a sound) is an event listener of its own kind, in
      // everyday presentations; only one that runs something (a program, a script) counts.
      if name.hasPrefix("presentation:"), local == "event-listener" {
        let tag = rest.prefix { $0 != ">" }
        let runs = ["\"execute\"", "'execute'", "\"verb\"", "'verb'", "vnd.sun.star.script:", "macro:"]
        guard runs.contains(where: { tag.contains($0) }) else { continue }
      }
      return Escaping.escaped(String(name), maximumLength: 60)
    }
    return nil
  }

  /// Whether the root element of the XML `text` is an OpenDocument `document` (any prefix bound
  /// to the OpenDocument office namespace).
  private static func isFlatOpenDocument(_ text: String) -> Bool {
    guard text.contains(String(decoding: officeNamespace, as: UTF8.self)) else { return false }
    var rest = Substring(text)
    // Skip the XML declaration, processing instructions, comments and a DOCTYPE.
    while let open = rest.firstIndex(of: "<") {
      rest = rest[rest.index(after: open)...]
      if rest.hasPrefix("?") || rest.hasPrefix("!") {
        // A processing instruction ends at `?>` and a DOCTYPE with an internal subset at `]>`,
        // whatever `>` they hold before (review 24).
        let subset = rest.hasPrefix("!DOCTYPE") && rest.prefix { $0 != ">" }.contains("[")
        let closing = rest.hasPrefix("!--") ? "-->" : rest.hasPrefix("?") ? "?>" : subset ? "]>" : ">"
        guard let end = rest.firstRange(of: closing) else { return false }
        rest = rest[end.upperBound...]
        continue
      }
      let name = rest.prefix { !($0 == ">" || $0 == "/" || $0.isWhitespace) }
      return name == "document" || name.hasSuffix(":document")
    }
    return false
  }
}
