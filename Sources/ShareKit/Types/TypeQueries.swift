import UniformTypes

/// What `share types` asks of this home's type rules.
extension TypeGate {
  /// The effective declarations: accepted, excluded and declared types, and where they came from.
  package var declarationsReport: DeclarationsReport { policy.declarationsReport }

  /// One type's conformance chain, tags and verdict. `query` is a type identifier
  /// (`public.jpeg`), a file extension (`.jpg`) or a MIME type (`image/jpeg`).
  /// - Throws: `ShareError.configuration` when it names no known type.
  package func report(for query: String) throws(ShareError) -> TypeReport {
    let identifier: TypeIdentifier
    do {
      identifier = try policy.registry.identifier(forQuery: query)
    } catch {
      throw .configuration("\(error.message) (see 'share types')")
    }
    guard let report = policy.report(for: identifier) else {
      throw .configuration("no type \(identifier) is known (see 'share types')")
    }
    return report
  }

  /// How this receiver would judge the file or folder at `path`: by its name, then its content.
  package func check(path: String) throws(FileReadError) -> CheckReport {
    try policy.check(path: path, sniffer: sniffer)
  }

  /// A type's description ("PNG image"), and its plural as lists name kinds ("PNG images").
  package func describe(_ type: TypeIdentifier) -> String { policy.registry.describe(type) }
  package func describePlural(_ type: TypeIdentifier) -> String { policy.registry.describePlural(type) }
}
