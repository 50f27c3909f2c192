import Testing

@testable import UniformTypes

/// Review 20, finding 12: an icon theme's `index.theme` (and `cursor.theme`) was refused as a
/// desktop entry "of type application/x-theme", so a sent icon theme lost its index. A `.theme`
/// is first a Windows theme (ThemeBleed); only content that shows a freedesktop theme description
/// makes it one.
@Suite("index.theme of icon, cursor and sound themes, and Windows themes")
struct ThemeDescriptionTests {
  static let policy = Result { try TypePolicy(registry: .system(), declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  static let iconTheme = SampleBytes.utf8(
    "[Icon Theme]\nName=Adwaita\nComment=The Only One\nInherits=hicolor\nDirectories=16x16/apps,scalable/apps\n\n"
      + "[16x16/apps]\nContext=Applications\nSize=16\nType=Fixed\n\n[scalable/apps]\nSize=16\nType=Scalable\n")

  func judge(_ name: String, _ head: [UInt8], totalSize: Int64? = nil) throws -> Verdict {
    try Self.policy.get().judge(
      name: name, head: head, totalSize: totalSize ?? Int64(head.count), sniffer: try Self.sniffer.get())
  }

  @Test("an icon, cursor or sound theme's description is accepted, at the Ask and on its content")
  func themeDescriptionsAreAccepted() throws {
    let policy = try Self.policy.get()
    for (name, head) in [
      ("index.theme", Self.iconTheme), ("cursor.theme", SampleBytes.utf8("[Icon Theme]\nInherits=Adwaita\n")),
      ("index.theme", SampleBytes.utf8("# sounds\n[Sound Theme]\nName=Default\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n")),
      ("index.theme", SampleBytes.utf8("[X-GNOME-Metatheme]\nGtkTheme=Adwaita\nIconTheme=Adwaita\n")),
    ] {
      #expect(policy.judge(name: name, kind: .file).accepted, "\(name) at the Ask")
      let verdict = try judge(name, head)
      #expect(
        verdict.accepted && verdict.type == .themeDescription && verdict.decidedBy == "Text", "\(name): \(verdict.reason)")
      #expect(!verdict.reason.contains("desktop entr") && !verdict.reason.contains("application/"), "\(verdict.reason)")
    }
  }

  @Test("a .theme that does not show a theme description is refused as a Windows theme")
  func otherThemesAreWindowsThemes() throws {
    for (head, total) in [
      (SampleBytes.utf8("[Theme]\nDisplayName=Evil\n\n[VisualStyles]\nPath=\\\\host\\share\\x.msstyles\n"), nil),
      (SampleBytes.utf8("[Icon Theme]\nName=x\n\n[Control Panel\\Desktop]\nWallpaper=\\\\host\\share\\a.jpg\n"), nil),
      (SampleBytes.utf8("[Icon Theme]\nName=x\n\n [ visualstyles ]\nPath=\\\\host\\share\\x.msstyles\n"), nil),
      (SampleBytes.utf8("[Icon Theme]\nName=x\n[Desktop Entry]\nExec=xterm\n"), nil),
      (Self.iconTheme, Int64(200_000)),
      (SampleBytes.utf8("hello\n"), nil),
    ] as [([UInt8], Int64?)] {
      let verdict = try judge("index.theme", head, totalSize: total)
      #expect(!verdict.accepted && verdict.decidedBy == "public.executable", "\(verdict.reason)")
      #expect(verdict.reason.contains("Windows theme"), "\(verdict.reason)")
    }
  }

  @Test("an icon theme description under another name is text, and with Windows theme groups a Windows theme")
  func contentDecidesUnderOtherNames() throws {
    let verdict = try judge("notes.txt", Self.iconTheme)
    #expect(verdict.accepted, "\(verdict.reason)")
    let windows = try judge(
      "notes.txt", SampleBytes.utf8("[Icon Theme]\nName=x\n\n[VisualStyles]\nPath=\\\\host\\share\\x.msstyles\n"))
    #expect(!windows.accepted && windows.decidedBy == "public.executable", "\(windows.reason)")
  }
}
