/// Where a type declaration comes from.
package struct TypeOrigin: Sendable, Codable, Equatable, Hashable, CustomStringConvertible {
  /// `builtin`, `shared-mime-info`, `dynamic` or `declarations`.
  package var kind: Kind
  /// For `declarations`, the declarations file (path or name); for `shared-mime-info`, the database directory.
  package var source: String?

  package enum Kind: String, Sendable, Codable {
    /// Compiled into share (BuiltinTypes.swift).
    case builtin
    /// A MIME type from the freedesktop shared-mime-info database that has no declared identifier.
    case sharedMimeInfo = "shared-mime-info"
    /// A MIME type known to nobody (for example only reported by libmagic).
    case dynamic
    /// An exported or imported declaration in a declarations file.
    case declarations
  }

  package init(kind: Kind, source: String? = nil) {
    self.kind = kind
    self.source = source
  }

  package static let builtin = TypeOrigin(kind: .builtin)
  package static let dynamic = TypeOrigin(kind: .dynamic)

  package var description: String {
    if let source { return "\(kind.rawValue) (\(source))" }
    return kind.rawValue
  }
}

/// A type: its identifier, what it conforms to, and its tags.
///
/// Mirrors an entry of `UTExportedTypeDeclarations`: `UTTypeIdentifier`, `UTTypeDescription`,
/// `UTTypeConformsTo`, and `UTTypeTagSpecification` (`public.filename-extension`,
/// `public.mime-type`). The first extension and MIME type are the preferred ones.
package struct TypeDeclaration: Sendable, Codable, Equatable {
  package var identifier: TypeIdentifier
  /// A short human description ("PNG image").
  package var description: String
  /// The direct parents in the conformance graph.
  package var conformsTo: [TypeIdentifier]
  /// Lower-case filename extensions without the dot; may contain dots (`tar.gz`).
  package var filenameExtensions: [String]
  /// Lower-case MIME types, preferred first, then aliases.
  package var mimeTypes: [String]
  package var origin: TypeOrigin
  /// Whether content sniffing recognises this type positively whenever the bytes really are of
  /// this type (PNG, PDF, ZIP, ELF, text...). A name claiming such a type needs content that
  /// shows it: generic content (unrecognised data, a bare ZIP) does not confirm it.
  package var recognizedByContent: Bool
  /// Whether a file of this type may be plain text as well as binary (ASCII STL, PLY, DXF):
  /// libmagic's plain text confirms such a name, as unrecognised data does.
  package var hasTextForm: Bool
  /// Whole file names that mean this type whatever their extension says (`go.mod`, which
  /// shared-mime-info takes for a MOD tracker song); built-in types only.
  package var filenames: [String]

  package init(
    identifier: TypeIdentifier, description: String, conformsTo: [TypeIdentifier],
    filenameExtensions: [String] = [], mimeTypes: [String] = [], origin: TypeOrigin = .builtin,
    recognizedByContent: Bool = false, hasTextForm: Bool = false, filenames: [String] = []
  ) {
    self.identifier = identifier
    self.description = description
    self.conformsTo = conformsTo
    self.filenameExtensions = filenameExtensions.map { $0.lowercased() }
    self.mimeTypes = mimeTypes.map { $0.lowercased() }
    self.origin = origin
    self.recognizedByContent = recognizedByContent
    self.hasTextForm = hasTextForm
    self.filenames = filenames
  }
}
