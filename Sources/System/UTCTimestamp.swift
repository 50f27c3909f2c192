import Glibc

/// `YYYY-MM-DDTHH:MM:SSZ` — UTC, whole seconds — the shape share writes times in its journal and
/// its files, read with `timegm`. Foundation's ISO 8601 parsing reads the same text through a
/// calendar, which loads ICU's time-zone data (about 1.3 MiB resident in a daemon that reads its
/// trust store); this does not.
package enum UTCTimestamp {
  /// Seconds since 1970 for exactly that shape (20 bytes) naming a real time of day on a real
  /// date, else nil (Feb 30 and leap seconds too: they are left to a calendar).
  package static func seconds(_ digits: UnsafeRawBufferPointer) -> Int? {
    guard digits.count == 20, digits[4] == UInt8(ascii: "-"), digits[7] == UInt8(ascii: "-"), digits[10] == UInt8(ascii: "T"),
      digits[13] == UInt8(ascii: ":"), digits[16] == UInt8(ascii: ":"), digits[19] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ range: Range<Int>) -> Int32? {
      var value: Int32 = 0
      for index in range {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digits[index]) else { return nil }
        value = value * 10 + Int32(digits[index] - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
      let minute = number(14..<16), let second = number(17..<19)
    else { return nil }
    var parts = tm()
    parts.tm_year = year - 1900
    parts.tm_mon = month - 1
    parts.tm_mday = day
    parts.tm_hour = hour
    parts.tm_min = minute
    parts.tm_sec = second
    var seconds = timegm(&parts)
    // timegm normalises (Feb 30 → Mar 2): only a time that reads back the same is taken.
    var back = tm()
    guard gmtime_r(&seconds, &back) != nil, back.tm_year == year - 1900, back.tm_mon == month - 1, back.tm_mday == day,
      back.tm_hour == hour, back.tm_min == minute, back.tm_sec == second
    else { return nil }
    return Int(seconds)
  }

  /// `seconds(_:)` of a string's UTF-8.
  package static func seconds(_ text: String) -> Int? {
    var text = text
    return text.withUTF8 { seconds(UnsafeRawBufferPointer($0)) }
  }
}
