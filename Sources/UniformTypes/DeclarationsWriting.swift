import Foundation

/// Writing declarations back as a property list, for `share types accept|exclude|forget`.
///
/// The file is an XML plist made by Foundation's `PropertyListEncoder`, in the keys `parse`
/// reads (`CFBundleDocumentTypes`, `UTExportedTypeDeclarations`, `UTImportedTypeDeclarations`,
/// `ExcludedActivityTypes`), preceded by a comment saying who wrote it. What `parse` ignores is
/// not kept: comments, icon, role and rank keys of a hand-written file.
extension Declarations {
  /// The first line of the comment `propertyList()` writes, by which `isWrittenByShare` knows its own files.
  package static let writtenMarker = "Written by 'share types'"

  /// The comment after the XML header: what the file is and how to change it.
  static let writtenComment = """
    <!--
      \(writtenMarker). These are this home's type declarations: what its Inbox accepts
      (CFBundleDocumentTypes), what it never accepts (ExcludedActivityTypes), and the types it
      declares itself. Change them with 'share types accept|exclude|forget TYPE', go back to the
      built-in default with 'share types reset', or edit this file by hand (Inbox/TYPES.md).
    -->
    """

  /// These declarations as an XML property list that `parse` reads back to the same
  /// declarations (checked before returning; `source` and the types' origins aside).
  /// - Throws: `DeclarationsError` (`invalidValue`) when they cannot be encoded, or would not
  ///   read back as they are — nothing is returned that could be written half right.
  package func propertyList() throws(DeclarationsError) -> Data {
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .xml
    let encoded: Data
    do {
      encoded = try encoder.encode(PlistFile(self))
    } catch {
      throw DeclarationsError(kind: .invalidValue, source: source, keyPath: "", message: "cannot be encoded as a property list: \(error)")
    }
    let data = Self.withComment(encoded)
    let reread = try Declarations.parse(data, source: source)
    guard reread.sameContent(as: self) else {
      throw DeclarationsError(
        kind: .invalidValue, source: source, keyPath: "",
        message: "the property list would not read back as the declarations it was made from")
    }
    return data
  }

  /// Whether `data` is a file `propertyList()` wrote (its comment is there).
  package static func isWrittenByShare(_ data: Data) -> Bool {
    data.prefix(512).range(of: Data(writtenMarker.utf8)) != nil
  }

  /// The same accepted, excluded and declared types (where they came from aside).
  package func sameContent(as other: Declarations) -> Bool {
    func plain(_ types: [TypeDeclaration]) -> [TypeDeclaration] {
      types.map {
        var type = $0
        type.origin = .builtin
        return type
      }
    }
    return documentTypes == other.documentTypes && excludedTypes == other.excludedTypes
      && plain(exportedTypes) == plain(other.exportedTypes) && plain(importedTypes) == plain(other.importedTypes)
  }

  /// `encoded` with `writtenComment` after its `<!DOCTYPE …>` line (or its first line).
  private static func withComment(_ encoded: Data) -> Data {
    let text = String(decoding: encoded, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let after = lines.firstIndex { $0.hasPrefix("<!DOCTYPE") }.map { $0 + 1 } ?? min(1, lines.count)
    lines.insert(writtenComment, at: after)
    return Data(lines.joined(separator: "\n").utf8)
  }
}

// MARK: - The file's shape

/// The top level, in `parse`'s keys; empty lists are left out.
private struct PlistFile: Encodable {
  var documentTypes: [PlistDocumentType]?
  var exportedTypes: [PlistTypeDeclaration]?
  var importedTypes: [PlistTypeDeclaration]?
  var excludedTypes: [String]?

  enum CodingKeys: String, CodingKey {
    case documentTypes = "CFBundleDocumentTypes"
    case exportedTypes = "UTExportedTypeDeclarations"
    case importedTypes = "UTImportedTypeDeclarations"
    case excludedTypes = "ExcludedActivityTypes"
  }

  init(_ declarations: Declarations) {
    func nonEmpty<T>(_ list: [T]) -> [T]? { list.isEmpty ? nil : list }
    documentTypes = nonEmpty(declarations.documentTypes.map(PlistDocumentType.init))
    exportedTypes = nonEmpty(declarations.exportedTypes.map(PlistTypeDeclaration.init))
    importedTypes = nonEmpty(declarations.importedTypes.map(PlistTypeDeclaration.init))
    excludedTypes = nonEmpty(declarations.excludedTypes.map(\.rawValue))
  }
}

private struct PlistDocumentType: Encodable {
  var name: String
  var contentTypes: [String]

  enum CodingKeys: String, CodingKey {
    case name = "CFBundleTypeName"
    case contentTypes = "LSItemContentTypes"
  }

  init(_ documentType: DocumentType) {
    name = documentType.name
    contentTypes = documentType.contentTypes.map(\.rawValue)
  }
}

private struct PlistTypeDeclaration: Encodable {
  var identifier: String
  var description: String
  var conformsTo: [String]
  var tags: PlistTags?

  enum CodingKeys: String, CodingKey {
    case identifier = "UTTypeIdentifier"
    case description = "UTTypeDescription"
    case conformsTo = "UTTypeConformsTo"
    case tags = "UTTypeTagSpecification"
  }

  init(_ declaration: TypeDeclaration) {
    identifier = declaration.identifier.rawValue
    description = declaration.description
    conformsTo = declaration.conformsTo.map(\.rawValue)
    let tags = PlistTags(
      extensions: declaration.filenameExtensions.isEmpty ? nil : declaration.filenameExtensions,
      mimeTypes: declaration.mimeTypes.isEmpty ? nil : declaration.mimeTypes)
    self.tags = tags.extensions == nil && tags.mimeTypes == nil ? nil : tags
  }
}

private struct PlistTags: Encodable {
  var extensions: [String]?
  var mimeTypes: [String]?

  enum CodingKeys: String, CodingKey {
    case extensions = "public.filename-extension"
    case mimeTypes = "public.mime-type"
  }
}
