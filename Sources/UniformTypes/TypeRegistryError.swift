import TextEscaping

/// A declaration `TypeRegistry.adding(_:)` refused.
package struct TypeRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The position of the declaration in the array passed to `adding(_:)`.
  package var index: Int
  package var identifier: TypeIdentifier
  package var problem: Problem

  package enum Problem: Sendable, Equatable {
    case invalidIdentifier
    case duplicate(firstIndex: Int)
    case alreadyDeclared(TypeOrigin)
    case noParent
    case unknownParent(TypeIdentifier)
    case cycle([TypeIdentifier])
    case invalidExtension(String)
    case invalidMIMEType(String)
    case extensionClaimedTwice(String, TypeIdentifier)
    case mimeTypeClaimedTwice(String, TypeIdentifier)
  }

  package var description: String {
    let id = Escaping.quoted(identifier.rawValue)
    switch problem {
    case .invalidIdentifier:
      return "\(id) is not a reverse-DNS identifier (labels of letters, digits and hyphens separated by dots, e.g. com.example.note)"
    case .duplicate(let first):
      return "\(id) is declared twice (first at index \(first))"
    case .alreadyDeclared(let origin):
      return "\(id) is already declared (\(origin)); declare an identifier of your own"
    case .noParent:
      return "\(id) conforms to nothing; name at least one type such as public.data or public.plain-text"
    case .unknownParent(let parent):
      return "\(id) conforms to \(Escaping.quoted(parent.rawValue)), which is not declared"
    case .cycle(let path):
      return "conformance cycle: " + path.map { Escaping.escaped($0.rawValue) }.joined(separator: " → ")
    case .invalidExtension(let ext):
      return "\(Escaping.quoted(ext)) is not a filename extension (no leading dot, no slash, wildcard, blank or control character)"
    case .invalidMIMEType(let mime):
      return "\(Escaping.quoted(mime)) is not a MIME type of the form type/subtype"
    case .extensionClaimedTwice(let ext, let other):
      return "extension \(Escaping.quoted(ext)) is also claimed by \(other)"
    case .mimeTypeClaimedTwice(let mime, let other):
      return "MIME type \(Escaping.quoted(mime)) is also claimed by \(other)"
    }
  }
}
