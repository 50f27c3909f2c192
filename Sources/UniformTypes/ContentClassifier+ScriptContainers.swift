/// Empty script containers in OpenDocument XML. Every OpenOffice.org 1.x `content.xml` carries
/// an empty `<office:script/>`, and LibreOffice writes an embedded `Standard` library with no
/// module into a document whose Basic container was ever created (its own `CREDITS.fodt`):
/// neither holds code nor names any (review 33, finding 7: both were refused as "macros").
/// What a container holds beyond that (a module, source code, a linked library, text, a comment)
/// still makes it one.
extension ContentClassifier {
  /// Whether the `script` or `library-embedded` element whose qualified name is `name` is empty;
  /// `after` is the bytes from the end of its name on. `script` may hold `libraries` and empty
  /// `library-embedded` elements; `library-embedded` nothing. Blanks are nothing; anything the
  /// bytes end before deciding is something.
  static func isEmptyScriptContainer(_ after: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer, local: [UInt8]) -> Bool {
    guard let content = contentStart(after, from: 0) else { return true }
    guard content > 0 else { return false }
    var index = content
    while true {
      while index < after.count, isBlank(after[index]) { index += 1 }
      guard index < after.count, after[index] == UInt8(ascii: "<") else { return false }
      if closingTagEnd(after, at: index, name: Array(name)) != nil { return true }
      // `script` holds only the Basic container's frame: `libraries` and libraries with no module.
      guard local.elementsEqual(scriptName), let next = emptyLibraryPartEnd(after, at: index) else { return false }
      index = next
    }
  }

  /// Where the content of the element whose start tag runs on at `from` begins (past its `>`);
  /// nil when the tag closes itself (`/>`), 0 when the tag does not end in the bytes.
  private static func contentStart(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
    let end = tagEnd(bytes, from: from)
    guard end < bytes.count else { return 0 }
    return end > from && bytes[end - 1] == UInt8(ascii: "/") ? nil : end + 1
  }

  /// Where the end tag `</name>` at `index` ends (past its `>`); nil when there is none there.
  private static func closingTagEnd(_ bytes: UnsafeRawBufferPointer, at index: Int, name: [UInt8]) -> Int? {
    let start = index + 2
    guard start + name.count <= bytes.count, bytes[index + 1] == UInt8(ascii: "/"),
      UnsafeRawBufferPointer(rebasing: bytes[start..<(start + name.count)]).elementsEqual(name)
    else { return nil }
    var end = start + name.count
    while end < bytes.count, isBlank(bytes[end]) { end += 1 }
    return end < bytes.count && bytes[end] == UInt8(ascii: ">") ? end + 1 : nil
  }

  /// Where the tag at `index` ends when it is a `libraries` start or end tag, or a whole
  /// `library-embedded` element with nothing in it; nil for anything else.
  private static func emptyLibraryPartEnd(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
    let closing = index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/")
    var end = index + (closing ? 2 : 1)
    let start = end
    while end < bytes.count, !isBlank(bytes[end]), ![UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "<")].contains(bytes[end]) {
      end += 1
    }
    let name = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    let local = name.firstIndex(of: UInt8(ascii: ":")).map { UnsafeRawBufferPointer(rebasing: name[($0 + 1)...]) } ?? name
    if local.elementsEqual(librariesName) {
      let tag = tagEnd(bytes, from: end)
      return tag < bytes.count ? tag + 1 : nil
    }
    guard !closing, local.elementsEqual(libraryEmbeddedName) else { return nil }
    guard let content = contentStart(bytes, from: end) else { return tagEnd(bytes, from: end) + 1 }
    guard content > 0 else { return nil }
    var close = content
    while close < bytes.count, isBlank(bytes[close]) { close += 1 }
    return closingTagEnd(bytes, at: close, name: Array(name))
  }

  private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

  static let scriptName = Array("script".utf8)
  static let libraryEmbeddedName = Array("library-embedded".utf8)
  private static let librariesName = Array("libraries".utf8)
}
