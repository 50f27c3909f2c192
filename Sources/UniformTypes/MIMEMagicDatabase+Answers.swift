import CMagic

extension MIMEMagicDatabase {
  /// libmagic's answers from `database`, a compiled database in memory, for each of `heads`:
  /// MIME types (`MAGIC_MIME_TYPE`), or `descriptions`; nil when libmagic cannot load it. For
  /// comparing two databases answer for answer.
  package static func answers(of heads: [[UInt8]], database: [UInt8], descriptions: Bool = false) -> [String]? {
    let flags = descriptions ? MAGIC_NONE : MAGIC_MIME_TYPE
    return database.withUnsafeBytes { bytes -> [String]? in
      guard let base = bytes.baseAddress, let handle = MagicHandles.open(reading: Int(bitPattern: base), length: bytes.count)
      else { return nil }
      defer { magic_close(handle) }
      return heads.map { head in
        head.withUnsafeBytes { head in
          do throws(ContentSnifferError) {
            return try ContentSniffer.buffer(handle, head, flags: flags)
          } catch {
            return "error: \(error)"
          }
        }
      }
    }
  }
}
