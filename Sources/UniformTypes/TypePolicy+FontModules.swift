extension TypePolicy {
  /// Windows bitmap fonts: the type a `.fon` name gives.
  static let windowsFont: TypeIdentifier = "com.microsoft.windows-font"

  /// The content as judged under `name`: a resource-only NE module (no code, no entry point:
  /// `ContentClassifier.isResourceOnlyNEModule`) named `.fon` is the Windows bitmap font it is
  /// (review 18). Under any other name it stays a Windows executable, and every NE or PE with
  /// code does under any name.
  func fontModule(name: String, content: ContentType) -> ContentType {
    guard content.type == ContentClassifier.neResourceModule, registry.types(forFilename: name).contains(Self.windowsFont)
    else { return content }
    var font = content
    font.type = Self.windowsFont
    font.refinement = "resource-only NE module (no code, no entry point) named as a font"
    return font
  }
}
