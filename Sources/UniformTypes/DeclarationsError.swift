import TextEscaping

/// A declarations file that cannot be used, saying where and what is wrong.
///
/// `description` reads `<source>: <key path>: <message>`, for example
/// `Declarations.plist: UTExportedTypeDeclarations[1].UTTypeConformsTo: expected a string or an
/// array of strings, found an integer`. Values from the file are escaped.
package struct DeclarationsError: Error, Sendable, Equatable, CustomStringConvertible {
  package enum Kind: String, Sendable, Codable {
    /// The file could not be read (errno in `message`).
    case unreadable
    /// Not a property list at all; `line` when it could be located.
    case invalidPlist
    /// A value of the wrong plist type.
    case wrongType
    /// A required key is absent.
    case missingKey
    /// A key share does not know (typos would otherwise silently weaken the policy).
    case unknownKey
    /// A value of the right type but not acceptable (empty name, bad extension...).
    case invalidValue
    /// A type identifier that is neither built in, declared nor a dynamic MIME identifier.
    case unknownType
    /// An identifier that is not reverse-DNS.
    case invalidIdentifier
    /// Two declarations clash, or one redeclares a built-in type.
    case conflict
    /// A conformance cycle.
    case cycle
  }

  package var kind: Kind
  /// The file (path) or a name for in-memory data.
  package var source: String
  /// Where in the file: `CFBundleDocumentTypes[0].LSItemContentTypes[2]`; empty for the whole file.
  package var keyPath: String
  /// What is wrong, in one sentence.
  package var message: String
  /// The 1-based line, for invalid plists when known.
  package var line: Int?

  package init(kind: Kind, source: String, keyPath: String, message: String, line: Int? = nil) {
    self.kind = kind
    self.source = source
    self.keyPath = keyPath
    self.message = message
    self.line = line
  }

  package var description: String {
    var text = Escaping.escaped(source, maximumLength: 300)
    if let line { text += ":\(line)" }
    if !keyPath.isEmpty { text += ": " + keyPath }
    return text + ": " + message
  }
}
