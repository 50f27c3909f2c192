/// The JSON that `ItemListReader` reads: objects, lists, strings, integers and booleans, each
/// giving nil (or false) on anything it does not read exactly as `JSONDecoder` would.
extension ItemListReader {
  /// Reads an object, handing each key to `member`, which reads the value and says whether it
  /// could; false when a member could not be read or the object is malformed.
  mutating func object(_ member: (inout ItemListReader, String) -> Bool) -> Bool {
    guard take("{") else { return false }
    if take("}") { return true }
    repeat {
      guard let key = string(), take(":"), member(&self, key) else { return false }
    } while take(",")
    return take("}")
  }

  /// Reads a list, each element with `element`; nil when one cannot be read.
  mutating func list<Element>(_ element: (inout ItemListReader) -> Element?) -> [Element]? {
    guard take("[") else { return nil }
    var elements: [Element] = []
    if take("]") { return elements }
    repeat {
      guard let next = element(&self) else { return nil }
      elements.append(next)
    } while take(",")
    return take("]") ? elements : nil
  }

  /// `key:` — the next member's key, when it is `expected`.
  mutating func key(_ expected: String) -> Bool {
    string() == expected && take(":")
  }

  /// An integer written as plain digits (`-?(0|[1-9][0-9]*)`) that fits in 64 bits.
  mutating func integer() -> Int64? {
    skipSpace()
    let negative = take(byte: UInt8(ascii: "-"))
    let first = index
    var value: Int64 = 0  // accumulated below zero, so that Int64.min fits
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
      let (next, overflow2) = times10.subtractingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
      guard !overflow, !overflow2 else { return nil }
      value = next
      index += 1
    }
    let digits = index - first
    guard digits > 0, digits == 1 || bytes[first] != UInt8(ascii: "0") else { return nil }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") { return nil }
    if negative { return value }
    return value == .min ? nil : -value
  }

  mutating func bool() -> Bool? {
    if literal("true") { return true }
    if literal("false") { return false }
    return nil
  }

  /// A string: valid UTF-8, JSON's escapes (a surrogate only in a pair), no raw control character.
  mutating func string() -> String? {
    guard take("\"") else { return nil }
    let start = index
    while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x80, bytes[index] != UInt8(ascii: "\""),
      bytes[index] != UInt8(ascii: "\\")
    {
      index += 1
    }
    guard index < bytes.count else { return nil }
    if bytes[index] == UInt8(ascii: "\"") {
      index += 1
      return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
    }
    var text = Array(bytes[start..<index])
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""): return String(validating: text, as: UTF8.self)
      case UInt8(ascii: "\\"):
        guard let scalar = escape() else { return nil }
        text += String(scalar).utf8
      case 0..<0x20: return nil
      default: text.append(byte)
      }
    }
    return nil
  }

  /// The character after a backslash.
  private mutating func escape() -> Unicode.Scalar? {
    guard index < bytes.count else { return nil }
    let byte = bytes[index]
    index += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
    case UInt8(ascii: "b"): return "\u{08}"
    case UInt8(ascii: "f"): return "\u{0C}"
    case UInt8(ascii: "n"): return "\n"
    case UInt8(ascii: "r"): return "\r"
    case UInt8(ascii: "t"): return "\t"
    case UInt8(ascii: "u"):
      guard let unit = hex4() else { return nil }
      switch unit {
      case 0xD800..<0xDC00:
        guard literal("\\u", spaced: false), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
      case 0xDC00..<0xE000: return nil
      default: return Unicode.Scalar(unit)
      }
    default: return nil
    }
  }

  private mutating func hex4() -> UInt32? {
    guard bytes.count - index >= 4 else { return nil }
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let digit = hexValue(bytes[index]) else { return nil }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  /// Takes `character` (after JSON's whitespace) if it comes next.
  mutating func take(_ character: Unicode.Scalar) -> Bool {
    skipSpace()
    return take(byte: UInt8(ascii: character))
  }

  private mutating func take(byte: UInt8) -> Bool {
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  /// Takes `text` if it comes next (after JSON's whitespace, unless `spaced` is false).
  private mutating func literal(_ text: StaticString, spaced: Bool = true) -> Bool {
    if spaced { skipSpace() }
    let expected = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    guard bytes.count - index >= expected.count,
      expected.elementsEqual(UnsafeRawBufferPointer(rebasing: bytes[index..<index + expected.count]))
    else { return false }
    index += expected.count
    return true
  }

  mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }
}
