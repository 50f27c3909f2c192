import TextEscaping

/// What an Office Open XML package says about itself (Open Packaging Conventions): the content
/// types of its parts in `[Content_Types].xml` and the relationships in its `.rels` parts. Office
/// finds a VBA project through them, not by its part name (review 18: a project in
/// `word/stuff.dat`, declared `application/vnd.ms-office.vbaProject` and reached through a
/// `vbaProject` relationship, was accepted as a docx, also named `.doc`).
extension ContentClassifier {
  /// How much of one part is read: `[Content_Types].xml` and `.rels` parts are a few KiB (a
  /// workbook of thousands of sheets: a few hundred). A part that goes on past it is a sign by
  /// itself: Office reads all of it, and blanks before a declaration compress to nothing.
  static let packagePartLimit = 4 << 20
  /// How many bytes all of a package's parts may cost to read, compressed and inflated: a
  /// directory may list one small deflated part thousands of times. Past it is a sign too.
  static let packagePartsBudget = 32 << 20

  /// The first sign, in the head's `[Content_Types].xml` and `.rels` parts, that the package
  /// carries a VBA project or an Excel 4.0 macro sheet, in words; nil when they show none.
  ///
  /// Signs: a part of content type `application/vnd.ms-office.vbaProject` (an `Override`, or a
  /// `Default` for the extension of a part in the head that no `Override` names); a macro-enabled main
  /// part (`…macroEnabled.main+xml`, `…macroEnabledTemplate.main+xml`: docm, xlsm, pptm and their
  /// templates and add-ins); a relationship of type `…/relationships/vbaProject`. An xlsb's main
  /// part is `…sheet.binary.macroEnabled.main` (no `+xml`) with or without VBA, and is no sign.
  ///
  /// `allParts`: whether `entries` names every part; when some were not kept (a package of
  /// thousands of parts), a `Default` that makes an extension a VBA project is a sign by itself.
  static func declaredVBAProject(_ entries: [ZipEntry], in bytes: ItemBytes, allParts: Bool = true) -> String? {
    var budget = packagePartsBudget
    // Read once, and only the first few: a directory may list thousands of them (review 25).
    let parts = entries.map { $0.name.lowercased() }
    var contentTypesLeft = 4
    var connections: Set<String> = ["xl/connections.xml"]
    let spent = "its [Content_Types].xml and .rels parts are larger in all than share reads (\(packagePartsBudget >> 20) MiB)"
    for (entry, name) in zip(entries, parts) {
      guard name == "[content_types].xml" || name.hasSuffix(".rels") else { continue }
      if name == "[content_types].xml" {
        guard contentTypesLeft > 0 else { continue }
        contentTypesLeft -= 1
      }
      let text: String
      switch readPart(entry, in: bytes, budget: &budget, spent: spent) {
      case .unread: continue
      case .sign(let sign): return sign
      case .text(let read): text = read
      }
      if name == "[content_types].xml" {
        if let sign = contentTypesSign(text, parts: parts, allParts: allParts) { return sign }
        connections.formUnion(declaredConnectionParts(text, parts: parts))
      } else if name.hasSuffix(".rels"),
        let type = attributeValues("Type", in: text[...]).first(where: { type in
          macroRelationships.contains { type.hasSuffix("/relationships/" + $0) }
        })
      {
        let kind = type.split(separator: "/").last.map(String.init) ?? type
        return "a \(kind) relationship in \(Escaping.escaped(entry.name, maximumLength: 60))"
      }
    }
    return slideActionSign(entries, parts, in: bytes, budget: &budget)
      ?? webQuerySign(entries, parts, connections: connections, in: bytes, budget: &budget)
      ?? ddeSign(entries, parts, in: bytes, budget: &budget)
  }

