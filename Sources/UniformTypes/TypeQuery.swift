import TextEscaping

/// Why a type a person named cannot be used: unknown, malformed, or an edit that cannot work.
package struct TypeEditError: Error, Sendable, Equatable, CustomStringConvertible {
  package enum Kind: String, Sendable, Codable {
    /// The query names no type this registry knows.
    case unknownType = "unknown-type"
    /// The type is excluded through a broader excluded type, so accepting it would change nothing.
    case excludedByParent = "excluded-by-parent"
    /// The declarations the edit would make are not valid (or the current ones are not).
    case invalidDeclarations = "invalid-declarations"
  }

  package var kind: Kind
  /// One sentence that says what is wrong and what to do.
  package var message: String

  package init(kind: Kind, message: String) {
    self.kind = kind
    self.message = message
  }

  package var description: String { message }
}

/// Naming types on a command line: what `share types show|accept|exclude|forget TYPE` take.
extension TypeRegistry {
  /// The type a person names: a type identifier (`public.jpeg`, `dyn.mime.image/x-xcf`), a
  /// filename extension with its dot (`.iso`), or a MIME type (`image/png`); canonical.
  /// - Throws: `TypeEditError` (`unknownType`) when the query names no known type. An extension
  ///   or MIME type nobody declares is unknown rather than `public.data`, so that `share types
  ///   exclude .bin` cannot exclude every file by accident.
  package func identifier(forQuery query: String) throws(TypeEditError) -> TypeIdentifier {
    let trimmed = query.trimmingBlanks()
    let shown = Escaping.escaped(trimmed, maximumLength: 80)
    func unknown(_ message: String) -> TypeEditError { TypeEditError(kind: .unknownType, message: message) }
    // Review 30 L8: "no type  is known".
    if trimmed.isEmpty {
      throw unknown("no type was given: name one by its identifier (public.jpeg), extension (.jpg) or MIME type (image/jpeg)")
    }
    if trimmed.hasPrefix(".") {
      let ext = String(trimmed.dropFirst()).lowercased()
      guard Self.isValidExtension(ext) else { throw unknown("\(shown) is not a filename extension") }
      let id = type(forFilenameExtension: ext)
      guard id != .data else { throw unknown("no type is known for the extension \(shown)") }
      return id
    }
    if trimmed.contains("/"), !trimmed.lowercased().hasPrefix(TypeIdentifier.dynamicMIMEPrefix) {
      let mime = MIMEType.normalized(trimmed)
      guard MIMEType.isValid(mime) else { throw unknown("\(shown) is not a MIME type of the form type/subtype") }
      let id = type(forMIMEType: mime)
      guard let declaration = declaration(for: id), declaration.origin.kind != .dynamic else {
        throw unknown(
          "no type is known for the MIME type \(shown) (neither built in nor in shared-mime-info); "
            + "name it \(TypeIdentifier.dynamic(mimeType: mime)) to mean it anyway")
      }
      return id
    }
    let id = TypeIdentifier(trimmed)
    if let canonical = canonicalIdentifier(id) { return canonical }
    var message = "no type \(shown) is known"
    if Self.isValidExtension(id.rawValue), type(forFilenameExtension: id.rawValue) != .data {
      message += " (did you mean .\(id.rawValue)?)"
    } else if let suggestion = Suggestions.closest(to: id.rawValue, among: declaredIdentifiers.map(\.rawValue)) {
      message += " (did you mean \(suggestion)?)"
    }
    throw unknown(message)
  }

  /// How a person names `type` on the command line: its preferred extension with the dot when
  /// that extension means exactly this type (`.iso`), else its identifier (`public.executable`).
  package func argument(for type: TypeIdentifier) -> String {
    if let ext = declaration(for: type)?.filenameExtensions.first, self.type(forFilenameExtension: ext) == type {
      return "." + ext
    }
    return type.rawValue
  }

  /// A type's description in the plural, as lists and reasons name kinds: "disk images",
  /// "Unix executables (ELF)", "plain text", "application/x-foo files".
  package func describePlural(_ type: TypeIdentifier) -> String {
    Wording.plural(describe(type))
  }
}
