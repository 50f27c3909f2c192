import Foundation

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
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }
}
