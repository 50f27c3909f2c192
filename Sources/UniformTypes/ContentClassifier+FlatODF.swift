import TextEscaping

/// Flat OpenDocument (`.fodt`, `.fods`, `.fodp`, `.fodg`): one XML file whose root is
/// `office:document`. It holds a Basic library inline (`office:scripts` → `office:script` →
/// `ooo:library-embedded` → `ooo:source-code`) and binds scripts to events
/// (`script:event-listener`, e.g. on `dom:load`), which LibreOffice runs as it runs `Basic/` in a
/// zipped package (review 18: a `.fodt` whose load event called `Shell` was accepted as text).
extension ContentClassifier {
  /// The local names of the elements that carry or start macros in a flat OpenDocument file.
  /// Matched under any prefix: LibreOffice reads the namespaces, not the prefixes `office:`,
  /// `ooo:` and `script:` its own files use. `event` is OpenOffice.org 1.x's binding
  /// (`script:event` in `office:events`, review 33), as `event-listener` is OpenDocument's.
  /// `execute-macro` is Writer's "Run macro" field, and `a` a link, counted when its URL runs a
  /// script or macro (review 37: `vnd.sun.star.script:` and `macro:` links were accepted), as
  /// an image map's areas and a form's URL button are (review 46: the same URL on them was
  /// accepted; a click sends it through the same dispatcher).
  static let flatOpenDocumentMacroElements =
    [
      "script", "library-embedded", "source-code", "event-listener", "event", "execute-macro",
    ] + clickedElements

