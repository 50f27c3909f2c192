import TextEscaping

/// Office documents written as text that carry a VBA project, which Word opens and runs as it
/// does a docm (review 20: all three were accepted, as XML or plain text, under `.xml` and `.doc`):
/// - Word 2003 XML (`<?mso-application progid="Word.Document"?>`, root `w:wordDocument`) keeps
///   its project in a `w:binData` element named `editdata.mso`;
/// - Flat OPC (root `pkg:package`, what Word writes as "Word XML Document") holds a package's
///   parts inline: a `/word/vbaProject.bin` part, a part of content type
///   `application/vnd.ms-office.vbaProject`, a macro-enabled main part or a `vbaProject`
///   relationship shows a project, as in a zipped package (`ContentClassifier+OPC.swift`);
/// - MHTML (a MIME multipart file, the ".doc that is a web page" of 2015–2017 macro malware)
///   with an ActiveMime part (`ContentClassifier+MHTML.swift`).
/// A complete item whose head is one of these forms is read whole (`wholeTextDocumentMacros`):
/// a project may come after megabytes of pages.
extension ContentClassifier {
  /// A document written as text that carries macros — a flat OpenDocument file with a script
  /// element (`flatOpenDocumentMacros`), a Word 2003 XML, Flat OPC or MHTML document with a VBA
  /// project (`officeTextMacros`) — with its type and the evidence. Each is looked for in the
  /// bytes as written, then, for a head in UTF-16 or with character references, as an XML
  /// parser reads them (review 24: `editdata&#46;mso`, a Word 2003 XML or flat ODF saved as
  /// UTF-16); that re-reading is made once for both.
  static func textDocumentMacros(_ head: UnsafeRawBufferPointer) -> (TypeIdentifier, String)? {
    let rereads = isWideText(head) || ByteSearch.contains(Array("&#".utf8), in: head)
    var read: [UInt8]? = nil
    func asRead<Found>(_ check: (UnsafeRawBufferPointer) -> Found?) -> Found? {
      if let found = check(head) { return found }
      guard rereads else { return nil }
      let bytes = read ?? xmlBytes(Array(head))
      read = bytes
      return bytes.withUnsafeBytes { check($0) }
    }
    if let element = asRead(flatOpenDocumentMacros) {
      return (.openDocumentMacros, "flat OpenDocument file with macros (\(element))")
    }
    return asRead(officeTextMacros).map { (.macroEnabled, $0) } ?? asRead(textDDESign).map { (.macroEnabled, $0) }
  }

  /// Whether `head` may be a document written as text that carries macros further on: a MIME
  /// message, Word 2003 XML (`mso-application`, `wordDocument`), Flat OPC (`xmlPackage`) or a
  /// flat OpenDocument file (its office namespace), in UTF-8 or UTF-16.
  static func isTextDocumentForm(_ head: UnsafeRawBufferPointer) -> Bool {
    if isWideText(head) { return true }
    // Not text (a photo, a program: NUL bytes near the start) is none, and costs no search; but
    // a MIME message may carry a binary part right after its headers (review 35).
    if let nul = UnsafeRawBufferPointer(rebasing: head.prefix(512)).firstIndex(of: 0) {
      let headers = UnsafeRawBufferPointer(rebasing: head[..<nul])
      return ByteSearch.containsIgnoringCase("mime-version", in: headers) || ByteSearch.containsIgnoringCase("multipart/", in: headers)
    }
    return textDocumentMarkers.contains { ByteSearch.containsIgnoringCase($0, in: head) } || mayHideTextDocumentForm(head)
  }

  static let textDocumentMarkers = [
    "mime-version", "multipart/", "mso-application", "worddocument", "xmlpackage", "opendocument", "visiodocument", "{\\rtf",
  ]

