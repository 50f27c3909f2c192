import Foundation
import Testing

/// A package whose first 64 KiB show a plain document is judged again once all of it has
/// arrived, before anything is placed (review 24's open HIGH): a VBA project that only the ZIP's
/// central directory lists, past the head, gets the file refused as it would have been had the
/// project come first; nothing of it stays in staging or the Inbox, and the sender hears why.
@Suite struct WholePackageReceiveTests {
  /// A Word package of stored parts: a picture of `pictureBytes` random bytes first, so that what
  /// comes after it lies past the receiver's head, then (with `project`) a VBA project.
  static func wordPackage(pictureBytes: Int, project: Bool) -> Data {
    var parts: [(String, [UInt8])] = [
      ("[Content_Types].xml", Array(#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#.utf8)),
      ("word/document.xml", Array("<w:document/>".utf8)),
      ("word/media/image1.png", (0..<pictureBytes).map { _ in UInt8.random(in: 0...255) }),
    ]
    if project { parts.append(("word/vbaProject.bin", [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1])) }
    return Data(zip(parts))
  }

  /// A ZIP of stored parts: local headers, central directory, end record.
  static func zip(_ parts: [(String, [UInt8])]) -> [UInt8] {
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
    func crc32(_ bytes: [UInt8]) -> Int {
      var c: UInt32 = 0xFFFF_FFFF
      for byte in bytes {
        c ^= UInt32(byte)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
      }
      return Int(c ^ 0xFFFF_FFFF)
    }
    var out: [UInt8] = []
    var central: [UInt8] = []
    for (name, data) in parts {
      let (nameBytes, crc, offset) = (Array(name.utf8), crc32(data), out.count)
      out += le32(0x0403_4B50) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc) + le32(data.count)
      out += le32(data.count) + le16(nameBytes.count) + le16(0) + nameBytes + data
      central += le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc)
      central += le32(data.count) + le32(data.count) + le16(nameBytes.count) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0)
      central += le32(offset) + nameBytes
    }
    let centralOffset = out.count
    out += central + le32(0x0605_4B50) + le16(0) + le16(0) + le16(parts.count) + le16(parts.count)
    out += le32(central.count) + le32(centralOffset) + le16(0)
    return out
  }

  @Test func aMacroDocumentWhoseProjectLiesPastTheHeadIsRefusedOnceCompleteAndLeavesNothing() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let macro = a.files.appendingPathComponent("report.docx")
    try Self.wordPackage(pictureBytes: 300_000, project: true).write(to: macro)
    let plain = a.files.appendingPathComponent("letter.docx")
    try Self.wordPackage(pictureBytes: 300_000, project: false).write(to: plain)
    // The same in a folder: an entry is judged the same way.
    let folder = a.files.appendingPathComponent("drafts")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: macro, to: folder.appendingPathComponent("report.docx"))
    try FileManager.default.copyItem(at: plain, to: folder.appendingPathComponent("letter.docx"))

    let sent = try a.share("send", macro.path, plain.path, folder.path, "--to", daemon.address)
    #expect(sent.exited(with: 3), "\(sent)")
    let refusal = try #require(sent.stdoutLines.first { $0.hasPrefix("refused  report.docx: ") }, "\(sent)")
    #expect(refusal.contains("macro-enabled"), "\(refusal)")
    #expect(sent.stdoutLines.contains("stored   letter.docx"), "\(sent)")
    #expect(sent.stdoutLines.contains { $0.contains("not stored: report.docx: ") && $0.contains("macro-enabled") }, "\(sent)")

    #expect(b.inboxNames() == ["drafts", "letter.docx"])
    let drafts = b.inbox.appendingPathComponent("drafts")
    #expect((try? FileManager.default.contentsOfDirectory(atPath: drafts.path)) == ["letter.docx"])
    #expect(filesAreIdentical(b.inbox.appendingPathComponent("letter.docx"), plain))
    let letter = try #require(try b.listedItems().first { $0["name"] as? String == "letter.docx" })
    #expect(letter["type"] as? String == "org.openxmlformats.wordprocessingml.document", "\(letter)")
    #expect(b.stagingEntries().isEmpty, "\(b.stagingEntries())")
    let project = Data([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1])
    #expect(files(under: b.documents, containing: Data("word/vbaProject.bin".utf8) + project).isEmpty)
    #expect(daemon.waitForLog("refused report.docx from alice"), "\(daemon.log)")
  }

  /// Word's "web page" document: a MIME message whose ActiveMime part (the VBA project) comes
  /// after `pages` bytes of HTML.
  static func webPageDocument(pages: Int, project: Bool) -> Data {
    var text = "MIME-Version: 1.0\nContent-Type: multipart/related; boundary=\"----=_NextPart_01\"\n\n"
    text += "------=_NextPart_01\nContent-Location: file:///C:/x.htm\nContent-Type: text/html\n\n<html><body>"
    text += String(repeating: "<p>Invoice</p>\n", count: pages / 15) + "</body></html>\n"
    if project {
      text += "------=_NextPart_01\nContent-Location: file:///C:/x_files/editdata.mso\nContent-Transfer-Encoding: base64\n"
      text += "Content-Type: application/x-mso\n\nQWN0aXZlTWltZQAAAfAEAAAA/////wAAB/AAAAAAAAAA\n"
    }
    return Data((text + "------=_NextPart_01--\n").utf8)
  }

  @Test func aWebPageDocumentWhoseProjectComesAfterItsPagesIsRefusedOnceComplete() throws {
    let (a, b) = (try ShareHome(name: "alice"), try ShareHome(name: "bob"))
    let daemon = try b.startDaemon(trusting: [a])
    defer { _ = daemon.stop() }
    let invoice = a.files.appendingPathComponent("invoice.doc")
    try Self.webPageDocument(pages: 200_000, project: true).write(to: invoice)
    let page = a.files.appendingPathComponent("page.mht")
    try Self.webPageDocument(pages: 200_000, project: false).write(to: page)

    let sent = try a.share("send", invoice.path, page.path, "--to", daemon.address)
    #expect(sent.exited(with: 3), "\(sent)")
    let refusal = try #require(sent.stdoutLines.first { $0.hasPrefix("refused  invoice.doc: ") }, "\(sent)")
    #expect(refusal.contains("macro-enabled"), "\(refusal)")
    #expect(b.inboxNames() == ["page.mht"])
    #expect(b.stagingEntries().isEmpty, "\(b.stagingEntries())")
  }
}
