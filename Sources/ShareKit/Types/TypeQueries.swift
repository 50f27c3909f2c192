import UniformTypes

/// What `share types` asks of this home's type rules.
extension TypeGate {
  /// The effective declarations: accepted, excluded and declared types, and where they came from.
  public var declarationsReport: DeclarationsReport { policy.declarationsReport }

  /// One type's conformance chain, tags and verdict. `query` is a type identifier
  /// (`public.jpeg`), a file extension (`.jpg`) or a MIME type (`image/jpeg`); nil when no such
  /// type is known.
  public func report(for query: String) -> TypeReport? {
    let identifier: TypeIdentifier
    if query.hasPrefix(".") {
      identifier = registry.type(forFilenameExtension: String(query.dropFirst()))
    } else if query.contains("/") {
      identifier = registry.type(forMIMEType: query)
    } else {
      identifier = TypeIdentifier(rawValue: query)
    }
    return policy.report(for: identifier)
  }

  /// How this receiver would judge the file or folder at `path`: by its name, then its content.
  public func check(path: String) throws -> CheckReport {
    try policy.check(path: path, sniffer: sniffer)
  }
}
