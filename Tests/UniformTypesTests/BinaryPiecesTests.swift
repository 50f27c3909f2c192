import Foundation
import Testing

@testable import UniformTypes

@Suite("the whole database's binary pieces")
struct BinaryPiecesTests {
  static let systemDatabase = MIMEMagicDatabaseTests.systemDatabase

  @Test("each piece holds the binary entries that follow the last one's, and ends in a line that sends the bytes on")
  func piecesOfTheSystemDatabase() throws {
    let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.systemDatabase)))
    let (pieces, written) = try full.withUnsafeBytes { database in
      let pieces = try #require(MIMEMagicDatabase.BinaryChunks(database))
      var bytes = [UInt8](repeating: 0xAA, count: pieces.byteCount)
      #expect(bytes.withUnsafeMutableBytes { pieces.write(into: $0) })
      return (pieces, bytes)
    }
    #expect(pieces.pieces.count >= 4)
    let size = MIMEMagicDatabase.entrySize
    var databases: [(ordinary: Int, named: Int, start: Int)] = []
    var offset = 0
    while offset < written.count {
      let layout = try #require(written[offset...].withUnsafeBytes { MIMEMagicDatabase.Layout(leading: $0) })
      databases.append((layout.ordinary, layout.named, offset))
      offset += layout.byteCount
    }
    #expect(offset == written.count)
    // The named entries first (all of them), then each piece (no named entries).
    let fullLayout = try #require(full.withUnsafeBytes { MIMEMagicDatabase.Layout($0) })
    #expect(databases.first.map { ($0.ordinary, $0.named) } ?? (1, 0) == (0, fullLayout.named))
    #expect(databases.count == pieces.pieces.count + 1)
    for piece in databases.dropFirst() {
      #expect(piece.named == 0 && piece.ordinary > 1 && piece.ordinary <= MIMEMagicDatabase.BinaryChunks.entriesPerPiece + 200)
      let last = piece.start + piece.ordinary * size
      #expect(Array(written[(last + MIMEMagicDatabase.mimeOffset)...].prefix { $0 != 0 }) == Array(MIMEMagicDatabase.nextChunkMIME.utf8))
    }
    // No `indirect` line is left (each would run only its own piece again), and every MIME type
    // but the last lines' is marked.
    for entry in databases.flatMap({ database in (1...(database.ordinary + database.named)).map { database.start / size + $0 } }) {
      #expect(written[entry * size + MIMEMagicDatabase.typeOffset] != MIMEMagicDatabase.indirectType)
      let mime = written[(entry * size + MIMEMagicDatabase.mimeOffset)...].prefix { $0 != 0 }
      #expect(mime.isEmpty || mime.first == MIMEMagicDatabase.marker || Array(mime) == Array(MIMEMagicDatabase.nextChunkMIME.utf8))
    }
  }

  /// A sniffer that keeps its databases in a file in a new folder (removed by the caller): only
  /// there are the pieces used (in memory they would hold nothing back).
  static func snifferWithAFile() throws -> (ContentSniffer, folder: URL) {
    let folder = try CutMagicFileTests.folder()
    return (try ContentSniffer(cutFile: folder.appendingPathComponent("magic-mime.cut").path), folder)
  }

  @Test("for bytes that are not text, the pieces one after the other say what the full database says")
  func sameAnswersAsTheFullDatabase() throws {
    let (pieces, folder) = try Self.snifferWithAFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    let fullOnly = try ContentSniffer(cutFirst: false)
    var heads = try MIMEMagicDatabaseTests.heads()
    for index in 0..<2000 {
      heads.append(("random \(index)", SampleBytes.random(count: 4096, seed: 0xB1EC_0000 + UInt64(index))))
    }
    var differences: [String] = []
    var answeredBy: [Int: Int] = [:]
    for (name, head) in heads {
      let answer = try head.withUnsafeBytes { try pieces.binaryPiecesAnswer(ofHead: $0) }
      guard let answer else { continue }
      answeredBy[answer.piece, default: 0] += 1
      let full = try head.withUnsafeBytes { try fullOnly.mimeType(ofHead: $0) }
      if answer.mime != full { differences.append("\(name): pieces \(answer.mime) (piece \(answer.piece)), full \(full)") }
    }
    #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(20).joined(separator: "; "))")
    // Answers came from the first pieces (ELF, PE) and from the last (DOS COM's weak tests).
    #expect(answeredBy.keys.count >= 3, "answered by pieces \(answeredBy)")
    #expect(answeredBy.values.reduce(0, +) > 1000)
  }

  @Test("an indirect line that matches sends the bytes to the whole database")
  func indirectGoesToTheWholeDatabase() throws {
    // An ID3v2 tag (its size, 16, in the syncsafe bytes 6...9), then a PNG: libmagic's ID3
    // entry looks again at offset 16 + 10 with the whole database (`>(6.I+10) indirect`).
    var head = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 16] + [UInt8](repeating: 0x55, count: 16)
    head += SampleBytes.png
    let (sniffer, folder) = try Self.snifferWithAFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(try head.withUnsafeBytes { try sniffer.binaryPiecesAnswer(ofHead: $0) } == nil)
    // Not for want of pieces: the PNG on its own is answered by them.
    #expect(try SampleBytes.png.withUnsafeBytes { try sniffer.binaryPiecesAnswer(ofHead: $0) }?.mime == "image/png")
    let full = try ContentSniffer(cutFirst: false)
    let answer = try head.withUnsafeBytes { try sniffer.mimeType(ofHead: $0) }
    #expect(answer == (try head.withUnsafeBytes { try full.mimeType(ofHead: $0) }))
    #expect(answer != "application/octet-stream")
  }

  @Test("a group that prints two MIME types (a named entry's, then its own) gets the whole database's answer")
  func twoTypesFromOneGroup() throws {
    // An Intergraph raster header that is also a Bentley DGN (Magdir/cad: `use ingr-image`,
    // then `!:mime application/x-bentley-dgn` in the same group): libmagic prints both, run
    // together; in a piece both are marked, and such an answer goes to the whole database.
    var head = [UInt8](repeating: 0, count: 2048)
    head.replaceSubrange(0..<6, with: [0x08, 0x09, 0xFE, 0x02, 0x09, 0x00])
    head[1537] = 0x08
    let (sniffer, folder) = try Self.snifferWithAFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    let full = try ContentSniffer(cutFirst: false)
    let expected = try head.withUnsafeBytes { try full.mimeType(ofHead: $0) }
    #expect(try head.withUnsafeBytes { try sniffer.mimeType(ofHead: $0) } == expected)
    let pieces = try head.withUnsafeBytes { try sniffer.binaryPiecesAnswer(ofHead: $0) }
    #expect(pieces == nil || pieces?.mime == expected, "pieces \(String(describing: pieces)), full \(expected)")
  }

  @Test("databases kept in memory (no file for them) answer without pieces, which would hold nothing back")
  func inMemoryThereAreNoPieces() throws {
    let sniffer = try ContentSniffer(cutFirst: true)
    let elf = try SampleBytes.elf()
    #expect(try elf.withUnsafeBytes { try sniffer.binaryPiecesAnswer(ofHead: $0) } == nil)
    let full = try ContentSniffer(cutFirst: false)
    #expect(try elf.withUnsafeBytes { try sniffer.mimeType(ofHead: $0) } == (try elf.withUnsafeBytes { try full.mimeType(ofHead: $0) }))
  }

  @Test("a marked answer for random bytes holds one piece at a time, each given back after")
  func piecesAreGivenBack() throws {
    let (sniffer, folder) = try Self.snifferWithAFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("magic-mime.cut").path
    // Random heads until one the last piece answers: every piece was read for it.
    let head = try #require(
      (0..<3000).lazy.map { SampleBytes.random(count: 4096, seed: 0xD05 + UInt64($0)) }.first { head in
        (try? head.withUnsafeBytes { try sniffer.binaryPiecesAnswer(ofHead: $0) })??.piece ?? 0 > 3
      })
    sniffer.releaseDatabasePages()
    _ = try head.withUnsafeBytes { try sniffer.binaryPiecesAnswer(ofHead: $0) }
    #expect(try CutMagicFileTests.residentKiB(of: path) == 0, "a piece or the named entries stayed resident")
    sniffer.releaseDatabasePages()
    _ = try head.withUnsafeBytes { try sniffer.mimeType(ofHead: $0) }
    let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.systemDatabase)))
    let cutKiB = try #require(full.withUnsafeBytes { MIMEMagicDatabase.cut($0) }).count / 1024
    // The cut's rest and a few of its groups (`MIMEMagicDatabase.Split`) with its named entries
    // as far as libmagic looks them up: not the cut, nor the 8 MiB of the guarded whole database.
    let resident = try CutMagicFileTests.residentKiB(of: path)
    #expect(resident > 64 && resident < cutKiB, "\(resident) KiB resident, the cut is \(cutKiB)")
    // And the count sees the guarded whole database when it is read: a description asks it.
    _ = try head.withUnsafeBytes { try sniffer.description(ofHead: $0) }
    #expect(try CutMagicFileTests.residentKiB(of: path) > cutKiB + 4096)
  }
}
