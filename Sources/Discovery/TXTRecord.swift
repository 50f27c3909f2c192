/// DNS-SD TXT record data (RFC 6763 §6): parsing what the network sent, and
/// encoding what we publish. Pure; no Avahi calls.
package enum TXTRecord {
  /// Longest key we publish. RFC 6763 §6.4 recommends keys of at most 9 characters.
  package static let maximumKeyLength = 9
  /// Longest single TXT string (a DNS character-string holds at most 255 bytes).
  package static let maximumEntryLength = 255
  /// Largest TXT record we publish: RFC 6763 §6.2 asks to stay within 1300
  /// bytes so the record fits one packet with the rest of the answer.
  package static let maximumRecordLength = 1300

  /// Parses TXT strings leniently; never fails and never traps, whatever the bytes.
  ///
  /// - A string's key is the bytes before the first `=`; it is lowercased
  ///   (ASCII only; keys are case-insensitive per RFC 6763 §6.4).
  /// - A string without `=` is a key with an empty value ("").
  /// - Values are decoded as UTF-8, invalid sequences replaced by U+FFFD.
  /// - When a key repeats, the first occurrence wins (RFC 6763 §6.4).
  /// - Skipped: empty strings, strings longer than 255 bytes, strings whose key
  ///   is empty or holds bytes outside printable ASCII (0x20...0x7E).
  ///
  /// - Parameter entries: the TXT strings in wire order.
  package static func parse(_ entries: [[UInt8]]) -> [String: String] {
    var result: [String: String] = [:]
    for entry in entries {
      guard !entry.isEmpty, entry.count <= maximumEntryLength else { continue }
      let equals = entry.firstIndex(of: UInt8(ascii: "="))
      let keyBytes = entry[..<(equals ?? entry.endIndex)]
      guard !keyBytes.isEmpty, keyBytes.allSatisfy(isPrintableASCII) else { continue }
      let key = String(decoding: keyBytes.map(asciiLowercased), as: UTF8.self)
      guard result[key] == nil else { continue }
      if let equals {
        result[key] = String(decoding: entry[(equals + 1)...], as: UTF8.self)
      } else {
        result[key] = ""
      }
    }
    return result
  }

  /// Checks a key we are about to publish: 1...9 characters of printable
  /// ASCII (0x20...0x7E), no `=`.
  package static func validateKey(_ key: String) throws(DiscoveryError) {
    let bytes = Array(key.utf8)
    guard !bytes.isEmpty else {
      throw .invalidTXT(key: key, reason: "the key is empty")
    }
    guard bytes.count <= maximumKeyLength else {
      throw .invalidTXT(key: key, reason: "keys are at most \(maximumKeyLength) characters")
    }
    guard bytes.allSatisfy(isPrintableASCII) else {
      throw .invalidTXT(key: key, reason: "keys are printable ASCII only")
    }
    guard !bytes.contains(UInt8(ascii: "=")) else {
      throw .invalidTXT(key: key, reason: "keys cannot contain '='")
    }
  }

  /// Encodes key/value pairs as TXT strings `key=value`, sorted by key so the
  /// record is the same on every run. Validates every key (`validateKey`),
  /// rejects keys equal but for case (a reader lowercases them), strings over
  /// 255 bytes and records over 1300 bytes.
  package static func encode(_ pairs: [String: String]) throws(DiscoveryError) -> [[UInt8]] {
    var seen: Set<String> = []
    var entries: [[UInt8]] = []
    var total = 0
    for key in pairs.keys.sorted() {
      try validateKey(key)
      let folded = String(decoding: key.utf8.map(asciiLowercased), as: UTF8.self)
      guard seen.insert(folded).inserted else {
        throw .invalidTXT(key: key, reason: "another key differs from it only in case")
      }
      let entry = Array(key.utf8) + [UInt8(ascii: "=")] + Array((pairs[key] ?? "").utf8)
      guard entry.count <= maximumEntryLength else {
        throw .invalidTXT(key: key, reason: "key=value is longer than \(maximumEntryLength) bytes")
      }
      total += entry.count + 1
      guard total <= maximumRecordLength else {
        throw .invalidTXT(
          key: key, reason: "the TXT record would exceed \(maximumRecordLength) bytes")
      }
      entries.append(entry)
    }
    return entries
  }

  private static func isPrintableASCII(_ byte: UInt8) -> Bool {
    (0x20...0x7E).contains(byte)
  }

  private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
  }
}