  /// Elements a click on which opens their URL.
  static let clickedElements = ["a", "area-rectangle", "area-circle", "area-polygon", "button"]

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
    return openDocumentMacroElement(in: head, bindings: PrefixBindings(reading: head))
  }

  /// Whether `bytes` hold what a macro element `openDocumentMacroElement` finds needs: one of
  /// the local names after a `<` or a `:`, and then the name's end (`>`, `/`, a blank, a `:`, a `<`,
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
        if next >= 0x80 || (0x09...0x0D).contains(next) || [0x20, 0x3E, 0x2F, 0x3A, 0x3C].contains(next) { return true }
        from = found + 1
      }
      return false
    }
  }

  /// Each macro element's local name after a `<` and after a `:`.
  private static let flatOpenDocumentMacroElementNeedles = flatOpenDocumentMacroElements.flatMap { local in
    ["<", ":"].map { Array(($0 + local).utf8) }
  }

  /// The first element in OpenDocument XML `bytes` whose local name carries or starts macros
  /// (`flatOpenDocumentMacroElements`), as its qualified name, escaped; nil when none. The one
  /// rule for a flat file and for a zipped package's XML parts (review 28: an event listener in
  /// an odt's `content.xml` was accepted, the same listener in a `.fodt` refused). `bindings`:
  /// what the XML read so far binds its prefixes to. Over bytes (review 33: a part full of
  /// click actions read as Characters cost 0.4 s of CPU per MiB, 100 s for a 1 MB odp): a
  /// name ends where a String's would, at `>`, `/` or a blank, Unicode's included.
  static func openDocumentMacroElement(in bytes: UnsafeRawBufferPointer, bindings: PrefixBindings) -> String? {
    var from = 0
    while let open = ByteSearch.firstIndex(of: [UInt8(ascii: "<")], in: bytes, from: from) {
      let start = open + 1
      from = start
      var end = start
      // A name holds no `<`: stopping there too keeps the search linear (review 35: one `<` in
      // every 14 bytes and no blank after any ran each name to the window's end, 45 s of CPU
      // for a 20 KB odt).
      while end < bytes.count, bytes[end] != UInt8(ascii: "<"), !endsName(bytes, at: end) { end += 1 }
      let name = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
      guard let first = name.first, first != UInt8(ascii: "?"), first != UInt8(ascii: "!") else { continue }
      let colon = name.firstIndex(of: UInt8(ascii: ":"))
      let local = colon.map { UnsafeRawBufferPointer(rebasing: name[($0 + 1)...]) } ?? name
      guard let element = macroElementNames.first(where: { $0.elementsEqual(local) }) else { continue }
      // An empty script container holds no code (review 33: OpenOffice.org 1.x's `<office:script/>`).
      if element == scriptName || element == libraryEmbeddedName,
        isEmptyScriptContainer(UnsafeRawBufferPointer(rebasing: bytes[end...]), name: name, local: element)
      {
        continue
      }
      // An Impress click action (next slide, a sound) is an event listener of its own kind, in
      // everyday presentations (an `event` in OpenOffice.org 1.x); only one that runs something
      // (a program, a script) counts.
      if element == eventListenerName || element == eventName, let colon,
        bindings.isPresentation(String(decoding: UnsafeRawBufferPointer(rebasing: name[..<colon]), as: UTF8.self))
      {
        if !clickActionRuns(UnsafeRawBufferPointer(rebasing: bytes[start..<tagEnd(bytes, from: end)])) { continue }
      }
      // A link counts only when a click on it runs a script or macro, as a click action does.
      if clickedNames.contains(element), !clickActionRuns(UnsafeRawBufferPointer(rebasing: bytes[start..<tagEnd(bytes, from: end)])) {
        continue
      }
      return Escaping.escaped(String(decoding: name, as: UTF8.self), maximumLength: 60)
    }
    return nil
  }

  /// Where the tag whose name ends at `from` ends: its first `>` outside a quoted value, as a
  /// parser reads it (a `>` in a value once hid the attributes after it), or the bytes' end.
  static func tagEnd(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int {
    var quote: UInt8? = nil
    for index in from..<bytes.count {
      let byte = bytes[index]
      if let open = quote {
        if byte == open { quote = nil }
      } else if byte == 0x22 || byte == 0x27 {
        quote = byte
      } else if byte == UInt8(ascii: ">") {
        return index
      }
    }
    return bytes.count
  }

  private static let macroElementNames = flatOpenDocumentMacroElements.map { Array($0.utf8) }
  private static let eventListenerName = Array("event-listener".utf8)
  private static let eventName = Array("event".utf8)
  private static let clickedNames = clickedElements.map { Array($0.utf8) }

  /// Whether a name ends at `index` as `Character`s read it: `>`, `/`, an ASCII blank, or a
  /// character past ASCII that is a blank (U+0085, U+00A0, U+2028…).
  private static func endsName(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
    let byte = bytes[index]
    if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == 0x20 || (0x09...0x0D).contains(byte) { return true }
    guard byte >= 0xC0 else { return false }
    let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
    guard index + length <= bytes.count else { return false }
    let scalar = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)]), as: UTF8.self).unicodeScalars.first
    return scalar.map { $0.properties.isWhitespace } ?? false
  }

  /// Whether an Impress click action (its tag from the element's name on) runs something: a
  /// program or an OLE verb (`presentation:action`), a script or macro by URL, or a Basic macro
  /// by name (`script:macro-name`, `script:language`). Attribute values as an XML parser reads
  /// them, references replaced (review 33: `&#101;xecute` was taken for a harmless action).
  static func clickActionRuns(_ tag: UnsafeRawBufferPointer) -> Bool {
    // Bytes first: an everyday click action (`next-page`) holds none of the words any of these
    // needs, nor a reference that could spell one, and a part may hold millions of them.
    guard clickActionWords.contains(where: { ByteSearch.containsIgnoringCase($0, in: tag) }) else { return false }
    var runs = false
    forEachAttribute(in: String(decoding: tag, as: UTF8.self).lowercased()[...]) { name, value in
      let local = name.split(separator: ":").last ?? ""
      let namesMacro = local == "macro-name" || local == "language"
      let startsProgram = value == "execute" || value == "verb"
      let callsScript = ByteSearch.contains("vnd.sun.star.script:", in: value) || ByteSearch.contains("macro:", in: value)
      runs = runs || namesMacro || startsProgram || callsScript
    }
    return runs
  }

  /// What `clickActionRuns` needs its tag to hold, in any case, to find anything.
  private static let clickActionWords = ["&", "execute", "verb", "macro", "language", "vnd.sun.star.script"]

  /// The OpenDocument presentation namespace, Impress's click actions' own, and OpenOffice.org
  /// 1.x's before it.
  static let presentationNamespaces: Set<String> = [
    "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0", "http://openoffice.org/2000/presentation",
  ]

  /// The prefixes XML binds to the presentation namespace, and those it binds to any other
  /// (`xmlns:p="…"`), wherever in the bytes read. A click action is one only by its namespace
  /// (review 33: `presentation:` bound to the script namespace made a `dom:load` Basic binding a
  /// click action). A prefix ever bound to another namespace is no presentation prefix, nor is
  /// one never bound: an exemption given only when certain.
  struct PrefixBindings {
    private var presentation: Set<String> = []
    private var other: Set<String> = []

    init() {}

    init(reading bytes: UnsafeRawBufferPointer) { read(bytes) }

    /// Whether `prefix` names the presentation namespace in all the XML read.
    func isPresentation(_ prefix: String) -> Bool {
      presentation.contains(prefix) && !other.contains(prefix)
    }

    /// Takes in the declarations in `bytes`. Over bytes: it runs on every window of a part.
    mutating func read(_ bytes: UnsafeRawBufferPointer) {
      let marker = Array("xmlns:".utf8)
      var from = 0
      while let found = ByteSearch.firstIndex(of: marker, in: bytes, from: from) {
        var index = found + marker.count
        from = index
        func skipBlanks() { while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 } }
        let nameStart = index
        // A prefix holds no `:` or `<` (each `xmlns:` in a run of them would scan to the end).
        while index < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, 0x3D, 0x3E, 0x2F, 0x3A, 0x3C].contains(bytes[index]) { index += 1 }
        let prefix = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[nameStart..<index]), as: UTF8.self)
        skipBlanks()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { continue }
        index += 1
        skipBlanks()
        guard index < bytes.count, bytes[index] == 0x22 || bytes[index] == 0x27,
          let end = UnsafeRawBufferPointer(rebasing: bytes[(index + 1)...]).firstIndex(of: bytes[index])
        else { continue }
        let value = Array(UnsafeRawBufferPointer(rebasing: bytes[(index + 1)..<(index + 1 + end)]))
        let namespace = String(decoding: ContentClassifier.xmlBytes(value), as: UTF8.self)
        if ContentClassifier.presentationNamespaces.contains(namespace) { presentation.insert(prefix) } else { other.insert(prefix) }
      }
    }
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
