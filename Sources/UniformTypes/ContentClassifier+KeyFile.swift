import TextEscaping

/// Key files (ini-style text) as GLib reads them: the first group decides what a desktop entry,
/// a Flatpak reference or an Internet shortcut is, whatever the file is called.
extension ContentClassifier {
  /// What the first group of ini-style text is.
  enum IniGroup: Equatable {
    /// `[Desktop Entry]` (or `[KDE Desktop Entry]`), `[Flatpak Ref]`, `[Flatpak Repo]` or an
    /// Internet shortcut's group, with the group line.
    case found(TypeIdentifier, String)
    /// The head of a longer item ends before any line but blank and comment ones has ended: the
    /// first group may lie beyond it.
    case beyondHead
    /// Another group first, with its line when it is short enough to be one share knows (a
    /// systemd unit's, `serviceFileType`), or a first line that is no group at all (nil).
    case other(String?)
  }

  /// The first group of `head`, read as GLib reads a key file (gkeyfile.c,
  /// `g_key_file_parse_line`): a line ends at LF, or at a NUL byte; after its leading blanks, one
  /// that is empty or starts with `#` is a comment, however many there are (review 15: the scan
  /// stopped after 200 lines). When the item goes on past its head (`truncated`) and the head
  /// ends among comments, or inside a first line `[` whose `]` it does not hold, the group may
  /// come after what share reads: `beyondHead`, unless the head has NUL bytes (binary data,
  /// such as the zeros a disk image starts with, reads as blank lines).
  static func iniGroup(_ head: UnsafeRawBufferPointer, truncated: Bool) -> IniGroup {
    var start = startsWith(head, [0xEF, 0xBB, 0xBF]) ? 3 : 0
    var hasNUL = false
    while start < head.count {
      var end = start
      while end < head.count, head[end] != UInt8(ascii: "\n") { end += 1 }
      // GLib reads a line only up to a NUL byte (a line starting with one is nothing): so does
      // this (review 14: `[Desktop Entry]\0` and a NUL line before it).
      var cut = start
      while cut < end, head[cut] != 0 { cut += 1 }
      hasNUL = hasNUL || cut < end
      var first = start
      while first < cut, isKeyFileBlank(head[first]) { first += 1 }
      start = end + 1
      if first == cut || head[first] == UInt8(ascii: "#") { continue }
      guard head[first] == UInt8(ascii: "[") else { return .other(nil) }
      var last = cut
      while last > first, isKeyFileBlank(head[last - 1]) { last -= 1 }
      let line = UnsafeRawBufferPointer(rebasing: head[first..<last])
      let text = line.count <= 64 ? String(decoding: line, as: UTF8.self) : nil
      if let text, let type = keyFileGroupType(text) { return .found(type, text) }
      let unclosed = truncated && cut == head.count && !hasNUL && !line.contains(UInt8(ascii: "]"))
      return unclosed ? .beyondHead : .other(text)
    }
    return truncated && !hasNUL ? .beyondHead : .other(nil)
  }

  /// The type a key file's group line gives.
  private static func keyFileGroupType(_ line: String) -> TypeIdentifier? {
    switch line {
    case "[Desktop Entry]", "[KDE Desktop Entry]": return .desktopEntry
    case "[Flatpak Ref]": return "org.flatpak.flatpakref"
    case "[Flatpak Repo]": return "org.flatpak.flatpakrepo"
    case "[Icon Theme]", "[X-GNOME-Metatheme]", "[Sound Theme]": return .themeDescription
    case _ where ["[internetshortcut]", "[{000214a0-0000-0000-c000-000000000046}]"].contains(line.lowercased()):
      return .internetShortcut
    default: return nil
    }
  }

  /// The shared-mime-info type of a passive key file by its first group: a systemd unit
  /// (`[Unit]`, `[Service]`, `[Install]`...) or a D-Bus service file (`[D-BUS Service]`). Both
  /// are plain text to libmagic and `*.service` to shared-mime-info, whose first glob was
  /// taken: a systemd unit was described as a D-Bus service file (review 21).
  static func serviceFileType(_ line: String) -> TypeIdentifier? {
    switch line {
    case "[D-BUS Service]": return .dynamic(mimeType: "text/x-dbus-service")
    case "[Unit]", "[Install]", "[Service]", "[Socket]", "[Timer]", "[Mount]", "[Automount]", "[Path]", "[Swap]",
      "[Slice]", "[Scope]":
      return .dynamic(mimeType: "text/x-systemd-unit")
    default: return nil
    }
  }

