import Foundation
import Testing

@testable import UniformTypes

/// Link files (`.url`, `.website`, `.webloc`) are judged by the URL they hold, as a URL item is.
@Suite("Link files")
struct LinkFileTests {
  static let registry = TypeRegistry.system()
  static let policy = Result { try TypePolicy(registry: registry, declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  static func shortcut(_ lines: String...) -> [UInt8] { Array(lines.joined(separator: "\r\n").utf8) + [0x0D, 0x0A] }

  static func webloc(_ url: String) -> [UInt8] {
    Array(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
      \t<key>URL</key>
      \t<string>\(url)</string>
      </dict>
      </plist>

      """.utf8)
  }

  func verdict(_ name: String, _ bytes: [UInt8]) throws -> Verdict {
    try Self.policy.get().check(name: name, head: bytes, sniffer: try Self.sniffer.get()).verdict
  }

  @Test(
    "a link file whose URL a URL item could not hold, or whose URL or icon is a UNC path or file:, is refused as invalid-link",
    arguments: [
      ("evil.url", shortcut("[InternetShortcut]", "URL=javascript:alert(1)"), "its URL uses the javascript: scheme"),
      ("evil.url", shortcut("[InternetShortcut]", "URL=file:///C:/Windows/System32/calc.exe"), "its URL is a file: URL"),
      ("evil.url", shortcut("[InternetShortcut]", "URL=data:text/html,<script>x</script>"), "its URL uses the data: scheme"),
      ("evil.url", shortcut("[InternetShortcut]", "URL=ms-msdt:/id PCWDiagnostic"), "its URL is not one URL"),
      ("evil.url", shortcut("[InternetShortcut]", #"URL=\\attacker.example\share\doc.exe"#), "its URL is a UNC path"),
      (
        "icon.url",
        shortcut("[InternetShortcut]", "URL=https://example.org/", #"IconFile=\\attacker.example\share\icon.ico"#, "IconIndex=1"),
        "its IconFile is a UNC path"
      ),
      (
        "icon.url", shortcut("[InternetShortcut]", "URL=https://example.org/", "IconFile=file://attacker.example/i.ico"),
        "its IconFile is a file: URL"
      ),
      (
        "guid.url", shortcut("[{000214A0-0000-0000-C000-000000000046}]", "Prop3=19,11", "[internetshortcut]", "url = search-ms:query=x"),
        "its URL uses the search-ms: scheme"
      ),
      ("base.url", shortcut("[DEFAULT]", "BASEURL=javascript:x", "[InternetShortcut]", "URL=https://example.org/"), "its BASEURL uses"),
      ("empty.url", shortcut("[InternetShortcut]", "IconIndex=0"), "it holds no URL"),
      ("photo.url", SampleBytes.png, "it holds no URL"),
      ("site.website", shortcut("[InternetShortcut]", "URL=vbscript:msgbox(1)"), "its URL uses the vbscript: scheme"),
      ("evil.webloc", webloc("file:///Applications/Calculator.app"), "its URL is a file: URL"),
      ("evil.webloc", webloc("javascript:alert(1)"), "its URL uses the javascript: scheme"),
      ("nothing.webloc", SampleBytes.utf8("just text\n"), "it holds no URL"),
      ("bare.url", SampleBytes.utf8("javascript:alert(1)\n"), "its URL uses the javascript: scheme"),
      ("bare.url", SampleBytes.utf8(#"\\attacker.example\share\doc.exe"# + "\r\n"), "its URL is a UNC path"),
      ("two.url", SampleBytes.utf8("https://example.org/\nhttps://example.net/\n"), "it holds no URL"),
      ("words.url", SampleBytes.utf8("see the teams page\n"), "it holds no URL"),
      ("shortcut", shortcut("[InternetShortcut]", "URL=javascript:alert(1)"), "its URL uses the javascript: scheme"),
      // Review 35: Explorer loads a folder's icon as it shows the folder.
      ("desktop.ini", shortcut("[.ShellClassInfo]", #"IconResource=\\attacker.example\share\i.ico,0"#), "its IconResource is a UNC path"),
      ("Desktop.INI", shortcut("[.ShellClassInfo]", #"IconFile="//attacker.example/share/i.ico""#), "its IconFile is a UNC path"),
      ("desktop.ini", shortcut("[.ShellClassInfo]", "IconFile=file://attacker.example/i.ico"), "its IconFile is a file: URL"),
      // Review 43: quotes Windows takes off, and the module of an indirect string.
      (
        "dq.url", shortcut("[InternetShortcut]", "URL=https://example.org/", #"IconFile="\\198.18.0.5\s\i.ico""#),
        "its IconFile is a UNC path"
      ),
      (
        "sq.url", shortcut("[InternetShortcut]", "URL=https://example.org/", #"IconFile='\\198.18.0.5\s\i.ico'"#),
        "its IconFile is a UNC path"
      ),
      ("dq.website", shortcut("[InternetShortcut]", "URL=https://example.org/", #"IconFile="file://198.18.0.5/i.ico""#), "a file: URL"),
      ("q.url", shortcut("[InternetShortcut]", #"URL="file:///C:/Windows/System32/calc.exe""#), "its URL is a file: URL"),
      ("desktop.ini", shortcut("[.ShellClassInfo]", #"IconResource='\\198.18.0.5\s\i.ico',0"#), "its IconResource is a UNC path"),
      (
        "desktop.ini", shortcut("[.ShellClassInfo]", #"LocalizedResourceName=@\\198.18.0.5\s\x.dll,-101"#),
        "its LocalizedResourceName is a UNC path"
      ),
      ("desktop.ini", shortcut("[.ShellClassInfo]", #"InfoTip=@//198.18.0.5/s/x.dll,-12"#), "its InfoTip is a UNC path"),
    ] as [(String, [UInt8], String)])
  func refused(name: String, bytes: [UInt8], words: String) throws {
    let verdict = try verdict(name, bytes)
    #expect(!verdict.accepted && verdict.rule == .invalidLink && verdict.remedy == nil, "\(name): \(verdict.reason)")
    #expect(verdict.reason.hasPrefix("rejected: does not accept the link in \(name): "), "\(verdict.reason)")
    #expect(verdict.reason.contains(words), "\(name): \(verdict.reason)")
  }

  @Test(
    "a link file whose URL a URL item may hold is accepted, with an icon on the web or this disk",
    arguments: [
      ("site.url", shortcut("[InternetShortcut]", "URL=https://example.org/page?a=1"), "com.microsoft.internet-shortcut"),
      (
        "site.url",
        shortcut(
          "[{000214A0-0000-0000-C000-000000000046}]", "Prop3=19,11", "[InternetShortcut]", "IDList=",
          "URL=https://example.org/", "IconFile=https://example.org/favicon.ico", "IconIndex=1"),
        "com.microsoft.internet-shortcut"
      ),
      (
        "local-icon.url", shortcut("[InternetShortcut]", "URL=mailto:anna@example.org", #"IconFile=C:\Windows\System32\shell32.dll"#),
        "com.microsoft.internet-shortcut"
      ),
      ("site.webloc", webloc("https://example.org/"), "com.apple.web-internet-location"),
      ("empty.url", [], "com.microsoft.internet-shortcut"),
      // gettext's teams.url (in /usr/share/gettext/projects/*): a URL alone on one line.
      ("teams.url", SampleBytes.utf8("https://i18n.kde.org/teams/index.shtml\n"), "com.microsoft.internet-shortcut"),
      // A .txt holding a shortcut is opened as text, as a text snippet of the same bytes is stored.
      ("notes.txt", shortcut("[InternetShortcut]", "URL=javascript:alert(1)"), "com.microsoft.internet-shortcut"),
      // A folder's settings with its icon on this disk, and another name holding a UNC icon.
      ("desktop.ini", shortcut("[.ShellClassInfo]", #"IconResource=C:\Windows\System32\imageres.dll,-3"#), ""),
      (
        "desktop.ini",
        shortcut("[.ShellClassInfo]", #"LocalizedResourceName=@%SystemRoot%\system32\shell32.dll,-21770"#, "InfoTip=Photos"), ""
      ),
      ("quoted.url", shortcut("[InternetShortcut]", #"URL="https://example.org/""#), "com.microsoft.internet-shortcut"),
      ("settings.ini", shortcut("[.ShellClassInfo]", #"IconResource=\\attacker.example\share\i.ico,0"#), ""),
    ] as [(String, [UInt8], String)])
  func accepted(name: String, bytes: [UInt8], type: String) throws {
    let verdict = try verdict(name, bytes)
    #expect(verdict.accepted && (type.isEmpty || verdict.type == TypeIdentifier(type)), "\(name): \(verdict.reason)")
  }

  @Test("a binary property list web location is read too, and a link file longer than the head is refused")
  func binaryWeblocAndTruncation() throws {
    let binary = try PropertyListSerialization.data(
      fromPropertyList: ["URL": "javascript:alert(1)"], format: .binary, options: 0)
    let refused = try verdict("evil.webloc", Array(binary))
    #expect(!refused.accepted && refused.rule == .invalidLink, "\(refused.reason)")
    let good = try PropertyListSerialization.data(fromPropertyList: ["URL": "https://example.org/"], format: .binary, options: 0)
    #expect(LinkFile.problem(in: Array(good), format: .webLocation) == nil)
    let head = Self.shortcut("[InternetShortcut]", "URL=https://example.org/")
    let long = try Self.policy.get().judge(name: "long.url", head: head, totalSize: 100_000, sniffer: try Self.sniffer.get())
    #expect(!long.accepted && long.rule == .invalidLink && long.reason.contains("too long"), "\(long.reason)")
  }

  @Test("the daemon's path (judge on the head) refuses what check refuses, with the same reason")
  func sameVerdictOnTheDaemonsPath() throws {
    let bytes = Self.shortcut("[InternetShortcut]", "URL=javascript:alert(1)")
    let judged = try Self.policy.get().judge(name: "evil.url", head: bytes, sniffer: try Self.sniffer.get())
    #expect(judged == (try verdict("evil.url", bytes)))
    // The same URL sent as a URL item is refused for the same cause.
    let item = try Self.policy.get().judge(name: "", kind: .url, head: Array("javascript:alert(1)".utf8), sniffer: try Self.sniffer.get())
    #expect(item.rule == .invalidText && item.reason.contains("uses the javascript: scheme"))
  }
}
