import Foundation
import UniformTypes

/// Reads back exactly the journal lines `MetadataRecord.jsonLine` writes (its keys in its order,
/// its escapes), about fifty times faster than `JSONDecoder`: listing an Inbox of 100,000 items
/// reads 100,000 records. Pure. Any other line (an older writer's, a torn one) gives nil, and
/// the journal then decodes it with `JSONDecoder`, so the result never depends on the fast path.
struct MetadataLineParser {
  private let bytes: UnsafeRawBufferPointer
  private var index = 0

  /// The record on `line`, or nil when the line is not in `jsonLine`'s exact shape.
  static func parse(_ line: UnsafeRawBufferPointer) -> MetadataRecord? {
    var parser = MetadataLineParser(bytes: line)
    return parser.record()
  }

  private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  private mutating func record() -> MetadataRecord? {
    guard literal("{\"file\":{\"inode\":"), let inode = integer().flatMap(UInt64.init(exactly:)),
      literal(",\"mtime_nanoseconds\":"), let mtime = integer(), literal(",\"size\":"), let fileSize = integer(),
      literal("},\"meta\":{\"kind\":"), let kindText = string(), let kind = ItemKind(rawValue: kindText),
      literal(",\"original_name\":"), let originalName = string(), literal(",\"received_at\":"),
      let receivedText = string(), let receivedAt = MetadataLineParser.date(receivedText),
      literal(",\"sender_id\":"), let senderId = string(), literal(",\"sender_name\":"), let senderName = string(),
      literal(",\"size\":"), let size = integer()
    else { return nil }
    var meta = ItemMetadata(
      originalName: originalName, kind: kind, senderName: senderName, senderId: senderId, receivedAt: receivedAt, size: size)
    if literal(",\"files\":") {
      guard let files = integer() else { return nil }
      meta.files = Int(files)
    }
    if literal(",\"sha256\":") {
      guard let sha = string() else { return nil }
      meta.sha256 = sha
    }
    if literal(",\"type\":") {
      guard let type = string() else { return nil }
      meta.type = TypeIdentifier(rawValue: type)
    }
    guard literal("}}"), index == bytes.count else { return nil }
    return MetadataRecord(file: FileIdentity(inode: inode, size: fileSize, mtimeNanoseconds: mtime), meta: meta)
  }

  /// Consumes `text` if the bytes at the cursor are exactly it.
  private mutating func literal(_ text: StaticString) -> Bool {
    let count = text.utf8CodeUnitCount
    guard index + count <= bytes.count else { return false }
    let start = text.utf8Start
    for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
    index += count
    return true
  }

  /// A decimal integer, optionally negative, that fits an Int64.
  private mutating func integer() -> Int64? {
    let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    var value: Int64 = 0
    let start = index
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
      guard !overflow1, !overflow2 else { return nil }
      value = sum
      index += 1
    }
    guard index > start, index - start <= 19 else { return nil }
    return negative ? -value : value
  }

  /// A JSON string with only the escapes `jsonString` writes (`\"`, `\\`, `\n`, `\r`, `\t` and
  /// `\u00XX` for a control character); anything else gives nil.
  private mutating func string() -> String? {
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
    index += 1
    var utf8: [UInt8] = []
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""):
        return String(validating: utf8, as: UTF8.self)
      case UInt8(ascii: "\\"):
        guard index < bytes.count, let unescaped = escape() else { return nil }
        utf8.append(contentsOf: unescaped)
      default:
        utf8.append(byte)
      }
    }
    return nil
  }

  /// The bytes an escape (after its backslash) stands for.
  private mutating func escape() -> [UInt8]? {
    let byte = bytes[index]
    index += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): return [byte]
    case UInt8(ascii: "n"): return [0x0A]
    case UInt8(ascii: "r"): return [0x0D]
    case UInt8(ascii: "t"): return [0x09]
    case UInt8(ascii: "u"):
      guard index + 4 <= bytes.count,
        let value = UInt32(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<index + 4]), as: UTF8.self), radix: 16),
        value < 0xA0, let scalar = Unicode.Scalar(value)
      else { return nil }
      index += 4
      return Array(String(scalar).utf8)
    default: return nil
    }
  }

  /// `YYYY-MM-DDTHH:MM:SSZ`, as `iso8601` writes it.
  static func date(_ text: String) -> Date? {
    let digits = Array(text.utf8)
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
      let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day),
      hour < 24, minute < 60, second < 61
    else { return nil }
    var parts = tm()
    parts.tm_year = year - 1900
    parts.tm_mon = month - 1
    parts.tm_mday = day
    parts.tm_hour = hour
    parts.tm_min = minute
    parts.tm_sec = second
    return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
  }
}
