import CMagic

extension MIMEMagicDatabase {
  /// libmagic's MIME-type answers (`MAGIC_MIME_TYPE`) from `database`, a compiled database in
  /// memory, for each of `heads`; nil when libmagic cannot load it. For comparing two databases
  /// answer for answer.
  package static func mimeTypes(of heads: [[UInt8]], database: [UInt8]) -> [String]? {
    guard let handle = magic_open(MAGIC_MIME_TYPE) else { return nil }
    defer { magic_close(handle) }
    return database.withUnsafeBytes { bytes -> [String]? in
      var buffers: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(mutating: bytes.baseAddress)]
      var sizes = [bytes.count]
      guard magic_load_buffers(handle, &buffers, &sizes, 1) == 0 else { return nil }
      return heads.map { head in
        head.withUnsafeBytes { head in
          var empty: UInt8 = 0
          let answer = head.baseAddress.map { magic_buffer(handle, $0, head.count) } ?? magic_buffer(handle, &empty, 0)
          return answer.map { String(cString: $0) } ?? "error: \(String(cString: magic_error(handle)))"
        }
      }
    }
  }
}