  /// PowerPoint runs a program (`ppaction://program`, the program in the link's relationship)
  /// or activates an embedded object (`ppaction://ole`) when a shape whose click or mouse-over
  /// action says so is clicked or passed over in a slide show (review 37: a ppsx running
  /// PowerShell on a mouse-over was accepted; the ODP equivalent was refused). Read in the
  /// slides, layouts and masters, within what is left of `budget`.
  private static func slideActionSign(_ entries: [ZipEntry], _ parts: [String], in bytes: ItemBytes, budget: inout Int) -> String? {
    let folders = ["ppt/slides/", "ppt/slidelayouts/", "ppt/slidemasters/"]
    let spent = "its parts and slides are larger in all than share reads (\(packagePartsBudget >> 20) MiB)"
    func isSlide(_ name: String) -> Bool { name.hasSuffix(".xml") && folders.contains(where: name.hasPrefix) }
    return firstSign(in: entries, parts, where: isSlide, bytes, &budget, spent) { entry, text in
      let part = Escaping.escaped(entry.name, maximumLength: 60)
      if ByteSearch.contains("verb", in: text), animationRunsObject(text) { return "an animation that runs an embedded object in \(part)" }
      guard ByteSearch.contains("action", in: text) else { return nil }
      let runs = attributeValues("action", in: text[...]).first { $0.hasPrefix("ppaction://program") || $0.hasPrefix("ppaction://ole") }
      return runs.map { "a slide action \(Escaping.escaped($0, maximumLength: 40)) in \(part)" }
    }
  }

  /// Whether a slide's timeline (lowercased `text`) has a command effect that runs an OLE verb
  /// (`<p:cmd type="verb" cmd="0">`): PowerPoint activates the object — a Package holding a
  /// program — as the slide appears, with no click (review 46: the 2014 "Sandworm" documents;
  /// the mouse-over `ppaction://ole` was refused, this accepted).
  static func animationRunsObject(_ text: String) -> Bool {
    var runs = false
    elements("cmd", in: text) { element, _ in
      runs = attributeValues("type", in: element).contains("verb")
      return runs
    }
    return runs
  }

  /// The first sign `sign` finds in the text of the parts whose lowercased names `reading`
  /// picks, each read within what is left of `budget` (`readPart`: past it, `spent` is the sign).
  static func firstSign(
    in entries: [ZipEntry], _ parts: [String], where reading: (String) -> Bool, _ bytes: ItemBytes, _ budget: inout Int,
    _ spent: String, _ sign: (ZipEntry, String) -> String?
  ) -> String? {
    for (entry, name) in zip(entries, parts) where reading(name) {
      switch readPart(entry, in: bytes, budget: &budget, spent: spent) {
      case .unread: continue
      case .sign(let found): return found
      case .text(let text): if let found = sign(entry, text) { return found }
      }
    }
    return nil
  }

  /// What `[Content_Types].xml` (lowercased `text`) says of a VBA project. A `Default` names the
  /// content type of every part with an extension that no `Override` names; it is a sign only
  /// when such a part is in the head (some writers map `bin` to a VBA project in every xlsb).
  private static func contentTypesSign(_ text: String, parts: [String], allParts: Bool) -> String? {
    var overridden: Set<String> = []
    var projectExtensions: Set<String> = []
    // Split over the bytes, not Characters (a 4 MiB part of 52,000 elements: review 25).
    for bytes in text.utf8.split(separator: UInt8(ascii: "<")) {
      let element = text[bytes.startIndex..<bytes.endIndex]
      guard let type = attributeValues("ContentType", in: element).first else { continue }
      if ByteSearch.contains(".macroenabled", in: type), type.hasSuffix(".main+xml") {
        return "[Content_Types].xml declares a macro-enabled main part"
      }
      if element.utf8.starts(with: "override".utf8), let part = attributeValues("PartName", in: element).first {
        if type == vbaProjectContentType { return "[Content_Types].xml declares a VBA project part" }
        if macroSheetContentTypes.contains(type) { return "[Content_Types].xml declares an XLM macro sheet part" }
        overridden.insert(String(part.drop { $0 == "/" }))
      } else if element.utf8.starts(with: "default".utf8), type == vbaProjectContentType,
        let suffix = attributeValues("Extension", in: element).first
      {
        projectExtensions.insert(suffix)
      }
    }
    if !allParts, let suffix = projectExtensions.first {
      return
        "[Content_Types].xml makes every *.\(Escaping.escaped(suffix, maximumLength: 20)) part a VBA project, in a package of more parts than share lists"
    }
    guard !projectExtensions.isEmpty else { return nil }
    let project = parts.first { part in
      partExtension(part).map { projectExtensions.contains($0) } == true && !overridden.contains(part)
    }
    return project.map { "[Content_Types].xml makes \(Escaping.escaped($0, maximumLength: 40)) a VBA project" }
  }

