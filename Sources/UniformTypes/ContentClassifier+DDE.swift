import TextEscaping

/// Dynamic Data Exchange: a Word field `DDEAUTO c:\windows\system32\cmd.exe "/k calc.exe"` (the
/// macro-less Office attack of 2017), an Excel formula `=cmd|' /C calc'!A0` or an Excel DDE link
/// starts the program it names when the document opens and its owner lets Office update it
/// (review 43: a docx, an RTF and two xlsx files with them were accepted as plain documents; the
/// rules that refuse a web query refreshed on open rest on the same kind of prompt). Each is
/// macro-enabled content: in a docx's `word/` parts (`w:instrText`, `w:fldSimple w:instr`), an
/// xlsx's worksheets (`<f>`) and external links (`ddeLink`), Word 2003 XML and Flat OPC text
/// (their `instrText`), and an RTF's `\fldinst`.
///
/// Not looked for: fields built from other fields (`QUOTE 68 68 69`), DDE in binary `.doc`
/// and `.xls` files, and a part past the parts' budget (`packagePartsBudget`), whose first
/// `packagePartLimit` bytes only are read — a large document is not refused for its size here.
extension ContentClassifier {
  /// The first DDE field, formula or link in `entries`' Word and Excel parts, each read within
  /// what is left of `budget`; nil when none is.
  static func ddeSign(_ entries: [ZipEntry], _ parts: [String], in bytes: ItemBytes, budget: inout Int) -> String? {
    for (entry, name) in zip(entries, parts) where name.hasSuffix(".xml") && !name.contains("_rels/") {
      let isWord = name.hasPrefix("word/")
      let isSheet = name.hasPrefix("xl/worksheets/") || name == "xl/workbook.xml"
      guard isWord || isSheet || name.hasPrefix("xl/externallinks/"), budget > 0,
        let (text, _, cost) = partText(entry, in: bytes, limit: min(packagePartLimit, budget))
      else { continue }
      budget -= cost
      let part = Escaping.escaped(entry.name, maximumLength: 60)
      if isSheet {
        if let formula = ddeFormula(in: text) { return "a DDE formula (\(formula)) in \(part)" }
      } else if ByteSearch.contains("instr", in: text) || ByteSearch.contains("ddelink", in: text) {
        if let field = ddeField(in: text) { return "a DDE field (\(field)) in \(part)" }
        if let service = ddeLink(in: text) { return "a DDE link to \(Escaping.escaped(service, maximumLength: 40)) in \(part)" }
      }
    }
    return nil
  }

  /// The DDE field of a Word document written as text (Word 2003 XML, Flat OPC) or of an RTF
  /// document in `head`, or the DDE formula of a sheet written as text (CSV, SpreadsheetML 2003),
  /// in words; nil when it has none.
  static func textDDESign(_ head: UnsafeRawBufferPointer) -> String? {
    if let formula = textDDEFormula(head) { return formula }
    if ByteSearch.contains(Array("\\fldinst".utf8), in: head), let field = rtfDDEField(head) {
      return "RTF document with a DDE field (\(field))"
    }
    // Word writes a field's instruction as `w:instrText` or `w:instr=`: text that merely holds
    // "instr" (an "instruction") is not looked into (a tenth of `types check`'s time on real
    // files when it was).
    guard ByteSearch.containsIgnoringCase("instrtext", in: head) || ByteSearch.containsIgnoringCase(":instr", in: head) else {
      return nil
    }
    return ddeField(in: String(decoding: head, as: UTF8.self).lowercased()).map { "Word XML document with a DDE field (\($0))" }
  }

