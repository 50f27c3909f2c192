import COpenSSL

/// One entry of OpenSSL's thread-local error queue, copied out of C memory.
struct OpenSSLErrorEntry: Sendable {
  /// The packed error code (`ERR_GET_LIB` / `ERR_GET_REASON` decode it).
  let code: UInt
  /// The library number, e.g. `ERR_LIB_SSL`.
  let library: Int32
  /// The reason number within the library, e.g. `SSL_R_WRONG_VERSION_NUMBER`.
  let reason: Int32
  /// The standard one-line form, e.g. `error:0A00010B:SSL routines::wrong version number`.
  let text: String
  /// Where OpenSSL raised it and any extra data it attached.
  let location: String
}

/// Reads OpenSSL's per-thread error queue.
///
/// OpenSSL keeps errors in thread-local storage, so these functions must run on the thread that
/// made the failing call, before that thread makes another OpenSSL call.
enum OpenSSLErrorQueue {
  /// Empties the calling thread's error queue (`ERR_clear_error`); call before each OpenSSL call
  /// whose failure will be inspected, so stale entries are not blamed on it.
  static func clear() {
    ERR_clear_error()
  }

  /// Drains the calling thread's error queue with `ERR_get_error_all`, oldest first.
  static func drain() -> [OpenSSLErrorEntry] {
    var entries: [OpenSSLErrorEntry] = []
    while true {
      var file: UnsafePointer<CChar>? = nil
      var line: Int32 = 0
      var function: UnsafePointer<CChar>? = nil
      var data: UnsafePointer<CChar>? = nil
      var flags: Int32 = 0
      let code = ERR_get_error_all(&file, &line, &function, &data, &flags)
      if code == 0 { break }
      var buffer = [CChar](repeating: 0, count: 256)
      ERR_error_string_n(code, &buffer, buffer.count)
      let text = String(
        decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      var location = ""
      if let function, function.pointee != 0 { location += String(cString: function) }
      if let file {
        location += (location.isEmpty ? "" : " ") + "(\(String(cString: file)):\(line))"
      }
      // ERR_TXT_STRING marks `data` as text; anything else is not printable.
      if let data, flags & ERR_TXT_STRING != 0, data.pointee != 0 {
        location += (location.isEmpty ? "" : " ") + "[\(String(cString: data))]"
      }
      entries.append(
        OpenSSLErrorEntry(
          code: code, library: shim_ERR_GET_LIB(code), reason: shim_ERR_GET_REASON(code),
          text: text, location: location))
    }
    return entries
  }

  /// Drains the queue and formats it as one detail string, prefixed by `operation`.
  static func drainDetail(_ operation: String) -> String {
    describe(operation, drain())
  }

  /// Formats drained entries as `operation: entry; entry`.
  static func describe(_ operation: String, _ entries: [OpenSSLErrorEntry]) -> String {
    if entries.isEmpty { return "\(operation): no OpenSSL error recorded" }
    let parts = entries.map { $0.location.isEmpty ? $0.text : "\($0.text) \($0.location)" }
    return "\(operation): " + parts.joined(separator: "; ")
  }
}