  /// A part's extension, as OPC has it: what follows the last dot of its last segment; nil
  /// when that has none.
  static func partExtension(_ part: String) -> String? {
    let last = lastSegment(part)
    guard let dot = last.lastIndex(of: UInt8(ascii: ".")) else { return nil }
    return String(Substring(last[last.index(after: dot)...]))
  }

  static let vbaProjectContentType = "application/vnd.ms-office.vbaproject"

  /// Excel 4.0 (XLM) macro sheets' content types, lowercased: international ones too, in XML
  /// (xlsx, xlsm) and binary (xlsb). Excel runs their `Auto_Open` when the workbook opens, as it
  /// runs a VBA project's (review 22: an xlsb and an xlsx with one were accepted).
  static let macroSheetContentTypes: Set<String> = [
    "application/vnd.ms-excel.macrosheet+xml", "application/vnd.ms-excel.macrosheet",
    "application/vnd.ms-excel.intlmacrosheet+xml", "application/vnd.ms-excel.intlmacrosheet",
  ]

  /// The relationship types (their last part, lowercased) that reach macros.
  static let macroRelationships = ["vbaproject", "xlmacrosheet", "xlintlmacrosheet"]

  /// What reading one part within the parts' budget gave.
  enum PartRead {
    case text(String)
    /// Neither stored nor deflated, or its bytes are not in the item.
    case unread
    /// A sign by itself: the budget is spent (`spent`), or the part goes on past
    /// `packagePartLimit` (Office reads all of it, and blanks compress to nothing).
    case sign(String)
  }

  /// `entry`'s text (`partText`), what reading it cost taken from `budget`.
  static func readPart(_ entry: ZipEntry, in bytes: ItemBytes, budget: inout Int, spent: String) -> PartRead {
    guard budget > 0 else { return .sign(spent) }
    let limit = min(packagePartLimit, budget)
    guard let (text, isCut, cost) = partText(entry, in: bytes, limit: limit) else { return .unread }
    budget -= cost
    guard isCut else { return .text(text) }
    return .sign(
      limit < packagePartLimit
        ? spent : "\(Escaping.escaped(entry.name, maximumLength: 60)) is larger than share reads (\(packagePartLimit >> 20) MiB)")
  }

  /// The text of a stored or deflated part, as far as the item holds it, as an XML parser reads
  /// it (`xmlText`), lowercased; `isCut` when it goes on past `limit`; `cost`, the bytes read
  /// and inflated.
  static func partText(_ entry: ZipEntry, in bytes: ItemBytes, limit: Int) -> (text: String, isCut: Bool, cost: Int)? {
    let read: [UInt8]?
    var cost = 0
    switch entry.method {
    case 0:
      read = entry.compressed(in: bytes, limit: limit + 1)
    case 8:
      // Deflate shrinks a part of blanks a thousandfold: all of it is read, and a part longer
      // compressed than share reads is cut (review 25: 1.65 MB of a comment deflated hid the
      // declarations after it when 1 MiB of it was read).
      guard (entry.data?.count ?? entry.compressedSize) <= ItemBytes.maximumRead else { return ("", true, 0) }
      let compressed = entry.compressed(in: bytes, limit: ItemBytes.maximumRead)
      cost = compressed?.count ?? 0
      read = compressed.flatMap { compressed in compressed.withUnsafeBytes { Inflate.inflated($0, format: .raw, limit: limit + 1) } }
    default:
      read = nil
    }
    guard let read else { return nil }
    return (xmlTranscoded(Array(read.prefix(limit))).lowercased(), read.count > limit, cost + read.count)
  }

