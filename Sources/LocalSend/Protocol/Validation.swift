import Foundation

/// A field from the network that breaks the protocol or a limit. `field` is a JSON path such as
/// `files["a"].fileName`; `description` is safe to send back in a 400 answer (it never quotes
/// the offending value).
package struct InvalidField: Error, Equatable, Sendable, CustomStringConvertible {
  package let field: String
  package let reason: String

  package init(_ field: String, _ reason: String) {
    self.field = field
    self.reason = reason
  }

  package var description: String { "\(field): \(reason)" }
}

/// The checks every message from the network passes before it is used.
package enum Validation {
  /// Decodes JSON into `type`, refusing bodies over `limit`; the error names what is wrong.
  package static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], limit: Int)
    throws(InvalidField) -> T
  {
    guard bytes.count <= limit else { throw InvalidField("body", "longer than \(limit) bytes") }
    do {
      return try JSONDecoder().decode(type, from: Data(bytes))
    } catch let DecodingError.keyNotFound(key, context) {
      throw InvalidField(path(context.codingPath + [key]), "missing")
    } catch let DecodingError.typeMismatch(_, context) {
      throw InvalidField(path(context.codingPath), "wrong type")
    } catch let DecodingError.valueNotFound(_, context) {
      throw InvalidField(path(context.codingPath), "null")
    } catch let DecodingError.dataCorrupted(context) {
      let where_ = context.codingPath.isEmpty ? "body" : path(context.codingPath)
      throw InvalidField(where_, context.codingPath.isEmpty ? "not JSON" : "invalid value")
    } catch {
      throw InvalidField("body", "not JSON")
    }
  }

  /// A device description (register body, announcement, prepare-upload `info`).
  package static func check(_ device: LocalSendDevice, at field: String, limits: LocalSendLimits)
    throws(InvalidField)
  {
    try text(device.alias, "\(field).alias", max: limits.maxAliasBytes, allowEmpty: true)
    try version(device.version, "\(field).version")
    if let model = device.deviceModel {
      try text(model, "\(field).deviceModel", max: limits.maxAliasBytes, allowEmpty: true)
    }
    try text(device.fingerprint, "\(field).fingerprint", max: limits.maxFingerprintBytes, allowEmpty: true)
    guard (1...65535).contains(device.port) else { throw InvalidField("\(field).port", "not a port") }
  }

  /// A prepare-upload request: the sender and every offered file.
  package static func check(_ request: PrepareUploadRequest, limits: LocalSendLimits)
    throws(InvalidField)
  {
    try check(request.info, at: "info", limits: limits)
    guard !request.files.isEmpty else { throw InvalidField("files", "empty") }
    guard request.files.count <= limits.maxFiles else {
      throw InvalidField("files", "more than \(limits.maxFiles)")
    }
    for (key, file) in request.files {
      try check(file, key: key, limits: limits)
    }
  }

  /// One offered file, stored under `key` in `files`.
  package static func check(_ file: FileOffer, key: String, limits: LocalSendLimits)
    throws(InvalidField)
  {
    let field = "files[\(label(key))]"
    try identifier(key, "\(field) key", max: limits.maxIdBytes)
    guard file.id == key else { throw InvalidField("\(field).id", "differs from its key") }
    try fileName(file.fileName, "\(field).fileName", limits: limits)
    guard file.size >= 0, file.size <= limits.maxFileSize else {
      throw InvalidField("\(field).size", "out of range")
    }
    try text(file.fileType, "\(field).fileType", max: limits.maxFileTypeBytes, allowEmpty: true)
    if let sha256 = file.sha256, !isSHA256(sha256) {
      throw InvalidField("\(field).sha256", "not 64 hex digits")
    }
    if let preview = file.preview, preview.utf8.count > limits.maxPreviewBytes {
      throw InvalidField("\(field).preview", "longer than \(limits.maxPreviewBytes) bytes")
    }
    if let metadata = file.metadata {
      for (name, value) in [("modified", metadata.modified), ("accessed", metadata.accessed)] {
        if let value { try timestamp(value, "\(field).metadata.\(name)") }
      }
    }
  }

  /// A file name or relative path: not empty, no control characters, no absolute path, no
  /// empty, "." or ".." component, within the length limits.
  package static func fileName(_ name: String, _ field: String, limits: LocalSendLimits)
    throws(InvalidField)
  {
    try text(name, field, max: limits.maxFileNameBytes, allowEmpty: false)
    guard !name.contains("\\") else { throw InvalidField(field, "contains a backslash") }
    for component in name.split(separator: "/", omittingEmptySubsequences: false) {
      guard !component.isEmpty, component != ".", component != ".." else {
        throw InvalidField(field, "not a relative path")
      }
      guard component.utf8.count <= limits.maxFileNameComponentBytes else {
        throw InvalidField(field, "a component is longer than \(limits.maxFileNameComponentBytes) bytes")
      }
    }
  }

  /// An ID, session ID or token: 1...max bytes, printable, no spaces at either end.
  package static func identifier(_ value: String, _ field: String, max: Int) throws(InvalidField) {
    try text(value, field, max: max, allowEmpty: false)
  }

  /// Text within `max` UTF-8 bytes, free of control characters (C0, DEL, C1) and of the
  /// line and paragraph separators.
  package static func text(_ value: String, _ field: String, max: Int, allowEmpty: Bool)
    throws(InvalidField)
  {
    guard allowEmpty || !value.isEmpty else { throw InvalidField(field, "empty") }
    guard value.utf8.count <= max else { throw InvalidField(field, "longer than \(max) bytes") }
    for scalar in value.unicodeScalars {
      switch scalar.value {
      case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
        throw InvalidField(field, "contains a control character")
      default:
        continue
      }
    }
  }

  /// "major.minor", digits only, at most 16 bytes.
  static func version(_ value: String, _ field: String) throws(InvalidField) {
    let parts = value.split(separator: ".", omittingEmptySubsequences: false)
    guard value.utf8.count <= 16, parts.count == 2,
      parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(ASCII.isDigit) })
    else { throw InvalidField(field, "not major.minor") }
  }

  /// ISO 8601 date-time text: at most 64 bytes of digits, letters and `-:.+`.
  static func timestamp(_ value: String, _ field: String) throws(InvalidField) {
    guard !value.isEmpty, value.utf8.count <= 64,
      value.utf8.allSatisfy({ ASCII.isDigit($0) || ASCII.isAlpha($0) || "-:.+".utf8.contains($0) })
    else { throw InvalidField(field, "not an ISO 8601 time") }
  }

  /// A file key as it may appear in an error: itself when short printable ASCII, else "…".
  static func label(_ key: String) -> String {
    key.utf8.count <= 64 && key.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) ? key : "…"
  }

  static func isSHA256(_ value: String) -> Bool {
    value.utf8.count == 64 && value.utf8.allSatisfy { ASCII.hexValue($0) != nil }
  }

  static func path(_ keys: [any CodingKey]) -> String {
    var out = ""
    for key in keys {
      if let index = key.intValue {
        out += "[\(index)]"
      } else if out.hasSuffix("files") {
        out += "[\(label(key.stringValue))]"
      } else {
        out += out.isEmpty ? key.stringValue : ".\(key.stringValue)"
      }
    }
    return out.isEmpty ? "body" : out
  }
}
