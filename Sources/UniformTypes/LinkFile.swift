import Foundation
import TextEscaping

/// What a link file holds: the URL a click on it opens, and where it takes its icon from. Pure:
/// reads bytes already in memory.
///
/// An Internet shortcut (`.url`, `.website`) is ini text: `[InternetShortcut]` then `URL=…`,
/// perhaps `IconFile=…`; Windows reads its keys and groups ignoring case and blanks around `=`.
/// Some `.url` files hold only a URL on one line (gettext's `teams.url`): that URL is the link.
/// A web location (`.webloc`, `.inetloc`) is a property list, XML or binary, whose `URL` string is
/// the link. A link file is opened with a click, as a URL item is, so its URL must be one a URL
/// item may hold (`URLItemRule`): the same bytes get the same answer however they are sent. A UNC
/// path (`\\host\share\…`) or a `file:` URL in its URL or icon would have Windows connect to that
/// host (handing it the user's NTLM hash) when the file is opened or merely shown in a folder.
package enum LinkFile {
  /// How a link file is written.
  package enum Format: Sendable {
    /// `.url`, `.website`: ini text with an `[InternetShortcut]` group.
    case internetShortcut
    /// `.webloc`, `.inetloc`: a property list with a `URL` string.
    case webLocation
    /// `desktop.ini`: a folder's settings for Explorer, ini text whose `IconResource=` or
    /// `IconFile=` Explorer loads when it shows the folder (review 35: a UNC icon was accepted).
    case folderSettings
  }

  /// Why the link file in `head` may not be accepted, or nil when its URL may be.
  /// `truncated`: the file goes on past `head`, so what follows was not seen.
  package static func problem(in head: UnsafeRawBufferPointer, format: Format, truncated: Bool) -> String? {
    if truncated { return "is too long for a link file (over \(head.count / 1024) KiB)" }
    switch format {
    case .internetShortcut: return internetShortcutProblem(text(head))
    case .webLocation: return webLocationProblem(Data(head))
    case .folderSettings: return folderSettingsProblem(text(head))
    }
  }

  /// A path in any of its keys that reaches another host (Explorer loads `IconResource=`,
  /// `IconFile=`, and the module of an indirect string, `LocalizedResourceName=@\\host\x.dll,-101`,
  /// as it shows the folder), quoted or not.
  private static func folderSettingsProblem(_ text: String) -> String? {
    iniEntries(text).lazy.compactMap { remotePathProblem($0.value, key: shownKey($0.key)) }.first
  }

  /// How a key is named in a reason: as Windows spells the keys it reads, else as written.
  private static func shownKey(_ key: String) -> String {
    let known = [
      "iconresource": "IconResource", "iconfile": "IconFile", "infotip": "InfoTip",
      "localizedresourcename": "LocalizedResourceName", "url": "URL", "baseurl": "BASEURL",
    ]
    return known[key] ?? key
  }

  /// A value as Windows' ini reading hands it over: one pair of enclosing quotes, single or
  /// double, taken off (`GetPrivateProfileString`).
  static func unquoted(_ value: String) -> String {
    let value = value.trimmingBlanks()
    guard value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first else { return value }
    return String(value.dropFirst().dropLast()).trimmingBlanks()
  }

  /// Where a value's path starts: past the quotes Windows takes off a value or a path within it
  /// (`"\\host\i.ico",0`: an icon location's path is unquoted before it is loaded; review 43:
  /// `IconFile="\\host\i.ico"` and `IconResource='\\host\i.ico',0` were accepted), blanks, and
  /// the `@` of an indirect string (`@\\host\x.dll,-101`, whose module Explorer loads).
  static func pathStart(_ value: String) -> String {
    String(value.drop { $0 == "\"" || $0 == "'" || $0 == "@" || $0 == " " || $0 == "\t" })
  }

  /// `problem(in:format:truncated:)` for bytes in an array.
  package static func problem(in head: [UInt8], format: Format, truncated: Bool = false) -> String? {
    head.withUnsafeBytes { problem(in: $0, format: format, truncated: truncated) }
  }

  /// The keys of an ini text, as (lowercased group, lowercased key, value), in order.
  static func iniEntries(_ text: String) -> [(group: String, key: String, value: String)] {
    var group = ""
    var entries: [(group: String, key: String, value: String)] = []
    for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
      let line = String(raw).trimmingBlanks()
      if line.hasPrefix("["), line.hasSuffix("]") {
        group = String(line.dropFirst().dropLast()).trimmingBlanks().lowercased()
      } else if let equals = line.firstIndex(of: "="), !line.hasPrefix(";") {
        entries.append((group, line[..<equals].trimmingBlanks().lowercased(), line[line.index(after: equals)...].trimmingBlanks()))
      }
    }
    return entries
  }

  private static func internetShortcutProblem(_ text: String) -> String? {
    let entries = iniEntries(text)
    guard entries.contains(where: { $0.group == "internetshortcut" && $0.key == "url" }) else {
      // A URL alone on its one line is a link all the same (gettext's `teams.url` files).
      if let url = bareURL(text) { return urlProblem(url, key: "URL") }
      return "it holds no URL (an [InternetShortcut] group with a URL= line, or a URL alone on one line)"
    }
    // The URL must be one a URL item may hold; no key may name a path on another host.
    for entry in entries {
      let isURL = entry.key == "url" || entry.key == "baseurl"
      let problem = isURL ? urlProblem(entry.value, key: shownKey(entry.key)) : remotePathProblem(entry.value, key: shownKey(entry.key))
      if let problem { return problem }
    }
    return nil
  }

  /// The text when it is one line, blanks around it aside, that names a scheme (`https:`) or is
  /// a UNC path: a URL written alone, which `urlProblem` then judges as a shortcut's URL.
  private static func bareURL(_ text: String) -> String? {
    let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !line.isEmpty, !line.contains(where: \.isNewline) else { return nil }
    if remotePathStart(line) { return line }
    guard let colon = line.firstIndex(of: ":"), let first = line.first, first.isASCII, first.isLetter,
      line[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    else { return nil }
    return line
  }

  private static func remotePathStart(_ value: String) -> Bool {
    value.hasPrefix(#"\\"#) || value.hasPrefix("//") || value.hasPrefix(#"\/"#) || value.hasPrefix(#"/\"#)
  }

  private static func webLocationProblem(_ data: Data) -> String? {
    let list = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    guard let dictionary = list as? [String: Any], let url = dictionary["URL"] as? String else {
      return "it holds no URL (a property list with a URL string)"
    }
    return urlProblem(url, key: "URL")
  }

  /// A link's URL: not a UNC path nor `file:`, and one a URL item may hold.
  private static func urlProblem(_ value: String, key: String) -> String? {
    if let problem = remotePathProblem(value, key: key) { return problem }
    guard let problem = URLItemRule.problem(with: unquoted(value)) else { return nil }
    return "its \(key) \(problem)"
  }

  /// A UNC path (`\\host\share`, also written `//host/share`) or a `file:` URL.
  private static func remotePathProblem(_ written: String, key: String) -> String? {
    let shown = Escaping.escaped(written, maximumLength: 60)
    let value = pathStart(written)
    if remotePathStart(value) {
      return "its \(key) is a UNC path (\(shown)): opening or showing the file would connect to that host"
    }
    if value.lowercased().hasPrefix("file:") {
      return "its \(key) is a file: URL (\(shown)), which a link may not hold"
    }
    return nil
  }

  /// The text of an ini file: UTF-16 with its byte-order mark, else UTF-8 (invalid bytes replaced).
  private static func text(_ head: UnsafeRawBufferPointer) -> String {
    let bytes = Array(head)
    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
      let littleEndian = bytes[0] == 0xFF
      let units = stride(from: 2, to: bytes.count - 1, by: 2).map { index in
        littleEndian
          ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8 : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
      }
      return String(decoding: units, as: UTF16.self)
    }
    return String(decoding: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes, as: UTF8.self)
  }
}
