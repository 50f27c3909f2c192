import CMagic
import Foundation
import Testing

@testable import UniformTypes

/// The cut database split by its groups' first lines (`MIMEMagicDatabase.Split`): for every head
/// that no first test may match, its rest must say what the whole cut says.
@Suite("the cut database's first tests and its rest")
struct FirstTestsTests {
  /// The system database's cut, whole and in the four parts the cut file holds.
  struct Databases {
    var cut: [UInt8]
    var parts: [MIMEMagicDatabase.Split.Part: [UInt8]]
    var split: MIMEMagicDatabase.Split { cut.withUnsafeBytes { MIMEMagicDatabase.Split($0)! } }
    subscript(_ part: MIMEMagicDatabase.Split.Part) -> [UInt8] { parts[part]! }
  }

  static let databases: Result<Databases, any Error> = Result {
    let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: MIMEMagicDatabaseTests.systemDatabase)))
    let cut = try #require(full.withUnsafeBytes { MIMEMagicDatabase.cut($0) })
    let split = try #require(cut.withUnsafeBytes { MIMEMagicDatabase.Split($0) })
    var parts: [MIMEMagicDatabase.Split.Part: [UInt8]] = [:]
    for part in MIMEMagicDatabase.Split.Part.allCases {
      var bytes = [UInt8](repeating: 0xAA, count: split.byteCount(part))
      bytes.withUnsafeMutableBytes { split.write(part, into: $0) }
      parts[part] = bytes
    }
    return Databases(cut: cut, parts: parts)
  }

  /// The databases, their split, and the first tests read from the cut's ordinary part.
  static func firstTests() throws -> (Databases, MIMEMagicDatabase.Split, MIMEMagicDatabase.FirstTests) {
    let databases = try databases.get()
    let tests = try #require(databases[.cutOrdinary].withUnsafeBytes { MIMEMagicDatabase.FirstTests(cutOrdinary: $0) })
    return (databases, databases.split, tests)
  }

  /// libmagic's MIME type of `head` from the compiled databases `databases`, read together.
  final class Handle {
    let handle: OpaquePointer
    let copies: [UnsafeMutableRawBufferPointer]
    init(_ databases: [UInt8]...) throws {
      copies = databases.map { database in
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: database.count, alignment: 16)
        copy.copyMemory(from: database.withUnsafeBytes { $0 })
        return copy
      }
      handle = try #require(MagicHandles.open(reading: copies.map { (Int(bitPattern: $0.baseAddress!), $0.count) }))
    }
    deinit {
      magic_close(handle)
      copies.forEach { $0.deallocate() }
    }
    func mime(_ head: [UInt8]) throws -> String {
      try head.withUnsafeBytes { try ContentSniffer.buffer(handle, $0, flags: MAGIC_MIME_TYPE) }
    }
  }

  @Test("most of the cut's groups are first tests; the rest keeps the others in order; the cut's two parts hold all of it")
  func theSplitOfTheSystemCut() throws {
    let databases = try Self.databases.get()
    let split = databases.split
    let cutLayout = try #require(databases.cut.withUnsafeBytes { MIMEMagicDatabase.Layout($0) })
    let restLayout = try #require(databases[.rest].withUnsafeBytes { MIMEMagicDatabase.Layout($0) })
    let size = MIMEMagicDatabase.entrySize
    // The cut in two: its ordinary entries, then its named ones, each a database, line for line
    // but for its `indirect` lines, which now print `fullDatabaseMIME` (marked).
    let inTwo = Array(databases[.cutOrdinary].dropFirst(size) + databases[.cutNamed].dropFirst(size))
    #expect(inTwo.count == databases.cut.count - size)
    var rewritten = 0
    for entry in 0..<min(inTwo.count, databases.cut.count - size) / size {
      let (was, now) = (databases.cut[(entry + 1) * size..<(entry + 2) * size], inTwo[entry * size..<(entry + 1) * size])
      guard was != now else { continue }
      rewritten += 1
      let mime = now.dropFirst(MIMEMagicDatabase.mimeOffset).prefix { $0 != 0 }
      #expect(was[was.startIndex + MIMEMagicDatabase.typeOffset] == MIMEMagicDatabase.indirectType)
      #expect(Array(mime) == [MIMEMagicDatabase.marker] + Array(MIMEMagicDatabase.fullDatabaseMIME.utf8))
    }
    #expect(rewritten > 0)
    #expect(
      databases[.cutOrdinary].withUnsafeBytes { MIMEMagicDatabase.Layout($0) }.map { [$0.ordinary, $0.named] } == [cutLayout.ordinary, 0])
    #expect(databases[.cutNamed].withUnsafeBytes { MIMEMagicDatabase.Layout($0) }.map { [$0.ordinary, $0.named] } == [0, cutLayout.named])
    #expect(split.tested.count > 500 && split.rest.count > 100, "\(split.tested.count) tested, \(split.rest.count) left")
    #expect(restLayout.named == 0)
    #expect(restLayout.ordinary + split.tested.reduce(0) { $0 + $1.count } == cutLayout.ordinary)
    // Both lists are in the cut's order and together are every group once.
    let all = (split.tested + split.rest).sorted { $0.lowerBound < $1.lowerBound }
    #expect(zip(all, all.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    #expect(split.rest == split.rest.sorted { $0.lowerBound < $1.lowerBound })
    let restLines = split.rest.joined().map { Array(databases.cut[$0 * size..<($0 + 1) * size]) }
    #expect(restLines == (1...restLayout.ordinary).map { Array(databases[.rest][$0 * size..<($0 + 1) * size]) })
    let tests = try #require(databases[.cutOrdinary].withUnsafeBytes { MIMEMagicDatabase.FirstTests(cutOrdinary: $0) })
    #expect(tests.count == split.tested.count)
  }

  @Test("a first test compares bytes at its offset under its mask, and zeros past the end of the head")
  func aFirstTestReadsZerosPastTheEnd() {
    let test = MIMEMagicDatabase.FirstTest(offset: 2, pattern: [0x10, 0x00], mask: [0xF0, 0xFF])
    func may(_ bytes: [UInt8], _ tests: [MIMEMagicDatabase.FirstTest] = [test]) -> Bool {
      let indexed = bytes.withUnsafeBytes { !MIMEMagicDatabase.FirstTests(tests).candidates($0).isEmpty }
      return (bytes.withUnsafeBytes { test.mayMatch($0) } == indexed || tests.count > 1) && indexed
    }
    #expect(may([0, 0, 0x1F, 0x00]))
    #expect(!may([0, 0, 0x2F, 0x00]))
    #expect(may([0, 0, 0x13]), "the missing byte reads as 0")
    #expect(!may([0, 0]), "0 & 0xF0 is not 0x10")
    #expect(may([0x55], [test, .init(offset: 0, pattern: [], mask: [])]), "an empty string matches anything")
    // A search for "ab" from offset 4 over a range of 3: the string may start at 4, 5, 6 (and,
    // as libmagic's `memmem` window has it, 7), inside the head only.
    let search = MIMEMagicDatabase.FirstTests([.init(offset: 4, pattern: Array("ab".utf8), mask: [0xFF, 0xFF], range: 3)])
    func finds(_ text: String) -> Bool { Array(text.utf8).withUnsafeBytes { !search.candidates($0).isEmpty } }
    #expect(finds("0123ab") && finds("012345ab9") && finds("0123456ab"))
    #expect(!finds("ab23456") && !finds("01234567ab") && !finds("0123a") && !finds("01"))
  }

  @Test(
    "the lines of the system cut read as libmagic compares them: a head made to fit a first test matches that line alone in libmagic, and is told it may match"
  )
  func headsMadeToFitEachTest() throws {
    let (databases, split, tests) = try Self.firstTests()
    let cut = try Handle(databases.cut)
    var matchedByTheCut = 0
    let size = MIMEMagicDatabase.entrySize
    let oracleMIME = Array("!share/first-line".utf8)
    for (index, group) in split.tested.enumerated() {
      let test = try #require(databases.cut.withUnsafeBytes { MIMEMagicDatabase.FirstTest($0, entry: group.lowerBound) })
      var head = SampleBytes.random(count: max(4096, test.offset + test.pattern.count + 16), seed: 0xF1_0000 + UInt64(index))
      for (at, byte) in test.pattern.enumerated() {
        head[test.offset + at] = head[test.offset + at] & ~test.mask[at] | byte
      }
      #expect(head.withUnsafeBytes { tests.candidates($0).contains(index) }, "group at \(group.lowerBound): \(test)")
      if try cut.mime(head).utf8.first == MIMEMagicDatabase.marker { matchedByTheCut += 1 }
      // The oracle: libmagic with the first line alone (printing a MIME type of its own) matches
      // the head, so the bytes the test compares are the ones libmagic does.
      var line = Array(databases.cut[group.lowerBound * size..<(group.lowerBound + 1) * size])
      let mime = MIMEMagicDatabase.mimeOffset
      line.replaceSubrange(
        mime..<mime + MIMEMagicDatabase.mimeLength,
        with: oracleMIME + Array(repeating: 0, count: MIMEMagicDatabase.mimeLength - oracleMIME.count))
      var alone = [UInt8](repeating: 0, count: size)
      for (at, word) in [MIMEMagicDatabase.magicNumber, MIMEMagicDatabase.version, 1, 0].enumerated() {
        withUnsafeBytes(of: word) { alone.replaceSubrange(4 * at..<4 * at + 4, with: $0) }
      }
      let oracle = try Handle(alone + line).mime(head)
      #expect(oracle == String(decoding: oracleMIME, as: UTF8.self), "group at \(group.lowerBound): \(test)")
    }
    // The heads are what the lines look for: many of them are then recognised by the cut.
    #expect(matchedByTheCut > split.tested.count / 4, "\(matchedByTheCut) of \(split.tested.count)")
  }

  @Test(
    "for every head — random, real files, hits and near misses of each test — the rest with the groups that may match put back answers as the cut, and so does the cut in two parts"
  )
  func theRestAnswersAsTheCut() throws {
    let (databases, split, tests) = try Self.firstTests()
    let (cut, rest) = (try Handle(databases.cut), try Handle(databases[.rest], databases[.cutNamed]))
    let cutInTwo = try Handle(databases[.cutOrdinary], databases[.cutNamed])
    let each = try split.tested.map { group in
      try #require(databases.cut.withUnsafeBytes { MIMEMagicDatabase.FirstTest($0, entry: group.lowerBound) })
    }
    var heads = try MIMEMagicDatabaseTests.heads()
    for (index, length) in [1, 7, 64, 300, 600, 4096, 4096, 4096, 40_000].enumerated() {
      for seed in 0..<150 {
        heads.append(("random \(length) #\(seed)", SampleBytes.random(count: length, seed: 0xF2_0000 + UInt64(index * 1000 + seed))))
      }
    }
    // Near misses: each test's bytes with one bit of the last compared byte flipped.
    for (index, group) in split.tested.enumerated() {
      let test = try #require(databases.cut.withUnsafeBytes { MIMEMagicDatabase.FirstTest($0, entry: group.lowerBound) })
      guard let last = test.mask.lastIndex(where: { $0 != 0 }) else { continue }
      var head = SampleBytes.random(count: max(4096, test.offset + test.pattern.count + 16), seed: 0xF3_0000 + UInt64(index))
      for (at, byte) in test.pattern.enumerated() {
        head[test.offset + at] = head[test.offset + at] & ~test.mask[at] | byte
      }
      heads.append(("hit of group \(group.lowerBound)", head))
      head[test.offset + last] ^= test.mask[last] & (~test.mask[last] &+ 1)
      heads.append(("near miss of group \(group.lowerBound)", head))
    }
    var differences: [String] = []
    var (toTheRest, withSome, putBack, sentOn) = (0, 0, 0, 0)
    for (name, head) in heads {
      let fromCut = try cut.mime(head)
      // An answer that sends the bytes to the whole database (an `indirect` line was reached)
      // is that database's answer in the end, whatever the cut's was.
      func differs(_ answer: String) -> Bool {
        if answer.contains(MIMEMagicDatabase.fullDatabaseMIME) {
          sentOn += 1
          return false
        }
        return answer != fromCut
      }
      if differs(try cutInTwo.mime(head)) { differences.append("\(name): cut \(fromCut), in two parts \(try cutInTwo.mime(head))") }
      let candidates = head.withUnsafeBytes { tests.candidates($0) }
      // The index (by offset and first byte) loses no test that may match.
      #expect(candidates == head.withUnsafeBytes { bytes in each.indices.filter { each[$0].mayMatch(bytes) } }, "\(name)")
      let fromSome: String
      if candidates.isEmpty {
        toTheRest += 1
        fromSome = try rest.mime(head)
      } else {
        (withSome, putBack) = (withSome + 1, putBack + candidates.count)
        var database = [UInt8](repeating: 0xAA, count: tests.byteCount(with: candidates))
        databases[.cutOrdinary].withUnsafeBytes { cut in
          databases[.rest].withUnsafeBytes { rest in
            database.withUnsafeMutableBytes { tests.database(with: candidates, cut: cut, rest: rest, into: $0) }
          }
        }
        fromSome = try Handle(database, databases[.cutNamed]).mime(head)
      }
      if differs(fromSome) { differences.append("\(name): cut \(fromCut), \(candidates.count) groups put back \(fromSome)") }
    }
    #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(20).joined(separator: "; "))")
    #expect(sentOn < heads.count / 50, "\(sentOn) answers of \(2 * heads.count) sent on to the whole database")
    #expect(toTheRest > heads.count / 3, "only \(toTheRest) of \(heads.count) heads went to the rest")
    // Every hit put its group back, some near misses too; a few groups a head, not the cut.
    #expect(withSome >= split.tested.count && putBack < withSome * 8, "\(withSome) heads, \(putBack) groups put back")
  }

  @Test("a sniffer with its databases in a file asks the rest, or the rest and a few groups, and says what the full database says")
  func theSnifferAnswersAsTheFullDatabase() throws {
    let (sniffer, folder) = try BinaryPiecesTests.snifferWithAFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    let full = try ContentSniffer(cutFirst: false)
    var heads = [("png", SampleBytes.png), ("pdf", SampleBytes.pdf), ("zip", SampleBytes.plainZip), ("deb", SampleBytes.deb)]
    for seed in 0..<300 { heads.append(("random #\(seed)", SampleBytes.random(count: 4096, seed: 0xF4_0000 + UInt64(seed)))) }
    // Real files: their heads reach `use` lines, which find their named entries beside the rest.
    heads += try MIMEMagicDatabaseTests.heads().enumerated().filter { $0.offset % 5 == 0 }.map(\.element)
    for (name, head) in heads {
      let (answer, expected) = try head.withUnsafeBytes { (try sniffer.mimeType(ofHead: $0), try full.mimeType(ofHead: $0)) }
      #expect(answer == expected, "\(name)")
    }
    // Not for want of a rest: random bytes are answered by it, the signatures by it and their
    // groups put back, as the cut answers (or sent on to the whole database).
    let cut = try Handle(try Self.databases.get().cut)
    var ways: [ContentSniffer.CutPass] = []
    for (name, head) in heads {
      let (answer, way) = head.withUnsafeBytes { sniffer.cutPass(ofHead: $0) }
      ways.append(way)
      let expected = try cut.mime(head)
      let sentOn = answer?.contains(MIMEMagicDatabase.fullDatabaseMIME) == true
      #expect(answer == expected || sentOn, "\(name): \(answer ?? "none"), cut \(expected)")
    }
    #expect(ways.filter { $0 == .rest }.count > 200 && ways.prefix(4).allSatisfy { $0 == .some }, "\(ways.prefix(8))")
    // And never failed over to the cut: every head was answered the new way.
    #expect(!ways.contains(.cut), "\(ways.filter { $0 == .cut }.count) heads fell back to the cut")
  }
}
