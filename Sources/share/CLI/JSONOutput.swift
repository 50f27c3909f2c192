import Foundation

/// `--json` output: one JSON object per line, snake_case keys, sorted for stable diffs.
/// A stable contract: fields may be added, never renamed or removed.
enum JSONOutput {
  static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  /// One line of JSON for `value`.
  static func line(_ value: some Encodable) -> String {
    guard let data = try? encoder.encode(value) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}
