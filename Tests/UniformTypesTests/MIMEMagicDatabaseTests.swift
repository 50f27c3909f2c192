import Foundation
import Testing

@testable import UniformTypes

@Suite("the database cut to what prints MIME types")
struct MIMEMagicDatabaseTests {
  static let systemDatabase = "/usr/share/misc/magic.mgc"

  @Test("the cut keeps a minority of the system database's entries, in order, every MIME type marked")
  func cutOfTheSystemDatabase() throws {
    let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.systemDatabase)))
    let cut = try #require(full.withUnsafeBytes { MIMEMagicDatabase.cut($0) })
    let (fullLayout, cutLayout) = try full.withUnsafeBytes { full in
      try cut.withUnsafeBytes { cut in
        (try #require(MIMEMagicDatabase.Layout(full)), try #require(MIMEMagicDatabase.Layout(cut)))
      }
    }
    #expect(cutLayout.ordinary > 0 && cutLayout.ordinary < fullLayout.ordinary / 2)
    #expect(cutLayout.named <= fullLayout.named)
    let size = MIMEMagicDatabase.entrySize
    let mimes = (1..<(1 + cutLayout.ordinary + cutLayout.named)).compactMap { entry -> [UInt8]? in
      let field = cut[(entry * size + MIMEMagicDatabase.mimeOffset)...].prefix { $0 != 0 }
      return field.isEmpty ? nil : Array(field)
    }
    #expect(!mimes.isEmpty)
    #expect(mimes.allSatisfy { $0.first == MIMEMagicDatabase.marker && $0.dropFirst().contains(UInt8(ascii: "/")) })
  }

  @Test("bytes that are not a native version-18 compiled database are not cut")
  func otherFormats() {
    #expect([UInt8](repeating: 7, count: 4096).withUnsafeBytes { MIMEMagicDatabase.cut($0) } == nil)
    var header = [UInt8](repeating: 0, count: MIMEMagicDatabase.entrySize)
    header.replaceSubrange(0..<8, with: [0x1C, 0x04, 0x1E, 0xF1, 17, 0, 0, 0])  // version 17
    #expect(header.withUnsafeBytes { MIMEMagicDatabase.cut($0) } == nil)
    header[4] = 18  // version 18, no entries, right size: an empty cut
    #expect(header.withUnsafeBytes { MIMEMagicDatabase.cut($0) }?.count == MIMEMagicDatabase.entrySize)
    header[8] = 1  // says one entry, has none
    #expect(header.withUnsafeBytes { MIMEMagicDatabase.cut($0) } == nil)
  }

  /// Heads to compare: every corpus file, every file of the type tests' samples, files from
  /// /usr (binaries, libraries, data of every kind), pseudo-random bytes of several lengths, and
  /// real signatures followed by random bytes.
  static func heads() throws -> [(String, [UInt8])] {
    var heads: [(String, [UInt8])] = []
    var files: [String] = []
    if Corpus.isAvailable {
      files += try FileManager.default.contentsOfDirectory(atPath: Corpus.folder.path).sorted().map { Corpus.folder.path + "/" + $0 }
    }
    for root in ["/usr/bin", "/usr/lib/x86_64-linux-gnu", "/usr/share/icons", "/usr/share/doc", "/usr/share/fonts", "/usr/share/misc"] {
      let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.sorted() ?? []
      files += found.enumerated().filter { $0.offset % 7 == 0 }.prefix(250).map { root + "/" + $0.element }
    }
    for path in files {
      guard let handle = FileHandle(forReadingAtPath: path) else { continue }
      defer { try? handle.close() }
      guard let data = try? handle.read(upToCount: ContentSniffer.headLength), !data.isEmpty else { continue }
      heads.append((path, [UInt8](data)))
    }
    let samples: [(String, [UInt8])] = [
      ("png", SampleBytes.png), ("jpeg", SampleBytes.jpeg), ("gif", SampleBytes.gif), ("tiff", SampleBytes.tiff),
      ("heic", SampleBytes.heic), ("mp4", SampleBytes.mp4), ("webp", SampleBytes.webp), ("svg", SampleBytes.svg),
      ("pdf", SampleBytes.pdf), ("rtf", SampleBytes.rtf), ("ole", SampleBytes.oleHeader), ("docx", SampleBytes.docx),
      ("odt", SampleBytes.odt), ("zip", SampleBytes.plainZip), ("apk", SampleBytes.apk), ("jar", SampleBytes.jar),
      ("deb", SampleBytes.deb), ("rpm", SampleBytes.rpm), ("squashfs", SampleBytes.squashfs), ("exe", SampleBytes.exe),
      ("mp3", SampleBytes.mp3), ("wav", SampleBytes.wav), ("elf", try SampleBytes.elf()), ("appimage", try SampleBytes.appImage()),
    ]
    heads += samples
    for (index, (name, bytes)) in (heads + samples).prefix(600).enumerated() where bytes.count > 16 {
      heads.append(("\(name) head + random", Array(bytes.prefix(16)) + SampleBytes.random(count: 4080, seed: UInt64(index + 1))))
    }
    for index in 0..<1500 {
      let count = index % 5 == 0 ? 3 + index % 61 : 4096
      heads.append(("random #\(index)", SampleBytes.random(count: count, seed: 0x5EED_0000 + UInt64(index))))
    }
    return heads
  }

  @Test("with the cut database first, every MIME type and description is the full database's")
  func sameAnswers() throws {
    let cutFirst = try ContentSniffer(cutFirst: true)
    let fullOnly = try ContentSniffer(cutFirst: false)
    var differences: [String] = []
    for (name, head) in try Self.heads() {
      let (cut, full) = (try cutFirst.sniff(head), try fullOnly.sniff(head))
      if cut != full { differences.append("\(name): cut first \(cut), full \(full)") }
    }
    #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(20).joined(separator: "; "))")
  }

  @Test("the verdicts on the corpus and on random bytes are the same with the cut database first", .enabled(if: Corpus.isAvailable))
  func sameVerdicts() throws {
    let policy = try TypePolicy(registry: .system(), declarations: .builtinDefault)
    let cutFirst = try ContentSniffer(cutFirst: true)
    let fullOnly = try ContentSniffer(cutFirst: false)
    var differences: [String] = []
    for row in try Corpus.rows() {
      let path = Corpus.folder.appendingPathComponent(row.file).path
      let (cut, full) = (try policy.check(path: path, sniffer: cutFirst).verdict, try policy.check(path: path, sniffer: fullOnly).verdict)
      if cut != full { differences.append("\(row.file): \(cut.reason) / \(full.reason)") }
    }
    for index in 0..<200 {
      let head = SampleBytes.random(count: 4096, seed: 0xF11E_0000 + UInt64(index))
      let name = ["f\(index).bin", "f\(index)", "f\(index).png", "f\(index).txt"][index % 4]
      let (cut, full) = (policy.judge(name: name, head: head, sniffer: cutFirst), policy.judge(name: name, head: head, sniffer: fullOnly))
      if cut != full { differences.append("\(name): \(cut.reason) / \(full.reason)") }
    }
    #expect(differences.isEmpty, "\(differences.prefix(20).joined(separator: "; "))")
  }
}
