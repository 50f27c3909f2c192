/// The types shared-mime-info and libmagic name that no declaration does
/// (`dyn.mime.<type>/<subtype>`): what they conform to.
extension TypeRegistry {
  /// Parents of a MIME type with no declared identifier: its shared-mime-info `sub-class-of`
  /// types, plus the type its media type implies (`text/*` → `public.plain-text`, `image/*` →
  /// `public.image`, `audio/*` → `public.audio`, `video/*` → `public.movie`, `font/*` →
  /// `public.font`, and when shared-mime-info gives no parent `*+xml` → `public.xml`, `*+json` →
  /// `public.json`, `*+zip` → `public.zip-archive`), else `public.data`. A `sub-class-of application/x-executable`
  /// (how shared-mime-info marks interpreted programs) becomes `public.script` for textual types
  /// and `public.executable` otherwise.
  func dynamicParents(of mime: String) -> [TypeIdentifier] {
    var result: [TypeIdentifier] = []
    let media = MIMEType.mediaType(of: mime)
    let subclassParents = mimeDatabase?.subclasses[mime] ?? []
    let textual = media == "text" || subclassParents.contains("text/plain")
    for parent in subclassParents {
      let id: TypeIdentifier
      if parent == "application/x-executable" {
        id = textual ? .script : .executable
      } else {
        id = type(forMIMEType: parent)
      }
      if !result.contains(id) { result.append(id) }
    }
    let implied: TypeIdentifier?
    switch media {
    case "text": implied = .plainText
    case "image": implied = .image
    case "audio": implied = .audio
    case "video": implied = .movie
    case "font": implied = .font
    case "inode": implied = .item
    // A structured suffix says what the content is only when shared-mime-info gives no parent:
    // its `…main+xml` types (Visio's) name a ZIP package after its main part.
    default:
      if !subclassParents.isEmpty {
        implied = nil
      } else if mime.hasSuffix("+xml") {
        implied = .xml
      } else if mime.hasSuffix("+json") {
        implied = .json
      } else if mime.hasSuffix("+zip") {
        implied = .zipArchive
      } else {
        implied = nil
      }
    }
    if let implied, !result.contains(implied) { result.append(implied) }
    // Fonts and archives shared-mime-info knows that no declaration names: fonts and archives,
    // as their declared kin are (review 28: an X11 PCF font and a .tar.lz4 were "Other files").
    if let family = Self.family(ofUndeclared: mime), !result.contains(family) { result.append(family) }
    if result.isEmpty { result.append(.data) }
    return result
  }

  /// The family of a font or archive MIME type no declaration names, or nil.
  static func family(ofUndeclared mime: String) -> TypeIdentifier? {
    if mime.hasPrefix("application/x-font-") { return .font }
    return undeclaredArchives.contains(mime) ? .archive : nil
  }

  /// Archive and compression formats shared-mime-info knows and no declaration names; the tar
  /// archives compressed with them (`application/x-lz4-compressed-tar`, …) are their subclasses.
  static let undeclaredArchives: Set<String> = [
    "application/x-lz4", "application/x-lzma", "application/x-lzop", "application/x-compress", "application/x-arj",
    "application/x-archive", "application/x-lha", "application/x-lhz", "application/x-zoo", "application/x-stuffit",
    "application/x-stuffitx", "application/x-ace", "application/x-xar", "application/x-ms-wim", "application/x-alz",
    "application/x-bzip3", "application/x-par2", "application/x-sv4cpio", "application/x-sv4crc",
  ]
}