  /// A DDE formula in a sheet written as text (review 46): a CSV or TSV cell that Excel takes
  /// for a formula (it starts with `=`, `+`, `-` or `@`: "CSV injection"), or a SpreadsheetML
  /// 2003 cell's `ss:Formula`, which Excel opens under `.xml` and `.xls`.
  static func textDDEFormula(_ head: UnsafeRawBufferPointer) -> String? {
    // Only the lines that hold a `|` and a `!` after it are split into cells (code is full of
    // `||` and `!`; splitting every line of every head cost a tenth of `types check`'s time).
    var from = 0
    while let bar = ByteSearch.firstIndex(of: [UInt8(ascii: "|")], in: head, from: from) {
      let start = head[..<bar].lastIndex { $0 == 0x0A || $0 == 0x0D }.map { $0 + 1 } ?? 0
      let end = head[bar...].firstIndex { $0 == 0x0A || $0 == 0x0D } ?? head.count
      from = end
      guard head[bar..<end].contains(UInt8(ascii: "!")) else { continue }
      if let server = ddeCell(UnsafeRawBufferPointer(rebasing: head[start..<end])) { return "a cell with a DDE formula (\(server)|…)" }
    }
    guard ByteSearch.containsIgnoringCase(":formula=", in: head) else { return nil }
    var server: String?
    forEachAttribute(in: String(decoding: head, as: UTF8.self).lowercased()[...]) { name, value in
      if server == nil, name == "formula" || name.hasSuffix(":formula") { server = ddeServer(value.utf8) }
    }
    return server.map { "a SpreadsheetML cell with a DDE formula (\($0)|…)" }
  }

  /// The DDE server a cell of `line` (CSV, TSV) asks, when one starts as a formula does.
  private static func ddeCell(_ line: UnsafeRawBufferPointer) -> String? {
    for cell in line.split(whereSeparator: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") || $0 == 0x09 }) {
      let value = cell.drop { $0 == 0x20 || $0 == UInt8(ascii: "\"") }
      guard let first = value.first, [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@")].contains(first),
        let server = ddeServer(value)
      else { continue }
      return server
    }
    return nil
  }

  /// Each element of lowercased XML `text` whose local name is `local`, with the text that
  /// follows its start tag up to the next tag.
  static func elements(_ local: String, in text: String, _ body: (Substring, Substring) -> Bool) {
    elements([local], in: text, body)
  }

  /// Each element whose local name is one of `locals`, in one pass over the text.
  static func elements(_ locals: [String], in text: String, _ body: (Substring, Substring) -> Bool) {
    let qualified = locals.map { ":" + $0 }
    for element in text.split(separator: "<") {
      let name = element.prefix { !($0 == ">" || $0 == "/" || $0.isWhitespace) }
      guard locals.contains(where: { name == $0 }) || qualified.contains(where: { name.hasSuffix($0) }) else { continue }
      let content = element.drop { $0 != ">" }.dropFirst()
      if body(element, content) { return }
    }
  }

  /// The instruction of a DDE field in lowercased WordprocessingML `text`: every `instrText`'s
  /// text joined as Word joins a field's runs (`DD` and `EAUTO` in two runs are one word), and
  /// every `fldSimple`'s `instr`.
  static func ddeField(in text: String) -> String? {
    var instructions = ""
    elements("instrtext", in: text) { _, content in
      instructions += content
      return false
    }
    if let found = ddeCommand(in: instructions) { return found }
    var found: String?
    elements("fldsimple", in: text) { element, _ in
      found = qualifiedAttributeValues("instr", in: element).lazy.compactMap(ddeCommand).first
      return found != nil
    }
    return found
  }

  /// `DDE` or `DDEAUTO` (which is returned) as a word ending in a blank, a quote or a
  /// backslash, in a field's lowercased instruction.
  static func ddeCommand<Text: StringProtocol>(in instruction: Text) -> String? {
    let bytes = Array(instruction.utf8)
    var index = 0
    while let start = bytes.withUnsafeBytes({ ByteSearch.firstIndex(of: Array("dde".utf8), in: $0, from: index) }) {
      var end = start + 3
      if bytes[end...].starts(with: "auto".utf8) { end += 4 }
      if end < bytes.count, [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "\""), UInt8(ascii: "\\")].contains(bytes[end]) {
        return end - start == 3 ? "DDE" : "DDEAUTO"
      }
      index = start + 1
    }
    return nil
  }

