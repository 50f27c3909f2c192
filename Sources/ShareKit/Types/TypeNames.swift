import UniformTypes

/// Types as people read them, and names for content that came without one: the system's type
/// registry (built-in types and shared-mime-info) and libmagic, not this home's declarations.
package enum TypeNames {
  /// A type's description ("PNG image", "plain text"), or its identifier when it has none.
  package static func describe(_ type: String) -> String {
    TypeRegistry.system().describe(TypeIdentifier(rawValue: type))
  }

  /// `base` with the extension of the type the first bytes `head` are, as the receiver would
  /// decide it (`stdin.png`, `stdin.txt`, `stdin.tar`); `base` alone when the type is unknown
  /// binary data, has no extension, or libmagic cannot be loaded.
  package static func name(_ base: String, forContent head: [UInt8]) -> String {
    guard !head.isEmpty, let sniffer = try? ContentSniffer(), let magic = try? sniffer.sniff(head) else { return base }
    let registry = TypeRegistry.system()
    // The caller reads at most a head first: a full one may be followed by more.
    let truncated = ContentSniffer.goesOnPastHead(head.count, totalSize: nil)
    let type = ContentClassifier.classify(head: head, truncated: truncated, magic: magic, registry: registry).type
    guard type != .data else { return base }
    // Text of a kind with no extension of its own (UTF-8 plain text) is still a .txt.
    let ext =
      registry.declaration(for: type)?.filenameExtensions.first
      ?? (registry.conforms(type, to: .plainText) ? "txt" : nil)
    return ext.map { "\(base).\($0)" } ?? base
  }
}
