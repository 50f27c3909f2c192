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
    let spent = "its [Content_Types].xml and .rels parts are larger in all than share reads (\(packagePartsBudget >> 20) MiB)"
    for entry in entries {
      let name = entry.name.lowercased()
      guard name == "[content_types].xml" || name.hasSuffix(".rels") else { continue }
      guard budget > 0 else { return spent }
      let limit = min(packagePartLimit, budget)
      guard let (text, isCut, cost) = partText(entry, in: bytes, limit: limit) else { continue }
      budget -= cost
      if isCut {
        return limit < packagePartLimit
          ? spent : "\(Escaping.escaped(entry.name, maximumLength: 60)) is larger than share reads (\(packagePartLimit >> 20) MiB)"
      }
      if name == "[content_types].xml",
        let sign = contentTypesSign(text, parts: entries.map { $0.name.lowercased() }, allParts: allParts)
      {
        return sign
      } else if name.hasSuffix(".rels"),
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
  private static func contentTypesSign(_ text: String, parts: [String], allParts: Bool) -> String? {
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
    if !allParts, let suffix = projectExtensions.first {
      return
        "[Content_Types].xml makes every *\(Escaping.escaped(suffix, maximumLength: 20)) part a VBA project, in a package of more parts than share lists"
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

  /// The text of a stored or deflated part, as far as the item holds it, as an XML parser reads
  /// it (`xmlText`), lowercased; `isCut` when it goes on past `limit`; `cost`, the bytes read
  /// and inflated.
  private static func partText(_ entry: ZipEntry, in bytes: ItemBytes, limit: Int) -> (text: String, isCut: Bool, cost: Int)? {
    let read: [UInt8]?
    var cost = 0
    switch entry.method {
    case 0:
      read = entry.compressed(in: bytes, limit: limit + 1)
    case 8:
      // Deflate shrinks a part of blanks a thousandfold: read enough of it for the limit.
      let compressed = entry.compressed(in: bytes, limit: 1 << 20)
      cost = compressed?.count ?? 0
      read = compressed.flatMap { compressed in compressed.withUnsafeBytes { Inflate.inflated($0, format: .raw, limit: limit + 1) } }
    default:
      read = nil
    }
    guard let read else { return nil }
    return (xmlText(Array(read.prefix(limit))).lowercased(), read.count > limit, cost + read.count)
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