  /// A formula that asks a DDE server (`app|topic!item`: a `|` outside a string, after a name)
  /// in lowercased SpreadsheetML `text`: a cell's, a defined name's (which a cell may refer to;
  /// review 46), a conditional format's or a validation's.
  static func ddeFormula(in text: String) -> String? {
    guard ByteSearch.contains("|", in: text) else { return nil }
    var found: String?
    elements(formulaElements, in: text) { _, content in
      guard let server = ddeServer(content.utf8) else { return false }
      found = server + "|…"
      return true
    }
    return found
  }

  /// The SpreadsheetML elements whose text is a formula.
  static let formulaElements = ["f", "definedname", "formula", "formula1", "formula2"]

  /// The DDE server a formula asks (the name before its `|`), nil when it asks none.
  static func ddeServer<Bytes: Collection<UInt8>>(_ formula: Bytes) -> String? {
    var inString = false
    var name: [UInt8] = []
    for (offset, byte) in formula.enumerated() {
      if byte == UInt8(ascii: "\"") { inString.toggle() }
      if byte == UInt8(ascii: "|"), !inString, !name.isEmpty, formula.dropFirst(offset).contains(UInt8(ascii: "!")) {
        return String(decoding: name.suffix(24), as: UTF8.self)
      }
      name = isNameByte(byte) ? name + [byte] : []
    }
    return nil
  }

  private static func isNameByte(_ byte: UInt8) -> Bool {
    (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "_")
      || byte == UInt8(ascii: ".")
  }

  /// The service of an external link part's `ddeLink`, in lowercased `text`.
  static func ddeLink(in text: String) -> String? {
    var found: String?
    elements("ddelink", in: text) { element, _ in
      found = qualifiedAttributeValues("ddeservice", in: element).first ?? "a DDE server"
      return true
    }
    return found
  }

  /// The first word of an RTF `\fldinst` (control words are lowercase) that is `DDE` or
  /// `DDEAUTO`: the instruction's text, braces, blanks and control words aside
  /// (`{\fldinst {\rtlch DDE}AUTO …}`), `\'44` read as the byte it stands for.
  static func rtfDDEField(_ head: UnsafeRawBufferPointer) -> String? {
    var index = 0
    while let start = ByteSearch.firstIndex(of: Array("\\fldinst".utf8), in: head, from: index) {
      let word = rtfFirstWord(head, from: start + 8).lowercased()
      if word == "dde" || word == "ddeauto" { return word.uppercased() }
      index = start + 1
    }
    return nil
  }

  /// The first word of RTF text from `start`: its letters, read past braces, control words and
  /// blanks before it, up to the first blank, brace or other byte after it (at most 16).
  private static func rtfFirstWord(_ bytes: UnsafeRawBufferPointer, from start: Int) -> String {
    var word: [UInt8] = []
    var index = start
    let end = min(bytes.count, start + 512)
    while index < end, word.count < 16 {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\\"), index + 3 < end, bytes[index + 1] == UInt8(ascii: "'"),
        let value = UInt8(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(index + 2)...(index + 3)]), as: UTF8.self), radix: 16)
      {
        word.append(value)
        index += 4
      } else if byte == UInt8(ascii: "\\") {
        index += 1
        while index < end,
          isLetter(bytes[index]) || bytes[index] == UInt8(ascii: "*") || bytes[index] == UInt8(ascii: "-")
            || (0x30...0x39).contains(bytes[index])
        {
          index += 1
        }
        if index < end, bytes[index] == 0x20 { index += 1 }
      } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}") || byte == 0x0D || byte == 0x0A || (byte == 0x20 && word.isEmpty) {
        index += 1
      } else if isLetter(byte) {
        word.append(byte)
        index += 1
      } else {
        break
      }
    }
    return String(decoding: word, as: UTF8.self)
  }

  private static func isLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) }
}