  /// XML bytes as text the way an XML parser reads them (review 24: Office's parser read a
  /// declaration written in UTF-16, or with `&#43;` for `+`, that share's string search missed):
  /// UTF-16 by its byte-order mark (or a `<` and a NUL), else UTF-8; character references
  /// (`&#43;`, `&#x2B;`) and the five predefined entities replaced by what they stand for.
  static func xmlText(_ bytes: [UInt8]) -> String { String(decoding: xmlBytes(bytes), as: UTF8.self) }

  /// XML bytes as UTF-8 text, transcoded from UTF-16 by the byte-order mark (or a `<` and a NUL)
  /// and nothing else: references are replaced in attribute values only, once they are read
  /// (`forEachAttribute`), so that one written `&lt;` never opens an element (review 25).
  static func xmlTranscoded(_ bytes: [UInt8]) -> String { String(decoding: transcoded(bytes), as: UTF8.self) }

  private static func transcoded(_ bytes: [UInt8]) -> [UInt8] {
    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0x3C, 0x00]) {
      return Array(utf16(bytes.dropFirst(bytes.first == 0xFF ? 2 : 0), bigEndian: false).utf8)
    } else if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0x00, 0x3C]) {
      return Array(utf16(bytes.dropFirst(bytes.first == 0xFE ? 2 : 0), bigEndian: true).utf8)
    }
    return bytes
  }

  /// `xmlText` as UTF-8 bytes. Byte by byte: it runs on every text head with a `&#` in it (HTML
  /// has many) that shows no macros as written. A character reference may have any number of
  /// leading zeros (review 25: `&#00000000000118;` is a `v`).
  static func xmlBytes(_ bytes: [UInt8]) -> [UInt8] {
    let utf8 = transcoded(bytes)
    guard utf8.contains(UInt8(ascii: "&")) else { return utf8 }
    var result: [UInt8] = []
    result.reserveCapacity(utf8.count)
    var index = 0
    while index < utf8.count {
      if utf8[index] == UInt8(ascii: "&"),
        let semicolon = utf8[(index + 1)...].prefix(4096).firstIndex(where: { !isReferenceByte($0) }),
        utf8[semicolon] == UInt8(ascii: ";"),
        let scalar = referenced(utf8[(index + 1)..<semicolon])
      {
        result.append(contentsOf: String(Character(scalar)).utf8)
        index = semicolon + 1
      } else {
        result.append(utf8[index])
        index += 1
      }
    }
    return result
  }

  private static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
    let pairs = Array(bytes)
    let units = stride(from: 0, to: pairs.count - 1, by: 2).map { index in
      bigEndian ? UInt16(pairs[index]) << 8 | UInt16(pairs[index + 1]) : UInt16(pairs[index]) | UInt16(pairs[index + 1]) << 8
    }
    return String(decoding: units, as: UTF16.self)
  }

  /// Whether `byte` may be part of a reference's name: `#`, a letter or a digit.
  private static func isReferenceByte(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "#") || (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
  }

  /// What a reference's `name` (between `&` and `;`) stands for: `#43`, `#x2B`, or a
  /// predefined entity.
  private static func referenced(_ name: ArraySlice<UInt8>) -> Unicode.Scalar? {
    guard let first = name.first else { return nil }
    if first == UInt8(ascii: "#") {
      var digits = name.dropFirst()
      let hex = digits.first == UInt8(ascii: "x") || digits.first == UInt8(ascii: "X")
      if hex { digits = digits.dropFirst() }
      digits = digits.drop { $0 == UInt8(ascii: "0") }
      guard digits.count <= 8 else { return nil }
      return UInt32(digits.isEmpty ? "0" : String(decoding: digits, as: UTF8.self), radix: hex ? 16 : 10).flatMap(Unicode.Scalar.init)
    }
    switch String(decoding: name, as: UTF8.self) {
    case "amp": return "&"
    case "lt": return "<"
    case "gt": return ">"
    case "quot": return "\""
    case "apos": return "'"
    default: return nil
    }
  }

  /// The values of every attribute `name` (already lowercased text; either quote; blanks
  /// around the `=`, as XML allows).
  static func attributeValues(_ name: String, in text: Substring) -> [String] {
    attributeValues(name.lowercased(), in: text, afterPrefix: false)
  }

  /// The values of attribute `key` (lowercased) in lowercased `text`; `afterPrefix`: also where
  /// a namespace prefix comes before it (`w:name`, for `qualifiedAttributeValues`).
  static func attributeValues(_ key: String, in text: Substring, afterPrefix: Bool) -> [String] {
    var values: [String] = []
    forEachAttribute(in: text) { name, value in
      if name == key || (afterPrefix && name.hasSuffix(":" + key)) { values.append(value) }
    }
    return values
  }

  /// Calls `body` with each attribute's name and value (its references replaced, lowercased) in
  /// lowercased XML `text`: a document, or one element from its name on (what follows its `<`).
  /// Tokens as a parser reads them: a value is never read for attributes (review 25:
  /// `xmlns:z=" ContentType='…'"` gave a false value and hid the real one), comments and CDATA
  /// hold none, only XML's four blanks separate. Over the UTF-8 bytes: a `[Content_Types].xml`
  /// of 50,000 declarations took seconds by Characters.
  static func forEachAttribute(in text: Substring, _ body: (String, String) -> Void) {
    if text.utf8.withContiguousStorageIfAvailable({ forEachAttribute(in: $0, body) }) == nil {
      Array(text.utf8).withUnsafeBufferPointer { forEachAttribute(in: $0, body) }
    }
  }

  /// Where a comment and a CDATA section start and end (after the `<`), lowercased.
  private static let skippedSections: [([UInt8], [UInt8])] = [
    (Array("!--".utf8), Array("-->".utf8)), (Array("![cdata[".utf8), Array("]]>".utf8)),
  ]

  private static func forEachAttribute(in bytes: UnsafeBufferPointer<UInt8>, _ body: (String, String) -> Void) {
    let count = bytes.count
    func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    func skip(_ index: inout Int, while condition: (UInt8) -> Bool) { while index < count, condition(bytes[index]) { index += 1 } }
    func startsWith(_ prefix: [UInt8], at index: Int) -> Bool {
      index + prefix.count <= count && prefix.indices.allSatisfy { bytes[index + $0] == prefix[$0] }
    }
    let (open, close, slash, equals) = (UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "="))
    var index = 0
    var inTag = bytes.first != open
    if inTag { skip(&index) { !isBlank($0) && $0 != close && $0 != slash } }
    while index < count {
      if !inTag {
        guard let found = bytes[index...].firstIndex(of: open) else { return }
        index = found + 1
        for (start, end) in skippedSections where startsWith(start, at: index) {
          let found = ByteSearch.firstIndex(of: end, in: UnsafeRawBufferPointer(bytes), from: index + start.count)
          index = found.map { $0 + end.count } ?? count
        }
        guard index < count, bytes[index] != open else { continue }
        skip(&index) { !isBlank($0) && $0 != close && $0 != slash && $0 != open }
        inTag = true
      }
      skip(&index, while: isBlank)
      guard index < count else { return }
      if bytes[index] == close || bytes[index] == open {
        inTag = false
        if bytes[index] == close { index += 1 }
        continue
      }
      let nameStart = index
      skip(&index) { !isBlank($0) && $0 != equals && $0 != close && $0 != open }
      if index == nameStart {
        index += 1
        continue
      }
      let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
      skip(&index, while: isBlank)
      guard index < count, bytes[index] == equals else { continue }
      index += 1
      skip(&index, while: isBlank)
      guard index < count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { continue }
      let quote = bytes[index]
      guard let valueEnd = bytes[(index + 1)...].firstIndex(of: quote) else { return }
      let value = Array(bytes[(index + 1)..<valueEnd])
      index = valueEnd + 1
      // Lowercased again: a reference may stand for a capital (`&#x50;`).
      body(
        name,
        value.contains(UInt8(ascii: "&"))
          ? String(decoding: xmlBytes(value), as: UTF8.self).lowercased() : String(decoding: value, as: UTF8.self))
    }
  }
}
