import Foundation
import System

/// The JSON conventions of share's own files and control messages: snake_case keys, ISO 8601
/// dates, sorted keys (stable diffs), pretty-printed where a person may read the file.
package enum JSONCoding {
  /// An encoder; `pretty` for files people open (settings, contacts), compact for the wire.
  package static func encoder(pretty: Bool = false) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }

  /// The matching decoder.
  package static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .custom(date)
    return decoder
  }

  /// A date as the `.iso8601` strategy reads it. What the encoder writes (UTC, whole seconds) is
  /// read by `UTCTimestamp`, so reading the trust store at start does not load ICU's time-zone
  /// data; any other text goes through Foundation's parser as before.
  static func date(from decoder: any Decoder) throws -> Date {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    if let seconds = UTCTimestamp.seconds(text) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
    guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected date string to be ISO8601-formatted.")
    }
    return date
  }
}
