import CMagic

extension MIMEMagicDatabase {
  /// libmagic's MIME-type answers (`MAGIC_MIME_TYPE`) from `database`, a compiled database in
  /// memory, for each of `heads`; nil when libmagic cannot load it. For comparing two databases
  /// answer for answer.
  package static func mimeTypes(of heads: [[UInt8]], database: [UInt8]) -> [String]? {
    database.withUnsafeBytes { bytes -> [String]? in
      guard let base = bytes.baseAddress, let handle = MagicHandles.open(reading: Int(bitPattern: base), length: bytes.count)
      else { return nil }
      defer { magic_close(handle) }
      return heads.map { head in
        head.withUnsafeBytes { head in
          do throws(ContentSnifferError) {
            return try ContentSniffer.buffer(handle, head, flags: MAGIC_MIME_TYPE)
          } catch {
            return "error: \(error)"
          }
        }
      }
    }
  }
}
