extension MIMEMagicDatabase {
  /// A guard line for a group whose first line is a slow `search`: libmagic (5.44) looks for a
  /// search string with `memmem` only when the line has no modifiers; with any (`/c`, `/W`,
  /// even just `/b`) it compares the string at every offset of the range, one call each. Over
  /// random bytes two such lines (`<!doctype svg` over 4 KiB, `(This file` over 2.6 KiB) were a
  /// third of the cut database's time.
  ///
  /// The guard is a modifier-free `search` over the same range for the leading bytes of the
  /// string that every match must hold as they are (up to a space the modifiers let vary, or a
  /// letter whose case they let vary); the group's own lines follow one level deeper. Wherever
  /// the original first line matches, those bytes are at the same offset, so the guard matches
  /// too and the group runs as before; where the guard fails, the original line would have
  /// failed. The guard prints nothing and sets nothing the group's lines read: their offsets are
  /// absolute, or relative to their own parent, which keeps its place one level deeper.
  ///
  /// A first line marked for binary only (`/b`) or text only (`/t`) gets no guard: libmagic
  /// skips it on bytes of the other kind only while it is a first line, a check that would be
  /// lost one level down (`(This file` /b would then match text). Marked for both (`/bt`), or
  /// neither, the check never skips it.
  enum Guard {
    /// `flag` bits: an indirect or relative offset (INDIR, OFFADD, INDIROFFADD), an offset from
    /// the end (OFFNEGATIVE).
    static let offsetFlags: UInt8 = 0x87
    /// `str_flags` bits: `/W` and `/w` (spaces vary), `/c` (lower-case letters match either
    /// case), `/C` (upper-case letters do).
    static let compactWhitespace: UInt32 = 0x03
    static let ignoreLowercase: UInt32 = 0x04
    static let ignoreUppercase: UInt32 = 0x08
    /// `str_flags` bits `/b` (STRING_BINTEST) and `/t` (STRING_TEXTTEST).
    static let binaryOrText: UInt32 = 0x60
    /// Ranges shorter than this are cheap enough as they are.
    static let minimumRange: UInt32 = 64
    /// Shorter literals would be found in most random bytes.
    static let minimumLiteral = 2

    /// How many leading bytes of `entry`'s search string a guard can look for, when `entry` is
    /// a top-level `search` that needs one: nil for any other line.
    static func literalLength(_ database: UnsafeRawBufferPointer, _ entry: Int) -> Int? {
      let line = UnsafeRawBufferPointer(rebasing: database[entry * entrySize..<(entry + 1) * entrySize])
      let flags = line.loadUnaligned(fromByteOffset: stringFlagsOffset, as: UInt32.self)
      let range = line.loadUnaligned(fromByteOffset: rangeOffset, as: UInt32.self)
      let kinds = flags & binaryOrText
      guard line[typeOffset] == searchType, flags != 0, kinds == 0 || kinds == binaryOrText, line[relationOffset] == UInt8(ascii: "="),
        line[flagOffset] & offsetFlags == 0, line[maskOperatorOffset] == 0, line[conditionOffset] == 0,
        range == 0 || range >= minimumRange
      else { return nil }
      let string = line[valueOffset..<valueOffset + min(Int(line[valueLengthOffset]), valueLength)]
      let literal = string.prefix { byte in
        if flags & compactWhitespace != 0, isSpace(byte) { return false }
        if flags & ignoreLowercase != 0, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) { return false }
        if flags & ignoreUppercase != 0, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { return false }
        return true
      }
      return literal.count >= minimumLiteral ? literal.count : nil
    }

    /// Writes the guard for the top-level line `original` into `target`: the same line (its
    /// offset, range and test kind) without modifiers, looking for the first `literalLength`
    /// bytes of its string, and printing nothing.
    static func write(guarding original: UnsafeRawBufferPointer, literalLength: Int, into target: UnsafeMutableRawBufferPointer) {
      target.copyMemory(from: original)
      target.storeBytes(of: 0, toByteOffset: stringFlagsOffset, as: UInt32.self)
      target[valueLengthOffset] = UInt8(literalLength)
      for index in valueOffset + literalLength..<valueOffset + valueLength { target[index] = 0 }
      // No description, MIME type, Apple type or extensions: it prints nothing.
      for index in descriptionOffset..<entrySize { target[index] = 0 }
    }

    /// C's `isspace` in the C locale.
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
  }
}
