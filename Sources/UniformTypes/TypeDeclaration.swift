/// Where a type declaration comes from.
public struct TypeOrigin: Sendable, Codable, Equatable, Hashable, CustomStringConvertible {
  /// `builtin`, `shared-mime-info`, `dynamic` or `declarations`.
  public var kind: Kind
  /// For `declarations`, the declarations file (path or name); for `shared-mime-info`, the database directory.
  public var source: String?

  public enum Kind: String, Sendable, Codable {
    /// Compiled into share (BuiltinTypes.swift).
    case builtin
    /// A MIME type from the freedesktop shared-mime-info database that has no declared identifier.
    case sharedMimeInfo = "shared-mime-info"
    /// A MIME type known to nobody (for example only reported by libmagic).
    case dynamic
    /// An exported or imported declaration in a declarations file.
    case declarations
  }

  public init(kind: Kind, source: String? = nil) {
    self.kind = kind
    self.source = source
  }

  public static let builtin = TypeOrigin(kind: .builtin)
  public static let dynamic = TypeOrigin(kind: .dynamic)

  public var description: String {
    if let source { return "\(kind.rawValue) (\(source))" }
    return kind.rawValue
  }
}

/// A type: its identifier, what it conforms to, and its tags.
///
/// Mirrors an entry of `UTExportedTypeDeclarations`: `UTTypeIdentifier`, `UTTypeDescription`,
/// `UTTypeConformsTo`, and `UTTypeTagSpecification` (`public.filename-extension`,
/// `public.mime-type`). The first extension and MIME type are the preferred ones.
public struct TypeDeclaration: Sendable, Codable, Equatable {
  public var identifier: TypeIdentifier
  /// A short human description ("PNG image").
  public var description: String
  /// The direct parents in the conformance graph.
  public var conformsTo: [TypeIdentifier]
  /// Lower-case filename extensions without the dot; may contain dots (`tar.gz`).
  public var filenameExtensions: [String]
  /// Lower-case MIME types, preferred first, then aliases.
  public var mimeTypes: [String]
  public var origin: TypeOrigin
  /// Whether content sniffing recognises this type positively whenever the bytes really are of
  /// this type (PNG, PDF, ZIP, ELF, text...). A name claiming such a type needs content that
  /// shows it: generic content (unrecognised data, a bare ZIP) does not confirm it.
  public var recognizedByContent: Bool

  public init(
    identifier: TypeIdentifier, description: String, conformsTo: [TypeIdentifier],
    filenameExtensions: [String] = [], mimeTypes: [String] = [], origin: TypeOrigin = .builtin,
    recognizedByContent: Bool = false
  ) {
    self.identifier = identifier
    self.description = description
    self.conformsTo = conformsTo
    self.filenameExtensions = filenameExtensions.map { $0.lowercased() }
    self.mimeTypes = mimeTypes.map { $0.lowercased() }
    self.origin = origin
    self.recognizedByContent = recognizedByContent
  }
}
