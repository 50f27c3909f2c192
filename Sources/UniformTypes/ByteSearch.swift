#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Finding bytes in a head with libc's `memchr` and `memcmp` (`memmem` is not in Glibc's
/// module): a 64 KiB head of text is looked through several times per item for words that are
/// almost never there (a namespace, `editdata.mso`), and a byte loop in Swift cost a tenth of
/// the receiver's time on a folder of real files.
enum ByteSearch {
  /// Where `needle` first starts in `head` at or after `start`, within `end` (the needle must
  /// end by it; nil: the head's end); nil when it does not. An empty needle is found at `start`.
  static func firstIndex(
    of needle: UnsafeRawBufferPointer, in head: UnsafeRawBufferPointer, from start: Int = 0, end: Int? = nil
  ) -> Int? {
    let end = min(end ?? head.count, head.count)
    guard start >= 0, end - start >= needle.count else { return nil }
    guard let first = needle.first, let base = head.baseAddress, let pattern = needle.baseAddress else { return start }
    var at = base + start
    let last = base + end - needle.count
    while at <= last, let found = memchr(at, Int32(first), last - at + 1) {
      if memcmp(found, pattern, needle.count) == 0 { return base.distance(to: UnsafeRawPointer(found)) }
      at = UnsafeRawPointer(found) + 1
    }
    return nil
  }

  /// `firstIndex(of:in:from:end:)` for a needle in an array.
  static func firstIndex(of needle: [UInt8], in head: UnsafeRawBufferPointer, from start: Int = 0, end: Int? = nil) -> Int? {
    needle.withUnsafeBytes { firstIndex(of: $0, in: head, from: start, end: end) }
  }

  /// Whether `head` holds `needle`'s bytes.
  static func contains(_ needle: [UInt8], in head: UnsafeRawBufferPointer) -> Bool {
    firstIndex(of: needle, in: head) != nil
  }

  /// Whether `text`'s UTF-8 holds `needle`'s: a byte search, where `String.contains` builds a
  /// searcher (a dictionary) per call and compares Characters — per part name of a package of
  /// 65,000, that was seconds (review 25).
  static func contains(_ needle: String, in text: some StringProtocol) -> Bool {
    let needle = Array(needle.utf8)
    return text.utf8.withContiguousStorageIfAvailable { contains(needle, in: UnsafeRawBufferPointer($0)) }
      ?? Array(text.utf8).withUnsafeBytes { contains(needle, in: $0) }
  }

  /// Whether `head` holds `needle` (ASCII) with its letters in any case.
  static func containsIgnoringCase(_ needle: String, in head: UnsafeRawBufferPointer) -> Bool {
    let lowered = needle.utf8.map(lowercase)
    guard let first = lowered.first else { return true }
    guard head.count >= lowered.count, let base = head.baseAddress else { return false }
    let upper = first >= 0x61 && first <= 0x7A ? first - 0x20 : first
    let last = head.count - lowered.count
    // The next place of each spelling of the first byte, found by memchr once each.
    func next(_ byte: UInt8, from index: Int) -> Int {
      guard index <= last, let found = memchr(base + index, Int32(byte), last - index + 1) else { return Int.max }
      return base.distance(to: UnsafeRawPointer(found))
    }
    var nextLower = next(first, from: 0)
    var nextUpper = upper == first ? Int.max : next(upper, from: 0)
    while true {
      let index = min(nextLower, nextUpper)
      guard index != Int.max else { return false }
      var match = true
      for offset in 1..<lowered.count where lowercase(head[index + offset]) != lowered[offset] {
        match = false
        break
      }
      if match { return true }
      if index == nextLower { nextLower = next(first, from: index + 1) } else { nextUpper = next(upper, from: index + 1) }
    }
  }

  /// Whether `head` holds `needle` (ASCII; its letters in any case when `ignoringCase`) with
  /// what `skipped` finds at a place (its length; 0: nothing) allowed between the needle's bytes:
  /// line breaks in base64, quoted-printable soft line breaks, quotes. No byte that starts a
  /// skipped run may be one of the needle's (each place is tried as the needle's byte first).
  static func contains(
    _ needle: String, in head: UnsafeRawBufferPointer, ignoringCase: Bool, skipping skipped: (UnsafeRawBufferPointer, Int) -> Int
  ) -> Bool {
    let wanted = ignoringCase ? needle.utf8.map(lowercase) : Array(needle.utf8)
    guard let first = wanted.first else { return true }
    guard let base = head.baseAddress else { return false }
    let upper = ignoringCase && first >= 0x61 && first <= 0x7A ? first - 0x20 : first
    func next(_ byte: UInt8, from index: Int) -> Int {
      guard index < head.count, let found = memchr(base + index, Int32(byte), head.count - index) else { return Int.max }
      return base.distance(to: UnsafeRawPointer(found))
    }
    func matches(from start: Int) -> Bool {
      var (index, matched) = (start + 1, 1)
      while matched < wanted.count {
        guard index < head.count else { return false }
        let byte = ignoringCase ? lowercase(head[index]) : head[index]
        if byte == wanted[matched] {
          (index, matched) = (index + 1, matched + 1)
        } else {
          let skip = skipped(head, index)
          guard skip > 0 else { return false }
          index += skip
        }
      }
      return true
    }
    var (nextFirst, nextUpper) = (next(first, from: 0), upper == first ? Int.max : next(upper, from: 0))
    while true {
      let index = min(nextFirst, nextUpper)
      guard index != Int.max else { return false }
      if matches(from: index) { return true }
      if index == nextFirst { nextFirst = next(first, from: index + 1) } else { nextUpper = next(upper, from: index + 1) }
    }
  }

  /// An ASCII capital letter as the small one; any other byte as it is.
  static func lowercase(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
  }
}
