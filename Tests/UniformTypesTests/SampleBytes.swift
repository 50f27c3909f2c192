import Foundation

/// Builds real files' bytes in memory: properly checksummed PNG, ZIP, gzip, tar, ar and
/// friends, so tests need no tool besides /bin/true.
enum SampleBytes {
  // MARK: Checksums

  static let crcTable: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
    return c ^ 0xFFFF_FFFF
  }

  static func adler32(_ bytes: [UInt8]) -> UInt32 {
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in bytes {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    return b << 16 | a
  }

  static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
  static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
  static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }

  /// Deflate "stored" blocks (no compression), valid for zlib and gzip.
  static func storedDeflate(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var offset = 0
    repeat {
      let chunk = Array(data[offset..<min(offset + 65535, data.count)])
      offset += chunk.count
      out.append(offset >= data.count ? 1 : 0)
      out += le16(chunk.count) + le16(~chunk.count & 0xFFFF) + chunk
    } while offset < data.count
    return out
  }

  // MARK: Images

  static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typed = Array(type.utf8) + data
    return be32(UInt32(data.count)) + typed + be32(crc32(typed))
  }

  /// A 2×2 RGB PNG: signature, IHDR, IDAT (zlib, stored), IEND, all CRCs right.
  static let png: [UInt8] = {
    let header = be32(2) + be32(2) + [8, 2, 0, 0, 0]
    let raw: [UInt8] = [0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]
    let zlib: [UInt8] = [0x78, 0x01] + storedDeflate(raw) + be32(adler32(raw))
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", header) + pngChunk("IDAT", zlib)
      + pngChunk("IEND", [])
  }()

  /// A JFIF JPEG: SOI, APP0, a quantisation table, SOF0 1×1, EOI.
  static let jpeg: [UInt8] =
    [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
    + [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
    + [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00] + [0xFF, 0xD9]

  /// A 1×1 GIF89a.
  static let gif: [UInt8] =
    Array("GIF89a".utf8) + [
      1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x21, 0xF9, 4, 1, 0, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0,
      2, 2, 0x44, 1, 0, 0x3B,
    ]

  static let tiff: [UInt8] = Array("II*\0".utf8) + le32(8) + le16(1) + le16(256) + le16(3) + le32(1) + le32(1) + le32(0)

  static func isoBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
  }

  static let heic: [UInt8] = isoBox("ftyp", Array("heic".utf8) + be32(0) + Array("mif1heic".utf8)) + isoBox("meta", be32(0))
  static let mp4: [UInt8] =
    isoBox("ftyp", Array("isom".utf8) + be32(0x200) + Array("isomiso2avc1mp41".utf8)) + isoBox("free", []) + isoBox("mdat", [0, 0, 0, 0])
  static let m4a: [UInt8] = isoBox("ftyp", Array("M4A ".utf8) + be32(0x200) + Array("M4A isom".utf8)) + isoBox("mdat", [0, 0, 0, 0])

  static let webp: [UInt8] = Array("RIFF".utf8) + le32(26) + Array("WEBPVP8 ".utf8) + le32(14) + [UInt8](repeating: 0, count: 14)

  static let svg = Array(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>

    """.utf8)

  // MARK: Documents

  static let pdf = Array(
    """
    %PDF-1.4
    1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
    2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj
    trailer << /Root 1 0 R >>
    %%EOF

    """.utf8)

  static let rtf = Array("{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}} Hello}\n".utf8)

  /// The 512-byte header of an OLE2 compound file (what .doc, .xls and .msi start with).
  static let oleHeader: [UInt8] =
    [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0, count: 16)
    + le16(0x3E) + le16(3) + le16(0xFFFE) + le16(9) + le16(6) + [UInt8](repeating: 0, count: 6)
    + [UInt8](repeating: 0, count: 512 - 40)

  /// An OLE2 compound file (MS-CFB, version 3 with 512-byte sectors, or 4 with 4,096): the
  /// header, the FAT in sector 0 and a directory of the root and `entries` (a name, and 1 for a
  /// storage or 2 for an empty stream) in the sectors `directory`, linked in that order through
  /// the FAT (whose one sector must cover them); other sectors hold zeros. The root's children
  /// are a chain of right siblings.
  static func compoundFile(_ entries: [(String, UInt8)], sectorShift: Int = 9, directory: [Int] = [1]) -> [UInt8] {
    let size = 1 << sectorShift
    let none: UInt32 = 0xFFFF_FFFF
    let endOfChain: UInt32 = 0xFFFF_FFFE
    var fat = [UInt32](repeating: none, count: size / 4)
    fat[0] = 0xFFFF_FFFD
    for (index, sector) in directory.enumerated() {
      fat[sector] = index + 1 < directory.count ? UInt32(directory[index + 1]) : endOfChain
    }
    var header: [UInt8] = Array(oleHeader[0..<0x1A])
    header += le16(sectorShift == 9 ? 3 : 4) + le16(0xFFFE) + le16(sectorShift) + le16(6) + [0, 0, 0, 0, 0, 0]
    header += le32(sectorShift == 9 ? 0 : UInt32(directory.count))
    header += le32(1) + le32(UInt32(directory[0])) + le32(0) + le32(4096)
    header += le32(endOfChain) + le32(0) + le32(endOfChain) + le32(0)
    header += le32(0)
    for _ in 1..<109 { header += le32(none) }
    func entry(_ name: String, _ type: UInt8, right: UInt32, child: UInt32) -> [UInt8] {
      let units = Array(name.utf16)
      var bytes: [UInt8] = units.flatMap { le16(Int($0)) } + [UInt8](repeating: 0, count: 64 - 2 * units.count)
      bytes += le16(2 * units.count + 2) + [type, 1]
      bytes += le32(none) + le32(right) + le32(child) + [UInt8](repeating: 0, count: 36)
      return bytes + le32(endOfChain) + le32(0) + le32(0)
    }
    var records = entry("Root Entry", 5, right: none, child: entries.isEmpty ? none : 1)
    for (index, (name, type)) in entries.enumerated() {
      records += entry(name, type, right: index + 1 < entries.count ? UInt32(index + 2) : none, child: none)
    }
    var unused = [UInt8](repeating: 0, count: 68)
    unused += le32(none) + le32(none) + le32(none) + [UInt8](repeating: 0, count: 48)
    while records.count < directory.count * size { records += unused }
    var sectors = [[UInt8]](repeating: [UInt8](repeating: 0, count: size), count: (directory.max() ?? 0) + 1)
    sectors[0] = fat.flatMap { le32($0) }
    for (index, sector) in directory.enumerated() { sectors[sector] = Array(records[(index * size)..<((index + 1) * size)]) }
    return Array(header) + [UInt8](repeating: 0, count: size - 512) + sectors.flatMap { $0 }
  }

  // MARK: Archives

  /// A ZIP with stored entries, local headers, central directory and end record.
  static func zip(_ entries: [(String, [UInt8])]) -> [UInt8] {
    var out: [UInt8] = []
    var central: [UInt8] = []
    for (name, data) in entries {
      let nameBytes = Array(name.utf8)
      let crc = crc32(data)
      let offset = out.count
      out +=
        le32(0x0403_4B50) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc)
        + le32(UInt32(data.count)) + le32(UInt32(data.count)) + le16(nameBytes.count) + le16(0) + nameBytes + data
      central +=
        le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(crc)
        + le32(UInt32(data.count)) + le32(UInt32(data.count)) + le16(nameBytes.count) + le16(0) + le16(0) + le16(0)
        + le16(0) + le32(0) + le32(UInt32(offset)) + nameBytes
    }
    let centralOffset = out.count
    out += central
    out +=
      le32(0x0605_4B50) + le16(0) + le16(0) + le16(entries.count) + le16(entries.count)
      + le32(UInt32(central.count)) + le32(UInt32(centralOffset)) + le16(0)
    return out
  }

  static let contentTypesXML = Array(
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>
    """.utf8)

  /// A minimal Word document: [Content_Types].xml, _rels/.rels, word/document.xml.
  static let docx = zip([
    ("[Content_Types].xml", contentTypesXML),
    (
      "_rels/.rels",
      Array(
        "<?xml version=\"1.0\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" Target=\"word/document.xml\"/></Relationships>"
          .utf8)
    ),
    (
      "word/document.xml",
      Array(
        "<?xml version=\"1.0\"?><w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>"
          .utf8)
    ),
  ])

  static let xlsx = zip([
    ("[Content_Types].xml", Array("<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>".utf8)),
    ("xl/workbook.xml", Array("<workbook/>".utf8)),
  ])

  static let pptx = zip([
    ("[Content_Types].xml", Array("<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>".utf8)),
    ("ppt/presentation.xml", Array("<p:presentation/>".utf8)),
  ])

  /// A PowerPoint slide with a VBA project: what a `.sldm` holds.
  static let sldm = zip([
    ("[Content_Types].xml", Array("<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>".utf8)),
    ("ppt/slides/slide1.xml", Array("<p:sld/>".utf8)), ("ppt/vbaProject.bin", oleHeader),
  ])

  static let odt = zip([
    ("mimetype", Array("application/vnd.oasis.opendocument.text".utf8)),
    ("content.xml", Array("<office:document-content/>".utf8)),
  ])

  /// An OpenDocument text with a Basic library, as LibreOffice saves one (review 16).
  static let odtWithBasic = zip([
    ("mimetype", Array("application/vnd.oasis.opendocument.text".utf8)),
    ("content.xml", Array("<office:document-content/>".utf8)),
    ("Basic/Standard/Module1.xml", Array("<script:module script:name=\"Module1\">Sub Main\n Shell(\"sh\")\nEnd Sub</script:module>".utf8)),
    ("Basic/script-lc.xml", Array("<library:libraries/>".utf8)),
  ])

  static let plainZip = zip([("hello.txt", Array("hello\n".utf8)), ("notes/todo.txt", Array("buy milk\n".utf8))])
  static let apk = zip([("AndroidManifest.xml", [3, 0, 8, 0]), ("classes.dex", Array("dex\n035\0".utf8))])
  static let jar = zip([("META-INF/MANIFEST.MF", Array("Manifest-Version: 1.0\nMain-Class: Main\n".utf8))])

  /// A Zstandard frame holding "hello\n" in one raw block.
  static let zstd: [UInt8] = le32(0xFD2F_B528) + [0x20, 6, 0x31, 0, 0] + Array("hello\n".utf8)

  /// An ISO 9660 image: 16 empty sectors, then a primary volume descriptor (`CD001`).
  static let iso: [UInt8] = [UInt8](repeating: 0, count: 32768) + [1] + Array("CD001".utf8) + [1] + [UInt8](repeating: 0, count: 2041)

  /// A TrueType font's offset table and two table records.
  static let ttf: [UInt8] =
    [0, 1, 0, 0] + [0, 2, 0, 32, 0, 1, 0, 0] + Array("OS/2".utf8) + le32(0) + be32(44) + be32(8)
    + Array("cmap".utf8) + le32(0) + be32(52) + be32(8) + [UInt8](repeating: 0, count: 16)

  /// A Chrome extension: `Cr24`, version 3, a header length, then (here) no header and a ZIP.
  static let crx: [UInt8] = Array("Cr24".utf8) + le32(3) + le32(0) + plainZip

  /// A Windows setup information file (what libmagic calls application/x-setupscript).
  static let inf = Array("[Version]\r\nSignature=\"$Windows NT$\"\r\nClass=Net\r\n\r\n[Manufacturer]\r\n".utf8)

  /// MPEG transport stream video: 40 packets of 188 bytes, each starting with the sync byte 0x47.
  static let mpegTS: [UInt8] = (0..<40).flatMap { index in [0x47, index == 0 ? 0x40 : 0, 0, 0x10] + [UInt8](repeating: 0xFF, count: 184) }

  /// A 7-Zip archive's signature header (no streams).
  static let sevenZip: [UInt8] = [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0, 4] + [UInt8](repeating: 0, count: 24)

  /// gzip (RFC 1952) of `data`, stored deflate.
  static func gzip(_ data: [UInt8]) -> [UInt8] {
    [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + storedDeflate(data) + le32(crc32(data)) + le32(UInt32(data.count))
  }

  /// A ustar archive of `files`.
  static func tar(_ files: [(String, [UInt8])]) -> [UInt8] {
    var out: [UInt8] = []
    for (name, data) in files {
      var header = [UInt8](repeating: 0, count: 512)
      func put(_ text: String, at offset: Int) {
        for (i, byte) in text.utf8.enumerated() { header[offset + i] = byte }
      }
      put(name, at: 0)
      put("0000644", at: 100)
      put("0001750", at: 108)
      put("0001750", at: 116)
      put(String(format: "%011o", data.count), at: 124)
      put("14641234567", at: 136)
      put("        ", at: 148)
      put("0", at: 156)
      put("ustar", at: 257)
      put("00", at: 263)
      put("user", at: 265)
      put("user", at: 297)
      let sum = header.reduce(0) { $0 + Int($1) }
      put(String(format: "%06o", sum), at: 148)
      header[154] = 0
      header[155] = 0x20
      out += header + data + [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
    }
    return out + [UInt8](repeating: 0, count: 1024)
  }

  /// A Debian package: an `ar` archive of debian-binary, control.tar.gz, data.tar.gz.
  static let deb: [UInt8] = {
    func member(_ name: String, _ data: [UInt8]) -> [UInt8] {
      func field(_ text: String, _ width: Int) -> [UInt8] {
        Array(text.utf8) + [UInt8](repeating: 0x20, count: width - text.utf8.count)
      }
      let header =
        field(name, 16) + field("1700000000", 12) + field("0", 6) + field("0", 6) + field("100644", 8)
        + field(String(data.count), 10) + [0x60, 0x0A]
      return header + data + (data.count % 2 == 1 ? [0x0A] : [])
    }
    let control = gzip(tar([("./control", Array("Package: hello\nVersion: 1.0\nArchitecture: all\n".utf8))]))
    let data = gzip(tar([("./usr/bin/hello", Array("#!/bin/sh\necho hello\n".utf8))]))
    return Array("!<arch>\n".utf8) + member("debian-binary", Array("2.0\n".utf8)) + member("control.tar.gz", control)
      + member("data.tar.gz", data)
  }()

  /// An RPM lead (96 bytes) and the start of a header.
  static let rpm: [UInt8] =
    [0xED, 0xAB, 0xEE, 0xDB, 3, 0, 0, 0, 0, 1] + Array("hello-1.0-1".utf8)
    + [UInt8](repeating: 0, count: 66 - 11) + [0, 1, 0, 5] + [UInt8](repeating: 0, count: 16) + [0x8E, 0xAD, 0xE8, 1]
    + [UInt8](repeating: 0, count: 64)

  /// A squashfs superblock, as a .snap starts.
  static let squashfs: [UInt8] =
    Array("hsqs".utf8) + le32(3) + le32(0x5F5E_1000) + le32(131072) + le32(1) + le16(1)
    + le16(17) + le16(0xC0) + le16(0) + le16(4) + le16(0) + [UInt8](repeating: 0, count: 200)

  // MARK: Executables and audio

  /// /bin/true.
  static func elf() throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: "/bin/true") else {
      throw CocoaError(.fileReadNoSuchFile)
    }
    return Array(data)
  }

  /// /bin/true with the AppImage type-2 signature in its ELF padding.
  static func appImage() throws -> [UInt8] {
    var bytes = try elf()
    bytes[8] = UInt8(ascii: "A")
    bytes[9] = UInt8(ascii: "I")
    bytes[10] = 2
    return bytes
  }

  /// A PE header (MZ stub pointing at "PE\0\0" and a COFF header for x86-64).
  static let exe: [UInt8] =
    Array("MZ".utf8) + [UInt8](repeating: 0, count: 58) + le32(64) + Array("PE\0\0".utf8)
    + le16(0x8664) + le16(1) + le32(0) + le32(0) + le32(0) + le16(0xF0) + le16(0x22) + [UInt8](repeating: 0, count: 400)

  /// An ID3v2.4 tag followed by MPEG-1 layer III frames.
  static let mp3: [UInt8] =
    Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]
    + Array(repeating: [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413), count: 3).flatMap { $0 }

  static let wav: [UInt8] =
    Array("RIFF".utf8) + le32(36) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1)
    + le32(44100) + le32(88200) + le16(2) + le16(16) + Array("data".utf8) + le32(0)

  // MARK: Text

  static func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

  static func utf16LE(_ text: String) -> [UInt8] {
    [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
  }

  /// Deterministic pseudo-random bytes (xorshift), so the sample is the same on every run.
  static func random(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return UInt8(truncatingIfNeeded: state)
    }
  }
}
