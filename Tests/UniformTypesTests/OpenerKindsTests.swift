import Testing

@testable import UniformTypes

/// Review 20, finding 8: macOS and Windows kinds that act when opened were accepted as XML,
/// plain text or data.
@Suite("Kinds that act when opened: location files, Terminal files, Windows installers and themes, Access")
struct OpenerKindsTests {
  static let policy = Result { try TypePolicy(registry: .system(), declarations: .builtinDefault) }
  static let sniffer = Result { try ContentSniffer() }

  static func location(_ url: String) -> [UInt8] {
    SampleBytes.utf8(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0"><dict><key>URL</key><string>\(url)</string></dict></plist>

      """)
  }

  func judge(_ name: String, _ head: [UInt8]) throws -> Verdict {
    try Self.policy.get().judge(name: name, head: head, totalSize: Int64(head.count), sniffer: try Self.sniffer.get())
  }

  @Test(".fileloc, .afploc and .ftploc are location files: a file: URL in one is refused as in a .webloc")
  func locationFilesAreLinks() throws {
    for name in ["x.fileloc", "x.afploc", "x.ftploc", "x.webloc"] {
      let local = try judge(name, Self.location("file:///System/Applications/Calculator.app"))
      #expect(!local.accepted && local.rule == .invalidLink, "\(name): \(local.reason)")
      #expect(local.type == "com.apple.web-internet-location", "\(name): \(local.type)")
    }
    let web = try judge("x.ftploc", Self.location("ftp://ftp.example.org/pub/"))
    #expect(web.accepted, "\(web.reason)")
  }

  @Test(".tool is a shell script as .command is, and .terminal a Terminal file that runs its command: refused by name")
  func terminalKindsAreScripts() throws {
    let text = SampleBytes.utf8("echo pwned\n")
    let tool = try judge("x.tool", text)
    #expect(!tool.accepted && tool.type == "public.shell-script" && tool.decidedBy == "public.script", "\(tool.reason)")
    let settings = SampleBytes.utf8(
      "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict><key>CommandString</key><string>open -a Calculator</string>"
        + "<key>RunCommandAsShell</key><true/></dict></plist>\n")
    let terminal = try judge("evil.terminal", settings)
    #expect(!terminal.accepted && terminal.decidedBy == "public.script", "\(terminal.reason)")
    #expect(!(try Self.policy.get().judge(name: "evil.terminal", kind: .file)).accepted)
  }

  @Test(".msu and .ppkg are Windows installers; .themepack and .deskthemepack Windows themes, as .theme is")
  func windowsInstallersAndThemes() throws {
    let cabinet: [UInt8] = Array("MSCF".utf8) + [UInt8](repeating: 0, count: 60)
    for (name, excluded) in [
      ("up.msu", "public.installer-package"), ("prov.ppkg", "public.installer-package"),
      ("x.themepack", "public.executable"), ("x.deskthemepack", "public.executable"),
    ] {
      let verdict = try judge(name, cabinet)
      #expect(!verdict.accepted && verdict.decidedBy == excluded, "\(name): \(verdict.reason)")
    }
    let theme = SampleBytes.utf8("[Theme]\nDisplayName=Evil\n\n[VisualStyles]\nPath=\\\\host\\share\\x.msstyles\n")
    let verdict = try judge("evil.theme", theme)
    #expect(!verdict.accepted && verdict.decidedBy == "public.executable", "\(verdict.reason)")
    #expect(verdict.reason.contains("Windows theme") && !verdict.reason.contains("desktop entr"), "\(verdict.reason)")
  }

  @Test("Access databases are refused as macro-enabled documents, by name and by content, as Access applications are")
  func accessDatabases() throws {
    let database: [UInt8] = [0, 1, 0, 0] + Array("Standard ACE DB\0".utf8) + [UInt8](repeating: 0, count: 44)
    for name in ["orders.accdb", "orders.mdb", "orders.bin"] {
      let verdict = try judge(name, database)
      #expect(!verdict.accepted && verdict.decidedBy == "com.microsoft.office.macro-enabled", "\(name): \(verdict.reason)")
    }
    #expect(!(try Self.policy.get().judge(name: "old.mdb", kind: .file)).accepted)
  }
}
