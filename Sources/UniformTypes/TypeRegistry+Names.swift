extension TypeRegistry {
  /// The name an item is called by: the last `/` component of `path`, backslashes and all (on
  /// Linux a `\` is a name's own character); nil when `path` has none (`/`, empty).
  static func calledName(_ path: String) -> String? {
    path.split(separator: "/").last.map(String.init)
  }

  /// The last path component, without trailing dots and blanks, at most its last 1,024 bytes
  /// (cut at a scalar boundary). Works on Unicode scalars, not Characters: no grapheme
  /// breaking on the hot path, and hostile names stay linear.
  static func classifiableBaseName(_ name: String) -> String {
    let scalars = name.unicodeScalars
    var end = scalars.endIndex
    while end > scalars.startIndex {
      let before = scalars.index(before: end)
      let scalar = scalars[before]
      guard scalar == "." || scalar.properties.isWhitespace else { break }
      end = before
    }
    var start = end
    var bytes = 0
    while start > scalars.startIndex {
      let before = scalars.index(before: start)
      let scalar = scalars[before]
      if scalar == "/" || scalar == "\\" { break }
      bytes += UTF8.width(scalar)
      if bytes > 1024 { break }
      start = before
    }
    return String(scalars[start..<end])
  }
}
