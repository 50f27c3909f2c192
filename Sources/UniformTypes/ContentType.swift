import TextEscaping

/// What an item's first bytes are, as a type: libmagic's verdict mapped through the registry,
/// then sharpened by share's own checks.
package struct ContentType: Sendable, Codable, Equatable {
  /// The type the content shows.
  package var type: TypeIdentifier
  /// libmagic's MIME type (`application/x-pie-executable`).
  package var mimeType: String
  /// libmagic's description, possibly empty.
  package var magicDescription: String
  /// What share's own checks found on top of libmagic, if anything (`Office Open XML parts
  /// (word/)`, `shebang #!/bin/sh`, `AppImage signature`...).
  package var refinement: String?
  /// Whether the content is empty (no bytes at all).
  package var isEmpty: Bool
  /// Whether `type` is libmagic's guess of a script from the words in text that has no `#!`
  /// line (`require(`, `import`, `def`): a README that shows code looks like one. A guess is not
  /// proof: a name of a harmless text kind outweighs it (`TypePolicy.weighed(_:against:)`).
  package var isKeywordGuess = false

  package init(
    type: TypeIdentifier, mimeType: String, magicDescription: String, refinement: String? = nil,
    isEmpty: Bool = false
  ) {
    self.type = type
    self.mimeType = mimeType
    self.magicDescription = magicDescription
    self.refinement = refinement
    self.isEmpty = isEmpty
  }

  /// A short label for reasons: the refinement, else the first clause of libmagic's
  /// description (`ELF 64-bit LSB pie executable`), else the MIME type; escaped.
  package var label: String {
    if let refinement { return Escaping.escaped(refinement, maximumLength: 80) }
    let first = magicDescription.split(separator: ",", maxSplits: 1).first.map { $0.trimmingBlanks() } ?? ""
    if first == "data" { return "unrecognised data" }
    return Escaping.escaped(first.isEmpty ? mimeType : first, maximumLength: 80)
  }
}
