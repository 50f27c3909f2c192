/// What a URL item may hold, on the sender and on the receiver alike: one absolute URL on one
/// line (blanks and line breaks around it aside: the sender adds a newline, older ones sent
/// blanks as given), nothing blank or invisible in it, and a scheme from a short
/// list of ones that open a page, a message, a call, a place or a feed. `file:` (a path on the
/// receiver's own disk), `javascript:`, `data:` and the schemes that start local programs
/// (`ms-msdt:`, `search-ms:`, …) are refused: a `.url` file is opened with a click. Other text
/// goes as a text item.
package enum URLItemRule {
  /// The schemes a URL item may use.
  package static let schemes: Set<String> = [
    "http", "https", "ftp", "ftps", "sftp", "ssh", "git", "ws", "wss", "rtsp", "mailto", "tel", "sms", "geo",
    "magnet", "webcal", "feed", "xmpp", "irc", "ircs", "matrix", "urn", "doi", "bitcoin",
  ]

  /// Why `content` is not a URL item's, or nil when it is.
  package static func problem(with content: String) -> String? {
    let line = content.trimmingBlanks()
    guard !line.isEmpty else { return "is empty" }
    guard !line.unicodeScalars.contains(where: isBlankOrInvisible) else {
      return "is not one URL (it holds blanks, line breaks or invisible characters)"
    }
    guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
      line[..<colon].unicodeScalars.allSatisfy(isSchemeCharacter), line.unicodeScalars.first.map(isLetter) == true
    else { return "is not a URL with a scheme" }
    let scheme = line[..<colon].lowercased()
    guard schemes.contains(scheme) else {
      return "uses the \(scheme): scheme, which a URL item may not (it may use \(schemes.sorted().joined(separator: ", ")))"
    }
    if startsAnOption(authority(of: line[line.index(after: colon)...])) {
      return "has a host or user name starting with -, which the program it is handed to (ssh, git) reads as an option"
    }
    return nil
  }

  /// What follows `//` up to the path, query or fragment; empty without `//`.
  private static func authority(of rest: Substring) -> Substring {
    guard rest.hasPrefix("//") else { return "" }
    let after = rest.dropFirst(2)
    return after.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
  }

  /// Whether a part of `authority` (user, password, host, port) starts with `-`, written or
  /// percent-encoded: `ssh://-oProxyCommand=…` runs a command where a handler passes the host
  /// to ssh as its argument (CVE-2017-1000117 in git; review 37).
  private static func startsAnOption(_ authority: Substring) -> Bool {
    authority.split(omittingEmptySubsequences: false) { $0 == "@" || $0 == ":" || $0 == "[" }.contains { part in
      part.hasPrefix("-") || part.lowercased().hasPrefix("%2d")
    }
  }

  private static func isBlankOrInvisible(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x21 || (0x7F...0xA0).contains(scalar.value) || scalar.properties.isWhitespace
      || scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.generalCategory == .format
  }

  private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
    scalar.isASCII && scalar.properties.isAlphabetic
  }

  private static func isSchemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
    isLetter(scalar) || ("0"..."9").contains(scalar) || scalar == "+" || scalar == "." || scalar == "-"
  }
}
