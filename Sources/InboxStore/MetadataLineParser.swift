import Foundation
import System
import TextEscaping
import UniformTypes

/// Reads back exactly the journal lines `MetadataRecord.jsonLine` writes (its keys in its order,
/// its escapes), about fifty times faster than `JSONDecoder`: listing an Inbox of 100,000 items
/// reads 100,000 records. Any other line (an older writer's, a torn one) gives nil, and the
/// journal then decodes it with `JSONDecoder`, so the result never depends on the fast path.
/// One parser reads many lines: values that repeat from record to record (the sender, the
/// type) are made into strings once and shared.
struct MetadataLineParser {
  private var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
  private var index = 0
  /// The fields whose values repeat from record to record.
  private enum Repeating: Int, CaseIterable { case senderId, senderName, type }
  /// Recent values of each repeating field, reused when the bytes are the same.
  private var recent = [RecentStrings](repeating: RecentStrings(), count: Repeating.allCases.count)

  /// The record on `line`, or nil when the line is not in `jsonLine`'s exact shape.
  static func parse(_ line: UnsafeRawBufferPointer) -> MetadataRecord? {
    var parser = MetadataLineParser()
    return parser.parse(line)
  }

  /// The record on `line` (valid only during the call), or nil as `parse` says.
  mutating func parse(_ line: UnsafeRawBufferPointer) -> MetadataRecord? {
    bytes = line
    index = 0
    return record()
  }

  private mutating func record() -> MetadataRecord? {
    guard literal("{\"file\":{\"inode\":"), let inode = integer().flatMap(UInt64.init(exactly:)),
      literal(",\"mtime_nanoseconds\":"), let mtime = integer(), literal(",\"size\":"), let fileSize = integer(),
      literal("},\"meta\":{\"kind\":"), let kindText = string(), let kind = ItemKind(rawValue: kindText),
      literal(",\"original_name\":"), let originalName = string(), literal(",\"received_at\":"),
      let receivedAt = date(),
      literal(",\"sender_id\":"), let senderId = string(reusing: .senderId), literal(",\"sender_name\":"),
      let senderName = string(reusing: .senderName), literal(",\"size\":"), let size = integer()
    else { return nil }
    var meta = ItemMetadata(
      originalName: PeerText(originalName), kind: kind, senderName: PeerText(senderName), senderId: senderId, receivedAt: receivedAt,
      size: size)
    guard optionalFields(&meta), literal("}}"), index == bytes.count else { return nil }
    return MetadataRecord(file: FileIdentity(inode: inode, size: fileSize, mtimeNanoseconds: mtime), meta: meta)
  }

  /// The fields `jsonLine` writes only when they have a value, in its order; false when one is
  /// malformed.
  private mutating func optionalFields(_ meta: inout ItemMetadata) -> Bool {
    if literal(",\"files\":") {
      guard let files = integer() else { return false }
      meta.files = Int(files)
    }
    if literal(",\"sha256\":") {
      guard let sha = string() else { return false }
      meta.sha256 = sha
    }
    if literal(",\"type\":") {
      guard let type = string(reusing: .type) else { return false }
      meta.type = TypeIdentifier(rawValue: type)
    }
    if literal(",\"protocol\":") {
      guard let via = string() else { return false }
      meta.protocol = via
    }
    if literal(",\"sender_verified\":") {
      if literal("true") {
        meta.senderVerified = true
      } else if literal("false") {
        meta.senderVerified = false
      } else {
        return false
      }
    }
    if literal(",\"contact_name\":") {
      guard let contact = string() else { return false }
      meta.contactName = PeerText(contact)
    }
    if literal(",\"posed_as\":") {
      guard let posed = string() else { return false }
      meta.posedAs = PeerText(posed)
    }
    if literal(",\"entries_refused\":") {
      guard let count = integer() else { return false }
      meta.entriesRefused = Int(count)
    }
    if literal(",\"refused_entries\":[") {
      guard let entries = refusedEntries() else { return false }
      meta.refusedEntries = entries
    }
    return true
  }

  /// A folder's refused entries, after the opening bracket up to and with the closing one.
  private mutating func refusedEntries() -> [ItemMetadata.RefusedEntry]? {
    var entries: [ItemMetadata.RefusedEntry] = []
    if literal("]") { return entries }
    repeat {
      guard literal("{\"path\":"), let path = string(), literal(",\"reason\":"), let reason = string(), literal("}") else {
        return nil
      }
      entries.append(ItemMetadata.RefusedEntry(path: PeerText(path), reason: PeerText(reason)))
    } while literal(",")
    return literal("]") ? entries : nil
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

  /// A JSON string with only the escapes `JSONString`'s journal style writes (`\"`, `\\`, `\n`, `\r`, `\t` and
  /// `\u00XX` for a control character); anything else gives nil. With `recent`, a value without
  /// escapes that is among those recently read is that same string.
  private mutating func string(reusing field: Repeating? = nil) -> String? {
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
    let start = index + 1
    var end = start
    var bits: UInt8 = 0
    while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") {
      bits |= bytes[end]
      end += 1
    }
    guard end < bytes.count else { return nil }
    guard bytes[end] == UInt8(ascii: "\"") else { return escapedString(from: start) }
    index = end + 1
    let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    guard let field else { return MetadataLineParser.text(raw, ascii: bits < 0x80) }
    if let known = recent[field.rawValue].find(raw) { return known }
    guard let made = MetadataLineParser.text(raw, ascii: bits < 0x80) else { return nil }
    recent[field.rawValue].add(made)
    return made
  }

  /// `raw` as a string when it is valid UTF-8 (all of it is when it is ASCII).
  private static func text(_ raw: UnsafeRawBufferPointer, ascii: Bool) -> String? {
    let units = raw.assumingMemoryBound(to: UInt8.self)
    return ascii ? String(decoding: units, as: UTF8.self) : String(validating: units, as: UTF8.self)
  }

  /// A string of exactly `YYYY-MM-DDTHH:MM:SSZ`, as `iso8601` writes it, read as a date.
  private mutating func date() -> Date? {
    guard index + 22 <= bytes.count, bytes[index] == UInt8(ascii: "\""), bytes[index + 21] == UInt8(ascii: "\"") else {
      return nil
    }
    defer { index += 22 }
    return MetadataLineParser.date(UnsafeRawBufferPointer(rebasing: bytes[index + 1..<index + 21]))
  }

  /// The rest of a string that has escapes, from the byte after its opening quote.
  private mutating func escapedString(from start: Int) -> String? {
    index = start
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
  static func date(_ digits: UnsafeRawBufferPointer) -> Date? {
    UTCTimestamp.seconds(digits).map { Date(timeIntervalSince1970: TimeInterval($0)) }
  }
}

/// A few strings recently made from journal bytes, found again by their bytes.
struct RecentStrings {
  private var strings: [String] = []
  private var next = 0

  /// The remembered string whose UTF-8 is exactly `raw`.
  func find(_ raw: UnsafeRawBufferPointer) -> String? {
    guard !raw.isEmpty, let start = raw.baseAddress else { return nil }
    for string in strings where string.utf8.count == raw.count {
      let same = string.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, start, raw.count) == 0 } ?? false
      if same { return string }
    }
    return nil
  }

  /// Remembers `string`, forgetting the oldest beyond eight.
  mutating func add(_ string: String) {
    if strings.count < 8 {
      strings.append(string)
    } else {
      strings[next] = string
      next = (next + 1) % 8
    }
  }
}
