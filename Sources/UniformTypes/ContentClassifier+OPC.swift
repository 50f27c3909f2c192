import TextEscaping

/// What an Office Open XML package says about itself (Open Packaging Conventions): the content
/// types of its parts in `[Content_Types].xml` and the relationships in its `.rels` parts. Office
/// finds a VBA project through them, not by its part name (review 18: a project in
/// `word/stuff.dat`, declared `application/vnd.ms-office.vbaProject` and reached through a
/// `vbaProject` relationship, was accepted as a docx, also named `.doc`).
extension ContentClassifier {
  /// How much of one deflated part is inflated: `[Content_Types].xml` and `.rels` parts are a
  /// few KiB.
  static let packagePartLimit = 64 * 1024

  /// The first sign, in the head's `[Content_Types].xml` and `.rels` parts, that the package
  /// carries a VBA project or an Excel 4.0 macro sheet, in words; nil when they show none.
  ///
  /// Signs: a part of content type `application/vnd.ms-office.vbaProject` (an `Override`, or a
  /// `Default` for the extension of a part in the head that no `Override` names); a macro-enabled main
  /// part (`…macroEnabled.main+xml`, `…macroEnabledTemplate.main+xml`: docm, xlsm, pptm and their
  /// templates and add-ins); a relationship of type `…/relationships/vbaProject`. An xlsb's main
  /// part is `…sheet.binary.macroEnabled.main` (no `+xml`) with or without VBA, and is no sign.
  static func declaredVBAProject(_ entries: [ZipEntry], head: UnsafeRawBufferPointer) -> String? {
    for entry in entries {
      let name = entry.name.lowercased()
      if name == "[content_types].xml", let text = partText(entry, head: head),
        let sign = contentTypesSign(text, parts: entries.map { $0.name.lowercased() })
      {
        return sign
      } else if name.hasSuffix(".rels"), let text = partText(entry, head: head),
        let type = attributeValues("Type", in: text[...]).first(where: { type in
          macroRelationships.contains { type.hasSuffix("/relationships/" + $0) }
        })
      {
        let kind = type.split(separator: "/").last.map(String.init) ?? type
        return "a \(kind) relationship in \(Escaping.escaped(entry.name, maximumLength: 60))"
      }
    }
    return nil
  }

  /// What `[Content_Types].xml` (lowercased `text`) says of a VBA project. A `Default` names the
  /// content type of every part with an extension that no `Override` names; it is a sign only
  /// when such a part is in the head (some writers map `bin` to a VBA project in every xlsb).
  private static func contentTypesSign(_ text: String, parts: [String]) -> String? {
    var overridden: Set<String> = []
    var projectExtensions: [String] = []
    for element in text.split(separator: "<") {
      guard let type = attributeValues("ContentType", in: element).first else { continue }
      if type.contains(".macroenabled"), type.hasSuffix(".main+xml") {
        return "[Content_Types].xml declares a macro-enabled main part"
      }
      if element.hasPrefix("override"), let part = attributeValues("PartName", in: element).first {
        if type == vbaProjectContentType { return "[Content_Types].xml declares a VBA project part" }
        if macroSheetContentTypes.contains(type) { return "[Content_Types].xml declares an XLM macro sheet part" }
        overridden.insert(String(part.drop { $0 == "/" }))
      } else if element.hasPrefix("default"), type == vbaProjectContentType,
        let suffix = attributeValues("Extension", in: element).first
      {
        projectExtensions.append("." + suffix)
      }
    }
    let project = parts.first { part in
      !overridden.contains(part) && projectExtensions.contains { part.hasSuffix($0) }
    }
    return project.map { "[Content_Types].xml makes \(Escaping.escaped($0, maximumLength: 40)) a VBA project" }
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

  /// The text of a stored or deflated part, as far as the head holds it, as an XML parser reads
  /// it (`xmlText`), lowercased.
  private static func partText(_ entry: ZipEntry, head: UnsafeRawBufferPointer) -> String? {
    guard !entry.data.isEmpty else { return nil }
    let bytes = UnsafeRawBufferPointer(rebasing: head[entry.data])
    switch entry.method {
    case 0:
      return xmlText(Array(bytes.prefix(packagePartLimit))).lowercased()
    case 8:
      return Inflate.inflated(bytes, format: .raw, limit: packagePartLimit).map { xmlText($0).lowercased() }
    default:
      return nil
    }
  }

  /// XML bytes as text the way an XML parser reads them (review 24: Office's parser read a
  /// declaration written in UTF-16, or with `&#43;` for `+`, that share's string search missed):
  /// UTF-16 by its byte-order mark (or a `<` and a NUL), else UTF-8; character references
  /// (`&#43;`, `&#x2B;`) and the five predefined entities replaced by what they stand for.
  static func xmlText(_ bytes: [UInt8]) -> String { String(decoding: xmlBytes(bytes), as: UTF8.self) }

  /// `xmlText` as UTF-8 bytes. Byte by byte: it runs on every text head with a `&#` in it (HTML
  /// has many) that shows no macros as written.
  static func xmlBytes(_ bytes: [UInt8]) -> [UInt8] {
    var utf8 = bytes
    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0x3C, 0x00]) {
      utf8 = Array(utf16(bytes.dropFirst(bytes.first == 0xFF ? 2 : 0), bigEndian: false).utf8)
    } else if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0x00, 0x3C]) {
      utf8 = Array(utf16(bytes.dropFirst(bytes.first == 0xFE ? 2 : 0), bigEndian: true).utf8)
    }
    guard utf8.contains(UInt8(ascii: "&")) else { return utf8 }
    var result: [UInt8] = []
    result.reserveCapacity(utf8.count)
    var index = 0
    while index < utf8.count {
      if utf8[index] == UInt8(ascii: "&"),
        let semicolon = utf8[(index + 1)..<min(index + 12, utf8.count)].firstIndex(of: UInt8(ascii: ";")),
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

  /// What a reference's `name` (between `&` and `;`) stands for: `#43`, `#x2B`, or a
  /// predefined entity.
  private static func referenced(_ name: ArraySlice<UInt8>) -> Unicode.Scalar? {
    guard let first = name.first else { return nil }
    if first == UInt8(ascii: "#") {
      let digits = name.dropFirst()
      let hex = digits.first == UInt8(ascii: "x") || digits.first == UInt8(ascii: "X")
      let text = String(decoding: hex ? digits.dropFirst() : digits, as: UTF8.self)
      return UInt32(text, radix: hex ? 16 : 10).flatMap(Unicode.Scalar.init)
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
    var rest = text
    while let found = rest.firstRange(of: key) {
      let before = found.lowerBound == rest.startIndex ? nil : rest[rest.index(before: found.lowerBound)]
      rest = rest[found.upperBound...].drop { $0.isWhitespace }
      guard let before, before.isWhitespace || (afterPrefix && before == ":"), rest.first == "=" else { continue }
      rest = rest.dropFirst().drop { $0.isWhitespace }
      guard let quote = rest.first, quote == "\"" || quote == "'" else { continue }
      rest = rest.dropFirst()
      guard let end = rest.firstIndex(of: quote) else { break }
      values.append(String(rest[..<end]))
      rest = rest[rest.index(after: end)...]
    }
    return values
  }
}
