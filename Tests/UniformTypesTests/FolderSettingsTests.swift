import Testing

@testable import UniformTypes

/// Review 35: KDE's file manager keeps a folder's icon in a `.directory` file (and menus keep a
/// directory's name and icon in `*.directory`), a desktop entry that launches nothing; every one
/// was refused as a desktop entry. Only content that shows it launches nothing is taken for one.
@Suite("Folder settings (.directory)")
struct FolderSettingsTests {
  static let policy = Result { try TypePolicy(registry: .system(), declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  func judge(_ name: String, _ text: String, totalSize: Int64? = nil) throws -> Verdict {
    let head = SampleBytes.utf8(text)
    return try Self.policy.get().judge(
      name: name, head: head, totalSize: totalSize ?? Int64(head.count), sniffer: try Self.sniffer.get())
  }

  @Test(
    "a folder's icon and name, or a menu directory's, are accepted",
    arguments: [
      (".directory", "[Desktop Entry]\nIcon=folder-music\n"),
      (
        ".directory",
        "[Desktop Entry]\nIcon=folder-pictures\nName[de]=Bilder\n\n[Dolphin]\nTimestamp=2024,5,1,10,0,0\nVersion=4\nViewMode=1\n"
      ),
      ("Games.directory", "# menu\n[Desktop Entry]\nVersion=1.0\nType=Directory\nName=Games\nComment=Play\nIcon=applications-games\n"),
    ])
  func accepted(name: String, text: String) throws {
    #expect(try Self.policy.get().judge(name: name, kind: .file).accepted, "\(name) at the Ask")
    let verdict = try judge(name, text)
    #expect(verdict.accepted && verdict.type == .folderSettings && verdict.decidedBy == "Text", "\(name): \(verdict.reason)")
  }

  @Test(
    "a desktop entry that may launch something, or that KConfig expands, is refused under those names",
    arguments: [
      "[Desktop Entry]\nIcon[$e]=$(touch /tmp/x)\n",
      "[Desktop Entry]\nIcon=x\n[Dolphin]\nViewMode[$e]=$(id)\n",
      "[Desktop Entry]\nType=Application\nExec=sh\nIcon=x\n",
      "[Desktop Entry]\nType=Link\nURL=https://example.org/\nIcon=x\n",
      "[Desktop Entry]\nIcon=x\nTryExec=sh\n",
      "[Desktop Entry]\nIcon=x\n[Desktop Action run]\nExec=sh\n",
      "[Desktop Entry]\nIcon=x\u{0}\nExec=sh\n",
      "#!/usr/bin/env xdg-open\n[Desktop Entry]\nIcon=x\n",
      "[Desktop Entry]\nName=nothing of a folder\n",
    ])
  func refused(text: String) throws {
    try expectDesktopEntry(text, named: [".directory", "Games.directory"])
  }

  func expectDesktopEntry(_ text: String, named names: [String]) throws {
    for name in names {
      let verdict = try judge(name, text)
      #expect(!verdict.accepted && verdict.type == .desktopEntry, "\(name): \(verdict.reason)")
    }
  }

  @Test("one that goes on past the head is a desktop entry, and a .desktop name is refused whatever it holds")
  func pastTheHeadAndOtherNames() throws {
    let long = try judge(".directory", "[Desktop Entry]\nIcon=x\n", totalSize: 200_000)
    #expect(!long.accepted && long.type == .desktopEntry, "\(long.reason)")
    let named = try judge("x.desktop", "[Desktop Entry]\nIcon=x\n")
    #expect(!named.accepted, "\(named.reason)")
  }

  /// Review 37: KDE takes a file for a desktop entry by how it starts (shared-mime-info's magic)
  /// and reads its `[Desktop Entry]` group wherever it stands; GLib only by its first group.
  @Test func aFileKDETakesForADesktopEntryByItsStartIsOneUnderAnyName() throws {
    let starts = [
      "[Desktop Action open]\nExec=sh -c id\n\n[Desktop Entry]\nType=Application\nExec=sh\n",
      "# KDE Config File\n[Desktop Entry]\nType=Link\nURL=smb://198.18.0.1/share/\n",
      "# Config File\n[Desktop Entry]\nExec=sh\n", "Name=x\n[Desktop Entry]\nExec=sh\n",
    ]
    for text in starts { try expectDesktopEntry(text, named: ["Invoice", "notes.txt"]) }
  }

  @Test func textNamingDesktopEntriesFurtherOnIsText() throws {
    let text = "How to write a launcher for your own program:\n\n    [Desktop Entry]\n    Exec=app\n\nand save it as app.desktop.\n"
    let verdict = try judge("notes.txt", text)
    #expect(verdict.accepted, "\(verdict.reason)")
  }
}
