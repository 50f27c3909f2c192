import Discovery

/// Fuzzes the DNS-SD TXT record parser (`TXTRecord.parse`): what any host on the link can put in
/// a record that `share peers` and `share send` read.
///
/// The input is TXT RDATA as it travels in a DNS answer: strings, each a length byte and that
/// many bytes (the last one cut short if the input ends).
///
/// Properties:
/// - every key is 1...255 bytes of printable ASCII without `=` or upper-case letters;
/// - each key's value is that of the first string with that key (case-insensitively), decoded as UTF-8;
/// - a parsed record that `encode` accepts parses back to itself; `encode` refuses only for a
///   stated reason (key form, a string over 255 bytes, a record over 1300 bytes).
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzTXTRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let strings = txtStrings(bytes(data, size))
  let parsed = TXTRecord.parse(strings)
  for (key, value) in parsed {
    let keyBytes = Array(key.utf8)
    require(!keyBytes.isEmpty && keyBytes.count <= 255, "key of \(keyBytes.count) bytes")
    require(keyBytes.allSatisfy { (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "=") }, "key \(key.debugDescription)")
    require(!keyBytes.contains { (0x41...0x5A).contains($0) }, "key not lower-cased: \(key.debugDescription)")
    let first = strings.first { string in
      guard !string.isEmpty, string.count <= 255 else { return false }
      let raw = string.prefix { $0 != UInt8(ascii: "=") }
      return raw.count == keyBytes.count && zip(raw, keyBytes).allSatisfy { lower($0) == $1 }
    }
    require(first != nil, "key \(key.debugDescription) is in no string")
    if let first {
      let rest = first.drop { $0 != UInt8(ascii: "=") }.dropFirst()
      require(value == String(decoding: rest, as: UTF8.self), "key \(key.debugDescription) has not its first value")
    }
  }
  let encodable = parsed.filter { key, _ in (try? TXTRecord.validateKey(key)) != nil }
  let sizes = encodable.map { $0.key.utf8.count + 1 + $0.value.utf8.count }
  do {
    let encoded = try TXTRecord.encode(encodable)
    require(TXTRecord.parse(encoded) == encodable, "encode → parse changed the record")
    require(encoded.allSatisfy { $0.count <= 255 }, "encoded a string over 255 bytes")
  } catch {
    require(
      sizes.contains { $0 > 255 } || sizes.reduce(0) { $0 + $1 + 1 } > TXTRecord.maximumRecordLength,
      "encode refused a record that fits: \(error)")
  }
  return 0
}

/// TXT RDATA split into its strings.
private func txtStrings(_ rdata: [UInt8]) -> [[UInt8]] {
  var strings: [[UInt8]] = []
  var index = 0
  while index < rdata.count {
    let length = Int(rdata[index])
    let end = min(index + 1 + length, rdata.count)
    strings.append(Array(rdata[(index + 1)..<end]))
    index = end
  }
  return strings
}

private func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
