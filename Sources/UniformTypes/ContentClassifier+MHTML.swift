/// MHTML — a MIME message, Word's "web page" saved as `.mht` or `.doc` — with a VBA project:
/// Word keeps it in an ActiveMime part (`editdata.mso`, of type `application/x-mso`) that the
/// HTML part names in a `<link rel=Edit-Time-Data>`, the ".doc that is a web page" of
/// 2015–2017 macro malware (review 20). Read as Word reads the message (review 24): header lines
/// folded over several, base64 broken into lines anywhere, quoted-printable soft line breaks, a
/// `Content-Location` URL with percent-escapes.
extension ContentClassifier {
  /// What a MIME message in `head` shows of a VBA project, in words; nil for other text or none.
  static func mhtmlMacros(_ head: UnsafeRawBufferPointer) -> String? {
    guard ByteSearch.containsIgnoringCase("mime-version", in: head) || ByteSearch.containsIgnoringCase("multipart/", in: head),
      mayShowMHTMLMacros(head)
    else { return nil }
    return mhtmlMacrosReadAsText(head)
  }

  /// Whether `head` holds, in its bytes, what each sign `mhtmlMacrosReadAsText` finds needs:
  /// ActiveMime, as written or in base64 broken into lines; a `Content-Location` header; a type
  /// `application/x-mso` (its quotes dropped); `Edit-Time-Data` (quoted-printable soft line
  /// breaks dropped); in any case where that reading lowercases. Review 28: reading every
  /// window of a MIME message as text (decoded, lowercased, unfolded, split into lines) cost
  /// 0.6 s of CPU per MiB, 40 s for a 64 MiB e-mail; these searches cost what memchr does, and
  /// only a window that passes them is read as text, so no verdict changes
  /// (`WholeTextScanTests`).
  static func mayShowMHTMLMacros(_ head: UnsafeRawBufferPointer) -> Bool {
    func blank(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Int { isBlank(bytes[index]) ? 1 : 0 }
    func quote(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Int { bytes[index] == 0x22 || bytes[index] == 0x27 ? 1 : 0 }
    func softBreak(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Int {
      guard bytes[index] == UInt8(ascii: "="), index + 1 < bytes.count else { return 0 }
      if bytes[index + 1] == 0x0A { return 2 }
      return bytes[index + 1] == 0x0D && index + 2 < bytes.count && bytes[index + 2] == 0x0A ? 3 : 0
    }
    return ByteSearch.contains(Array("ActiveMime".utf8), in: head)
      || ByteSearch.contains(activeMimeBase64, in: head, ignoringCase: false, skipping: blank)
      || ByteSearch.containsIgnoringCase("content-location", in: head)
      || ByteSearch.contains("application/x-mso", in: head, ignoringCase: true, skipping: quote)
      || ByteSearch.contains("edit-time-data", in: head, ignoringCase: true, skipping: softBreak)
  }

  private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

  /// `mhtmlMacros` read as Word reads the message, as text: what a window that may show macros
  /// (`mayShowMHTMLMacros`) is put through.
  static func mhtmlMacrosReadAsText(_ head: UnsafeRawBufferPointer) -> String? {
    guard ByteSearch.containsIgnoringCase("mime-version", in: head) || ByteSearch.containsIgnoringCase("multipart/", in: head)
    else { return nil }
    let text = String(decoding: head, as: UTF8.self).lowercased().replacing("\r\n", with: "\n")
    // A header line that starts with a blank continues the one before.
    let unfolded = text.replacing("\n ", with: " ").replacing("\n\t", with: " ")
    guard isMIME(unfolded) else { return nil }
    // Base64 as a decoder reads it: blanks and line breaks anywhere are no part of it.
    let compact = head.filter { !isBlank($0) }
    if compact.withUnsafeBytes({ ByteSearch.contains(Array(activeMimeBase64.utf8), in: $0) })
      || ByteSearch.contains(Array("ActiveMime".utf8), in: head)
    {
      return "MHTML document with an ActiveMime part (a VBA project)"
    }
    if mimeHeaderValues("content-location", in: unfolded).contains(where: { isEditData(percentDecoded($0)) }) {
      return "MHTML document with an ActiveMime part (editdata.mso)"
    }
    if mimeHeaderValues("content-type", in: unfolded).contains(where: { $0.hasPrefix("application/x-mso") }) {
      return "MHTML document with an ActiveMime part (application/x-mso)"
    }
    // Quoted-printable: `=` at a line's end joins it to the next.
    if text.replacing("=\n", with: "").contains("edit-time-data") {
      return "MHTML document with Edit-Time-Data (a VBA project)"
    }
    return nil
  }

  /// Whether lowercased `text` is a MIME message, as Word reads one: a `MIME-Version:` line or a
  /// `Content-Type: multipart/…` line.
  static func isMIME(_ text: String) -> Bool {
    !mimeHeaderValues("mime-version", in: text).isEmpty
      || mimeHeaderValues("content-type", in: text).contains { $0.hasPrefix("multipart/") }
  }

  /// The values of every header line `name:` in lowercased `text` (a MIME message's own headers
  /// and its parts'), unquoted and trimmed.
  static func mimeHeaderValues(_ name: String, in text: String) -> [String] {
    text.split(separator: "\n").compactMap { line in
      let trimmed = line.trimmingBlanks()
      guard trimmed.hasPrefix(name + ":") else { return nil }
      return String(trimmed.dropFirst(name.count + 1).trimmingBlanks().filter { $0 != "\"" && $0 != "'" })
    }
  }

  /// `value` with its `%XX` escapes replaced by the bytes they stand for.
  static func percentDecoded(_ value: String) -> String {
    guard value.contains("%") else { return value }
    var bytes: [UInt8] = []
    var rest = Array(value.utf8)[...]
    while let byte = rest.popFirst() {
      if byte == UInt8(ascii: "%"), rest.count >= 2, let escaped = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) {
        bytes.append(escaped)
        rest = rest.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self).lowercased()
  }
}