  /// What GLib's key-file parser skips before a line (`g_ascii_isspace`: space, tab, LF, form
  /// feed, CR; review 15: `\f[Desktop Entry]` hid the group), and vertical tab, which C's
  /// `isspace` counts. Dropped after a group's `]` as well, where GLib 2.74 allows only spaces
  /// and tabs (and older GLib anything): a blank too many only refuses more.
  private static func isKeyFileBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || (0x09...0x0D).contains(byte)
  }

  /// What a key file whose first group is a theme description's (`[Icon Theme]`,
  /// `[X-GNOME-Metatheme]`, `[Sound Theme]`: `index.theme`, `cursor.theme`) is, with the
  /// evidence: such a description when all of it is in the head, as text without NUL bytes, and
  /// no group of it is a desktop entry's or a Windows theme's; a Windows theme when a group is one
  /// of those (Windows applies a `.theme` by its groups, whatever comes first); nil otherwise
  /// (not shown: under a `.theme` name, refused as the Windows theme it may be).
  static func themeDescription(
    _ head: UnsafeRawBufferPointer, truncated: Bool, group: String
  ) -> (TypeIdentifier, String)? {
    guard !truncated, !head.contains(0) else { return nil }
    for line in String(decoding: head, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
      let trimmed = line.trimmingBlanks()
      guard trimmed.hasPrefix("["), let close = trimmed.lastIndex(of: "]") else { continue }
      let name = trimmed[trimmed.index(after: trimmed.startIndex)..<close].trimmingBlanks().lowercased()
      if name == "desktop entry" || name == "kde desktop entry" { return nil }
      if windowsThemeGroups.contains(name) || name.hasPrefix("control panel\\") || name.hasPrefix("clsid\\") {
        return ("com.microsoft.windows-theme", "Windows theme group \(Escaping.escaped(trimmed, maximumLength: 60))")
      }
    }
    return (.themeDescription, "\(group) group")
  }

  /// Whether a key file whose first group is a desktop entry's is a folder's settings that
  /// launch nothing: all of it in the head, text without NUL bytes or a `#!` line, its desktop
  /// entry groups holding only a name, a comment, an icon and `Type=Directory` (in any language)
  /// and at least the icon or the type, and no key anywhere that KConfig expands (`[$e]`: KDE
  /// ran the shell commands of an icon so written, CVE-2019-14744) nor an action group.
  static func isFolderSettings(_ head: UnsafeRawBufferPointer, truncated: Bool) -> Bool {
    guard !truncated, !head.contains(0), !startsWith(head, Array("#!".utf8)) else { return false }
    var group = ""
    var folderKey = false
    for line in String(decoding: head, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
      let trimmed = line.trimmingBlanks()
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      if trimmed.hasPrefix("[") {
        group = String(trimmed)
        if group.lowercased().hasPrefix("[desktop action") { return false }
        continue
      }
      guard let equals = trimmed.firstIndex(of: "="), !trimmed[..<equals].contains("$") else { return false }
      guard group == "[Desktop Entry]" || group == "[KDE Desktop Entry]" else { continue }
      let key = trimmed[..<equals].trimmingBlanks()
      let bare = key.firstIndex(of: "[").map { String(key[..<$0]) } ?? key
      switch bare {
      case "Name", "GenericName", "Comment", "Version", "Encoding": continue
      case "Icon": folderKey = true
      case "Type" where trimmed[trimmed.index(after: equals)...].trimmingBlanks() == "Directory": folderKey = true
      default: return false
      }
    }
    return folderKey
  }

  /// How shared-mime-info (KDE's file managers, by content) knows a desktop entry whose first
  /// group GLib would not take for one: a file starting `[Desktop Action`, `# Config File` or
  /// `# KDE Config File`, or with `[Desktop Entry]` within its first 33 bytes; KDE then reads
  /// its `[Desktop Entry]` group wherever it stands, and runs or opens what it names (review 37:
  /// such files were accepted as text). The evidence, or nil.
  static func desktopEntryStart(_ head: UnsafeRawBufferPointer) -> String? {
    for start in ["[Desktop Action", "# Config File", "# KDE Config File"] where startsWith(head, Array(start.utf8)) {
      return "starts with \(start), as KDE's desktop entries may"
    }
    let entry = Array("[Desktop Entry]".utf8)
    guard ByteSearch.firstIndex(of: entry, in: head, end: 33 + entry.count) != nil else { return nil }
    return "[Desktop Entry] group within its first 33 bytes, where KDE finds a desktop entry"
  }

  /// A Flatpak bundle or a Java Web Start launcher by the bytes GLib (shared-mime-info's magic)
  /// knows them by, whatever the name: a double click opens the installer or `javaws` (review
  /// 37: both were accepted as data or XML under any other name). With the evidence, or nil.
  static func launcherByContent(_ head: UnsafeRawBufferPointer) -> (TypeIdentifier, String)? {
    for prefix in ["flatpak", "xdg-app"] where startsWith(head, Array(prefix.utf8) + [0, 1, 0, 0x89, 0xE5]) {
      return ("org.flatpak.flatpak", "Flatpak bundle header (\(prefix))")
    }
    let jnlp = Array("<jnlp".utf8)
    guard ByteSearch.firstIndex(of: jnlp, in: head, end: 256 + jnlp.count) != nil else { return nil }
    return ("com.sun.java-web-start", "<jnlp within its first 256 bytes")
  }

  /// Groups of a Windows theme (`[Control Panel\…]` and `[CLSID\…]` ones too), lowercased.
  static let windowsThemeGroups: Set<String> = [
    "theme", "visualstyles", "masterthemeselector", "sounds", "boot", "slideshow", "metrics",
  ]
}
