/// `application/x-www-form-urlencoded` query strings, strictly: every parameter is
/// `name[=value]` with valid percent-escapes that decode to UTF-8, "+" means a space, and no
/// name appears twice (two values for one name could be read two ways).
package enum QueryString {
  /// The most parameters one query may carry.
  package static let maxParameters = 32

  /// The parameters of `query` (the text after "?"); empty for an empty query.
  package static func parse(_ query: Substring) throws(HTTPError) -> [String: String] {
    var result: [String: String] = [:]
    guard !query.isEmpty else { return result }
    let pairs = query.split(separator: "&", omittingEmptySubsequences: false)
    guard pairs.count <= maxParameters else { throw .malformedQuery("too many parameters") }
    for pair in pairs {
      guard !pair.isEmpty else { throw .malformedQuery("empty parameter") }
      let name: Substring
      let value: Substring
      if let equals = pair.firstIndex(of: "=") {
        name = pair[..<equals]
        value = pair[pair.index(after: equals)...]
      } else {
        name = pair
        value = ""
      }
      let key = try decode(name)
      guard !key.isEmpty else { throw .malformedQuery("empty name") }
      guard result[key] == nil else { throw .malformedQuery("repeated parameter") }
      result[key] = try decode(value)
    }
    return result
  }

  /// Percent-decodes one component ("+" as space); the result must be valid UTF-8.
  package static func decode(_ text: Substring) throws(HTTPError) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      switch byte {
      case ASCII.percent:
        guard let high = iterator.next().flatMap(ASCII.hexValue),
          let low = iterator.next().flatMap(ASCII.hexValue)
        else { throw .malformedQuery("bad percent-escape") }
        bytes.append(high << 4 | low)
      case UInt8(ascii: "+"):
        bytes.append(ASCII.space)
      default:
        bytes.append(byte)
      }
    }
    guard let decoded = String(validating: bytes, as: UTF8.self) else {
      throw .malformedQuery("not UTF-8")
    }
    return decoded
  }

  /// Percent-encodes everything but unreserved characters.
  package static func encode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      if ASCII.isUnreserved(byte) {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        let digits = Array("0123456789ABCDEF".utf8)
        out += "%"
        out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
        out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0x0f)]))
      }
    }
    return out
  }

  /// `name=value&...` with both sides encoded, in the given order.
  package static func build(_ parameters: [(String, String)]) -> String {
    parameters.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
  }
}
