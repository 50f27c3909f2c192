#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension MIMEMagicDatabase {
  /// A guard line for a group whose first line is slow to fail, the group's own lines one level
  /// deeper. Wherever the original first line matches, the guard matches too and the group runs
  /// as before; where the guard fails, the original line would have failed. The guard prints
  /// nothing and sets nothing the group's lines read: their offsets are absolute, or relative
  /// to their own parent, which keeps its place one level deeper. Three kinds:
  ///
  /// - **A slow `search`.** libmagic (5.44) looks for a search string with `memmem` only when the
  ///   line has no modifiers; with any (`/c`, `/W`, even just `/b`) it compares the string at
  ///   every offset of the range, one call each. Over random bytes two such lines
  ///   (`<!doctype svg` over 4 KiB, `(This file` over 2.6 KiB) were a third of the cut
  ///   database's time. The guard is a modifier-free `search` over the same range for the
  ///   leading bytes of the string that every match must hold as they are (up to a space the
  ///   modifiers let vary, or a letter whose case they let vary).
  ///
  ///   A first line marked for binary only (`/b`) or text only (`/t`) gets no such guard:
  ///   libmagic skips it on bytes of the other kind only while it is a first line, a check that
  ///   would be lost one level down (`(This file` /b would then match text). Marked for both
  ///   (`/bt`), or neither, the check never skips it.
  /// - **A text-only `search` with modifiers** (`<html` /cWt and the other HTML lines over
  ///   4 KiB: half of the cut database's time over text). The guard is a `regex` for the
  ///   string's leading bytes (up to a space the modifiers let vary, and but for the last, which
  ///   a regex never sees at the end of its window), ignoring case when the search ignores any,
  ///   marked `/t` itself so that libmagic still skips it on bytes that are not text; its window
  ///   covers the search's range and the string. A regex stops at a NUL, but an entry whose
  ///   lines are all text tests runs only in libmagic's text pass, over text, which has none
  ///   (an entry with a binary test in it gets no such guard).
  /// - **A `regex`** (glibc's matcher, tried over up to 8 KiB at each line). The guard is a
  ///   modifier-free `search` over the regex's window for the longest run of bytes every match
  ///   holds (`requiredLiteral(of:)`: `.type` in `^[ \t]{0,50}\.type`), for regexes that do not
  ///   ignore case, are not marked for one kind of bytes only, and compile (one that does not
  ///   fails wherever libmagic reaches it, and must still fail there).
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
    /// Regexes are slow only over text, where two bytes are found everywhere.
    static let minimumRegexLiteral = 3
    /// `str_flags` bits: `/c` and `/C`; a regex's `/l` (its range counts lines of 80 bytes,
    /// REGEX_LINE_COUNT); `/t` alone.
    static let ignoreCase: UInt32 = ignoreLowercase | ignoreUppercase
    static let regexLineCount: UInt32 = 0x800
    static let textOnly: UInt32 = 0x20
    /// `flag` bit BINTEST: some line of the entry is a binary test, so it runs in libmagic's
    /// pass over the raw bytes too (which may hold NULs), not only in the text pass.
    static let binaryTest: UInt8 = 0x20
    /// The `str_flags` bits whose meaning this knows for a `search`: W w c C s t b T f. A line
    /// with any other gets no guard.
    static let knownSearchFlags: UInt32 = 0x7F | 0x2000 | 0x4000
    /// Likewise for a `regex`: c C s t b l T.
    static let knownRegexFlags: UInt32 = 0x7C | regexLineCount | 0x2000

    /// A guard line: its type (`search` or `regex`), what it looks for, its range and its
    /// `str_flags`; at the guarded line's offset, with its test kind.
    struct Line: Equatable {
      var type: UInt8
      var value: [UInt8]
      var range: UInt32
      var stringFlags: UInt32
    }

    /// The guard for `entry`, a top-level line, when it needs one and one can be had.
    /// `regexLimit` is libmagic's `MAGIC_PARAM_REGEX_MAX`: the most bytes a regex is tried over.
    static func line(_ database: UnsafeRawBufferPointer, _ entry: Int, regexLimit: Int) -> Line? {
      let line = UnsafeRawBufferPointer(rebasing: database[entry * entrySize..<(entry + 1) * entrySize])
      if let length = literalLength(database, entry) {
        return Line(
          type: searchType, value: Array(string(line).prefix(length)),
          range: line.loadUnaligned(fromByteOffset: rangeOffset, as: UInt32.self), stringFlags: 0)
      }
      guard isPlain(line) else { return nil }
      switch line[typeOffset] {
      case searchType: return textSearchGuard(line, regexLimit: regexLimit)
      case regexType: return regexGuard(line, regexLimit: regexLimit)
      default: return nil
      }
    }

    /// A line that matches when its value is found: relation `=`, its offset direct, no mask,
    /// no condition.
    static func isPlain(_ line: UnsafeRawBufferPointer) -> Bool {
      line[relationOffset] == UInt8(ascii: "=") && line[flagOffset] & offsetFlags == 0 && line[maskOperatorOffset] == 0
        && line[conditionOffset] == 0
    }

    /// The string of a `search` or the pattern of a `regex`.
    static func string(_ line: UnsafeRawBufferPointer) -> ArraySlice<UInt8> {
      ArraySlice(line[valueOffset..<valueOffset + min(Int(line[valueLengthOffset]), valueLength)])
    }

    /// The `regex` guard of a text-only `search` with modifiers.
    static func textSearchGuard(_ line: UnsafeRawBufferPointer, regexLimit: Int) -> Line? {
      let flags = line.loadUnaligned(fromByteOffset: stringFlagsOffset, as: UInt32.self)
      let range = line.loadUnaligned(fromByteOffset: rangeOffset, as: UInt32.self)
      guard flags & binaryOrText == textOnly, line[flagOffset] & binaryTest == 0, flags & ~knownSearchFlags == 0,
        range >= minimumRange
      else { return nil }
      let string = string(line).prefix { byte in
        (0x21...0x7E).contains(byte) && !(flags & compactWhitespace != 0 && isSpace(byte))
      }
      // A regex never sees the last byte of its window, which can be the head's last: leave
      // the string's last byte out.
      let literal = string.dropLast()
      let window = Int(range) + string.count + 1
      guard literal.count >= minimumLiteral, window <= regexLimit else { return nil }
      let pattern = literal.flatMap { ereSpecials.contains($0) ? [UInt8(ascii: "\\"), $0] : [$0] }
      guard pattern.count < valueLength else { return nil }
      return Line(
        type: regexType, value: pattern, range: UInt32(window), stringFlags: textOnly | (flags & ignoreCase != 0 ? ignoreCase : 0))
    }

    /// The `search` guard of a `regex`.
    static func regexGuard(_ line: UnsafeRawBufferPointer, regexLimit: Int) -> Line? {
      let flags = line.loadUnaligned(fromByteOffset: stringFlagsOffset, as: UInt32.self)
      let range = line.loadUnaligned(fromByteOffset: rangeOffset, as: UInt32.self)
      let kinds = flags & binaryOrText
      guard flags & ~knownRegexFlags == 0, flags & ignoreCase == 0, kinds == 0 || kinds == binaryOrText else { return nil }
      // libmagic compiles the pattern as a C string: up to its first NUL. A pattern glibc cannot
      // compile fails wherever it is reached; it gets no guard, so it still fails there.
      let pattern = Array(string(line).prefix { $0 != 0 })
      guard compiles(pattern) else { return nil }
      let literal = requiredLiteral(of: pattern)
      guard literal.count >= minimumRegexLiteral else { return nil }
      // The regex's window: its range in bytes, or in lines of 80 bytes, at most `regexLimit`;
      // with no range, `regexLimit`.
      let bytes = flags & regexLineCount != 0 ? Int(range) * 80 : Int(range)
      let window = bytes == 0 ? regexLimit : min(bytes, regexLimit)
      return Line(type: searchType, value: literal, range: UInt32(clamping: window), stringFlags: 0)
    }

    /// How many leading bytes of `entry`'s search string a guard can look for, when `entry` is
    /// a top-level `search` that needs one: nil for any other line.
    static func literalLength(_ database: UnsafeRawBufferPointer, _ entry: Int) -> Int? {
      let line = UnsafeRawBufferPointer(rebasing: database[entry * entrySize..<(entry + 1) * entrySize])
      let flags = line.loadUnaligned(fromByteOffset: stringFlagsOffset, as: UInt32.self)
      let range = line.loadUnaligned(fromByteOffset: rangeOffset, as: UInt32.self)
      let kinds = flags & binaryOrText
      guard line[typeOffset] == searchType, flags != 0, kinds == 0 || kinds == binaryOrText, isPlain(line),
        range == 0 || range >= minimumRange
      else { return nil }
      let literal = string(line).prefix { byte in
        if flags & compactWhitespace != 0, isSpace(byte) { return false }
        if flags & ignoreLowercase != 0, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) { return false }
        if flags & ignoreUppercase != 0, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) { return false }
        return true
      }
      return literal.count >= minimumLiteral ? literal.count : nil
    }

    /// Writes `guardLine` for the top-level line `original` into `target`: the original line
    /// (its offset and test kind) with the guard's type, value, range and flags, printing
    /// nothing.
    static func write(_ guardLine: Line, guarding original: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) {
      precondition(guardLine.value.count < valueLength)
      target.copyMemory(from: original)
      target[typeOffset] = guardLine.type
      target.storeBytes(of: guardLine.range, toByteOffset: rangeOffset, as: UInt32.self)
      target.storeBytes(of: guardLine.stringFlags, toByteOffset: stringFlagsOffset, as: UInt32.self)
      target[valueLengthOffset] = UInt8(guardLine.value.count)
      for index in 0..<valueLength { target[valueOffset + index] = index < guardLine.value.count ? guardLine.value[index] : 0 }
      // No description, MIME type, Apple type or extensions: it prints nothing.
      for index in descriptionOffset..<entrySize { target[index] = 0 }
    }

    /// Whether glibc compiles `pattern` as libmagic does (`REG_EXTENDED | REG_NEWLINE`, the C
    /// locale: this process never sets another).
    static func compiles(_ pattern: [UInt8]) -> Bool {
      var regex = regex_t()
      let status = (pattern + [0]).withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { regcomp(&regex, $0.baseAddress, REG_EXTENDED | REG_NEWLINE) }
      }
      guard status == 0 else { return false }
      regfree(&regex)
      return true
    }

    /// C's `isspace` in the C locale.
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
  }
}
