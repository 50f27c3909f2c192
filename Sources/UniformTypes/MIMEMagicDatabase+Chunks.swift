extension MIMEMagicDatabase {
  /// What a chunk prints when none of its entries matched: ask the next one.
  package static let nextChunkMIME = "share/next-chunk"
  /// What a chunk's `indirect` line prints instead of running a database again: ask the full one.
  package static let fullDatabaseMIME = "share/full-database"

  /// The guarded whole database's binary entries in pieces of about 1 MiB, each a database of
  /// its own, and its named entries in one more, that every piece's handle also loads; for
  /// bytes that are not text, the pieces one after the other say what the whole says, and the
  /// pages of each can be given back before the next is read. A marked answer for random bytes
  /// (1% of them: DOS COM's one-byte tests) read the whole 8 MiB at once; in pieces it holds
  /// one at a time.
  ///
  /// Why the pieces say what the whole says, for bytes libmagic does not take for text (its
  /// built-in checks answer `application/octet-stream`): libmagic then runs one pass over the
  /// database's top-level entries that test binary data (`BINTEST`), in order, and stops at
  /// the first that matches — with its MIME type, or, with none (a description only), with
  /// the built-in answer; nothing else runs on bytes that are not text. So the pieces keep
  /// exactly those entries, in order, each ending with a line that always matches and prints
  /// `nextChunkMIME`. A piece's answer is then: a marked MIME type (the first match printed
  /// it: the answer), `nextChunkMIME` (nothing matched: the next piece), or an unmarked one
  /// (a match without a MIME type stopped the pass: the built-in answer, the answer). An
  /// `indirect` line would run only its own piece again, so it is rewritten to print
  /// `fullDatabaseMIME`, and such an answer is asked of the whole database.
  package struct BinaryChunks {
    let plan: Plan
    /// The ordinary groups of each piece, in the whole database's order.
    let pieces: [[Range<Int>]]

    /// Entries in a piece, about 1 MiB.
    package static let entriesPerPiece = 2_800

    /// The pieces of `database`; nil when it is not a native-endian version-18 database.
    package init?(_ database: UnsafeRawBufferPointer, regexLimit: Int = defaultRegexLimit, entriesPerPiece: Int = entriesPerPiece) {
      guard let plan = Plan(database, cutting: false, regexLimit: regexLimit) else { return nil }
      self.plan = plan
      var pieces: [[Range<Int>]] = []
      var piece: [Range<Int>] = []
      var entries = 0
      for group in plan.ordinary where database[group.lowerBound * entrySize + flagOffset] & Self.binaryTest != 0 {
        if entries + plan.writtenCount(group) > entriesPerPiece && !piece.isEmpty {
          pieces.append(piece)
          (piece, entries) = ([], 0)
        }
        piece.append(group)
        entries += plan.writtenCount(group)
      }
      if !piece.isEmpty { pieces.append(piece) }
      self.pieces = pieces
    }

    /// `BINTEST` in `struct magic`'s `flag`: a top-level entry that the binary pass runs.
    static let binaryTest: UInt8 = 0x20

    /// The named entries' database, then each piece's, one after the other.
    package var byteCount: Int { namesByteCount + pieces.reduce(0) { $0 + pieceByteCount($1) } }

    private var namesByteCount: Int { entrySize * (1 + plan.namedCount) }

    private func pieceByteCount(_ piece: [Range<Int>]) -> Int {
      entrySize * (2 + piece.reduce(0) { $0 + plan.writtenCount($1) })
    }

    /// Writes the databases into `output` (`byteCount` bytes); false when a MIME type is too
    /// long to mark.
    package func write(into output: UnsafeMutableRawBufferPointer) -> Bool {
      precondition(output.count >= byteCount)
      var names = EntryWriter(UnsafeMutableRawBufferPointer(rebasing: output[..<namesByteCount]), ordinary: 0, named: plan.namedCount)
      guard plan.named.allSatisfy({ plan.write($0, to: &names, marking: true, rewritingIndirect: true) }) else { return false }
      var start = namesByteCount
      for piece in pieces {
        let length = pieceByteCount(piece)
        let bytes = UnsafeMutableRawBufferPointer(rebasing: output[start..<start + length])
        var writer = EntryWriter(bytes, ordinary: length / entrySize - 1, named: 0)
        guard piece.allSatisfy({ plan.write($0, to: &writer, marking: true, rewritingIndirect: true) }) else { return false }
        Self.writeLast(into: writer.next())
        start += length
      }
      return true
    }

    /// A piece's last line: `0 byte x`, for the binary pass, printing `nextChunkMIME`.
    private static func writeLast(into line: UnsafeMutableRawBufferPointer) {
      line[flagOffset] = binaryTest
      line[relationOffset] = UInt8(ascii: "x")
      line[typeOffset] = byteType
      store(nextChunkMIME, inMIMEOf: line)
    }
  }

  /// `FILE_BYTE` in file.h.
  static let byteType: UInt8 = 1

  /// Turns an `indirect` line into `byte x` at the same offset, printing `fullDatabaseMIME`:
  /// it matches wherever the `indirect` line could (an offset inside the bytes), and its answer
  /// sends the bytes to the whole database.
  static func rewriteIndirect(_ line: UnsafeMutableRawBufferPointer) {
    line[typeOffset] = byteType
    line[relationOffset] = UInt8(ascii: "x")
    line[valueLengthOffset] = 0
    line[maskOperatorOffset] = 0
    // The string range and flags (`INDIRECT_RELATIVE`), read as a byte's mask: none.
    for index in rangeOffset..<valueOffset + valueLength { line[index] = 0 }
    for index in descriptionOffset..<entrySize { line[index] = 0 }
    store(fullDatabaseMIME, inMIMEOf: line)
  }

  private static func store(_ mime: String, inMIMEOf line: UnsafeMutableRawBufferPointer) {
    for (index, byte) in mime.utf8.enumerated() { line[mimeOffset + index] = byte }
    line[mimeOffset + mime.utf8.count] = 0
  }
}
