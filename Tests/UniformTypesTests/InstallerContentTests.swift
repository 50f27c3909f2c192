import Foundation
import Testing

@testable import UniformTypes

/// Review 33, finding 5: installers refused by their names only. An MSIX/AppX package (an OPC
/// package) was an "Office Open XML document" as `.zip` or nameless, an iOS app a ZIP, and a
/// macOS flat package a xar archive; APK, JAR, CRX and RPM are refused by content already.
@Suite("Installer packages by content")
struct InstallerContentTests {
  typealias Entry = WholePackageTests.Entry
  static let policy = OpenDocumentPartsTests.policy

  func check(_ bytes: [UInt8], as name: String) throws -> CheckReport {
    try Self.policy.get().check(writing: bytes, as: name)
  }

  static func text(_ name: String, _ text: String) -> Entry { Entry(name, Array(text.utf8)) }

  static let contentTypes = text(
    "[Content_Types].xml",
    #"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/vnd.ms-appx.manifest+xml"/></Types>"#
  )

  @Test("an MSIX or AppX package, or a bundle of them, is a Windows app package under any name")
  func appPackagesAreInstallers() throws {
    let manifest = Self.text("AppxManifest.xml", #"<Package><Applications><Application Executable="a.exe"/></Applications></Package>"#)
    for entries in [
      [manifest, Self.text("AppxBlockMap.xml", "<BlockMap/>"), Self.contentTypes],
      [Self.contentTypes, Self.text("AppxBlockMap.xml", "<BlockMap/>")],
      [Self.contentTypes, Self.text("AppxMetadata/AppxBundleManifest.xml", "<Bundle/>")],
    ] {
      for name in ["app.zip", "app-setup", "app.docx"] {
        let report = try check(WholePackageTests.zip(entries), as: name)
        #expect(!report.verdict.accepted && report.content?.type == "com.microsoft.msix-package", "\(name): \(report.verdict)")
      }
    }
  }

  @Test("a ZIP whose Payload folder holds an app bundle is an iOS app; other Payload folders are not")
  func iOSAppsAreInstallers() throws {
    let app = [Self.text("iTunesMetadata.plist", "<plist/>"), Self.text("Payload/App.app/Info.plist", "<plist/>")]
    for name in ["app.zip", "app"] {
      let report = try check(WholePackageTests.zip(app), as: name)
      #expect(!report.verdict.accepted && report.content?.type == "com.apple.itunes.ipa", "\(name): \(report.verdict)")
    }
    let plain = [Self.text("notes.txt", "hi"), Self.text("Payload/readme.app.txt", "hi"), Self.text("payload/.app", "x")]
    let report = try check(WholePackageTests.zip(plain), as: "backup.zip")
    #expect(report.verdict.accepted, "\(report.verdict)")
  }

  /// A xar archive as `xar` and `pkgbuild` write it: the header, then the zlib-compressed table of contents.
  static func xar(naming files: [String]) -> [UInt8] {
    typealias B = SampleBytes
    let names = files.map { "<file><name>\($0)</name></file>" }.joined()
    let toc = Array(#"<?xml version="1.0" encoding="UTF-8"?><xar><toc>\#(names)</toc></xar>"#.utf8)
    var (a, b): (UInt32, UInt32) = (1, 0)
    for byte in toc { (a, b) = ((a + UInt32(byte)) % 65521, (b + (a + UInt32(byte)) % 65521) % 65521) }
    let zlib = [0x78, 0x01] + B.storedDeflate(toc) + B.be32(b << 16 | a)
    let header = Array("xar!".utf8) + [0, 28, 0, 1] + B.be32(0) + B.be32(UInt32(zlib.count)) + B.be32(0) + B.be32(UInt32(toc.count))
    return header + B.be32(1) + zlib + Array(repeating: 0, count: 20)
  }

  @Test("a xar archive whose table of contents names a Distribution or PackageInfo is a macOS installer package")
  func flatPackagesAreInstallers() throws {
    for files in [["Distribution", "Resources"], ["Bom", "Payload", "Scripts", "PackageInfo"]] {
      let report = try check(Self.xar(naming: files), as: "installer.xar")
      #expect(!report.verdict.accepted && report.content?.type == "com.apple.installer-package-archive", "\(files): \(report.verdict)")
    }
    let plain = try check(Self.xar(naming: ["notes.txt", "Distribution.txt"]), as: "notes.xar")
    #expect(plain.verdict.accepted, "\(plain.verdict)")
  }
}