  /// `textDocumentMacros` over all of a complete item whose head is such a form: read a window
  /// at a time, each looked at after the head (which says what form the item is: its root
  /// element, the message's headers) and overlapping the one before, so nothing is cut.
  static func wholeTextDocumentMacros(_ head: UnsafeRawBufferPointer, whole: ItemBytes) -> (TypeIdentifier, String)? {
    guard whole.count > head.count, isTextDocumentForm(head) else { return nil }
    let (size, overlap) = (1 << 20, 4 << 10)
    var start = max(0, head.count - overlap) & ~1
    while start < whole.count, let window = whole.read(start..<(start + size)) {
      if let found = (Array(head) + window).withUnsafeBytes(textDocumentMacros) { return found }
      guard window.count == size else { break }
      start += size - overlap
    }
    return nil
  }

  /// `ActiveMime`, the magic of the container Office keeps a VBA project in, in base64.
  static let activeMimeBase64 = "QWN0aXZlTWltZQ"

  /// Where `head`, text, shows a VBA project of a Word 2003 XML, Flat OPC or MHTML document, in
  /// words; nil when it shows none. Text without `editdata.mso`, `xmlPackage` (Flat OPC's
  /// namespace) or ActiveMime in base64 is not looked into further.
  static func officeTextMacros(_ head: UnsafeRawBufferPointer) -> String? {
    if let sign = mhtmlMacros(head) { return sign }
    let editData = ByteSearch.containsIgnoringCase("editdata.mso", in: head)
    let flatOPC = ByteSearch.containsIgnoringCase("xmlpackage", in: head)
    // Visio 2003–2010 XML (DatadiagramML) keeps its VBA project in base64 in `VBProjectData`
    // (review 35: a .vdx with one was accepted as XML).
    let visio = ByteSearch.containsIgnoringCase("vbprojectdata", in: head)
    guard editData || flatOPC || visio else { return nil }
    let text = String(decoding: head, as: UTF8.self).lowercased()
    for element in text.split(separator: "<") {
      let name = element.prefix { !($0 == ">" || $0 == "/" || $0.isWhitespace) }
      switch name.split(separator: ":").last {
      case "bindata" where qualifiedAttributeValues("name", in: element).contains(where: isEditData):
        return "Word 2003 XML document with a VBA project (binData editdata.mso)"
      case "part" where flatOPC:
        if let sign = flatOPCPartSign(element) { return "Flat OPC document with a VBA project (\(sign))" }
      case "relationship" where flatOPC && qualifiedAttributeValues("type", in: element).contains(where: isVBARelationship):
        return "Flat OPC document with a VBA project (a vbaProject relationship)"
      case "vbprojectdata" where visio && element.drop(while: { $0 != ">" }).dropFirst().contains { !$0.isWhitespace }:
        return "Visio XML drawing with a VBA project (VBProjectData)"
      default:
        continue
      }
    }
    return nil
  }

  /// What a Flat OPC `pkg:part` element (lowercased) shows of a VBA project: its name
  /// (`vbaProject.bin`, `vbaData.xml`, in any folder) or its content type (a VBA project, a
  /// macro-enabled main part; an xlsb's `…binary.macroEnabled.main` is no sign, as in a ZIP).
  private static func flatOPCPartSign(_ element: Substring) -> String? {
    if let name = qualifiedAttributeValues("name", in: element).first(where: { name in
      let part = name.split(separator: "/").last
      return part == "vbaproject.bin" || part == "vbadata.xml"
    }) {
      return "part \(Escaping.escaped(name, maximumLength: 60))"
    }
    let types = qualifiedAttributeValues("contenttype", in: element)
    if types.contains(vbaProjectContentType) { return "a part of type \(vbaProjectContentType)" }
    if types.contains(where: { ByteSearch.contains(".macroenabled", in: $0) && $0.hasSuffix(".main+xml") }) {
      return "a macro-enabled main part"
    }
    return nil
  }

  static func isEditData(_ value: String) -> Bool {
    value.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last == "editdata.mso"
  }

  private static func isVBARelationship(_ value: String) -> Bool {
    value.hasSuffix("/relationships/vbaproject")
  }

  /// The values of every attribute whose local name (after any prefix) is `name`, in
  /// lowercased element text; either quote; blanks around the `=`, as XML allows (review 24).
  static func qualifiedAttributeValues(_ name: String, in element: Substring) -> [String] {
    attributeValues(name, in: element, afterPrefix: true)
  }

}
