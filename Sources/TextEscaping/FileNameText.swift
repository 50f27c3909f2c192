/// File names and paths as Strings without losing a byte. A Linux name is bytes, UTF-8 as a
/// rule but not always (an old archive's `caf\xE9.txt` in Latin-1); `String(cString:)` repairs
/// what is not UTF-8 into U+FFFD, after which the file cannot be opened again (review 27: such a
/// file could not be sent, "No such file or directory"). Here each byte of a sequence that is
/// not UTF-8 becomes one scalar of U+10FF80–U+10FFFF (the end of plane 16's private use area),
/// as Python's `surrogateescape` does with lone surrogates (which a Swift String cannot hold),
/// and `bytes(of:)` gives the name's bytes back. A valid name holding one of those scalars
/// itself is written byte by byte the same way, so every name makes the round trip exactly.
///
/// Such a String is for opening the file again (System's calls take paths through `bytes(of:)`)
/// and for messages (`Escaping` shows a raw byte as `\xE9`); what goes to a peer is `repaired`.
package enum FileNameText {
  /// The scalar for raw byte 0x80 is `base + 0x80`; bytes below 0x80 are always valid UTF-8.
  private static let base: UInt32 = 0x10_FF00

  /// Whether `scalar` stands for one raw byte of a name that is not UTF-8.
  package static func isRawByte(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= base + 0x80 }

  /// The raw byte `scalar` stands for, or nil when it is an ordinary scalar.
  package static func rawByte(_ scalar: Unicode.Scalar) -> UInt8? {
    isRawByte(scalar) ? UInt8(scalar.value - base) : nil
  }

  /// The scalar that stands for `byte` (0x80–0xFF).
  package static func scalar(forRawByte byte: UInt8) -> Unicode.Scalar {
    Unicode.Scalar(base + UInt32(max(byte, 0x80)))!
  }

  /// The name or path `bytes` as a String that `bytes(of:)` turns back into exactly them.
  package static func decoding(_ bytes: some Collection<UInt8>) -> String {
    // Valid UTF-8 without a scalar of the raw range (every name but a few): the plain String.
    if let plain = String(validating: bytes, as: UTF8.self), !holdsRawBytes(plain) {
      return plain
    }
    var scalars = String.UnicodeScalarView()
    var parser = Unicode.UTF8.ForwardParser()
    var input = bytes.makeIterator()
    var raw = bytes.makeIterator()  // walks behind `input`, to copy the bytes of a bad sequence
    while true {
      switch parser.parseScalar(from: &input) {
      case .valid(let encoded):
        let scalar = Unicode.UTF8.decode(encoded)
        if isRawByte(scalar) {
          for byte in encoded { scalars.append(Self.scalar(forRawByte: byte)) }
        } else {
          scalars.append(scalar)
        }
        for _ in 0..<encoded.count { _ = raw.next() }
      case .error(let length):
        for _ in 0..<length { scalars.append(scalar(forRawByte: raw.next()!)) }
      case .emptyInput:
        return String(scalars)
      }
    }
  }

  /// The bytes `text` stands for: its UTF-8, with each raw-byte scalar its byte.
  package static func bytes(of text: String) -> [UInt8] {
    guard holdsRawBytes(text) else { return Array(text.utf8) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      if let byte = rawByte(scalar) { bytes.append(byte) } else { bytes.append(contentsOf: String(scalar).utf8) }
    }
    return bytes
  }

  /// Calls `body` with `text`'s bytes (`bytes(of:)`) as a NUL-terminated C string: the path
  /// for a system call.
  package static func withCString<Result>(_ text: String, _ body: (UnsafePointer<CChar>) -> Result) -> Result {
    guard holdsRawBytes(text) else { return text.withCString(body) }
    let cString = bytes(of: text).map { CChar(bitPattern: $0) } + [0]
    return cString.withUnsafeBufferPointer { body($0.baseAddress!) }
  }

  /// `text` with each raw byte as U+FFFD: the name as UTF-8 text, for a peer (which stores
  /// names as text) or wherever it is kept rather than opened.
  package static func repaired(_ text: String) -> String {
    guard holdsRawBytes(text) else { return text }
    return String(decoding: bytes(of: text), as: UTF8.self)
  }

  /// Whether `text` holds a raw byte: the name it stands for is not UTF-8.
  package static func holdsRawBytes(_ text: String) -> Bool {
    // Every raw-byte scalar is F4 8F BE/BF xx in UTF-8: a byte scan rules most names out.
    text.utf8.contains(0xF4) && text.unicodeScalars.contains(where: isRawByte)
  }
}
