import Foundation
import ShareKit

/// `--json` output: one JSON object per line, snake_case keys, sorted for stable diffs.
/// A stable contract: fields may be added, never renamed or removed.
enum JSONOutput {
  static let encoder = JSONCoding.encoder()

  /// One line of JSON for `value`. Beyond what JSONEncoder escapes (below U+0020), C1 controls
  /// and invisible format characters (bidi overrides) are written as `\uXXXX`, so a name from the
  /// network cannot reach a terminal raw even through JSON; the value decodes the same.
  static func line(_ value: some Encodable) -> String {
    guard let data = try? encoder.encode(value) else { return "{}" }
    // Printable ASCII (JSONEncoder already escaped what is below U+0020) needs nothing more;
    // checking the bytes first keeps `share inbox list --json` fast for many items.
    if data.allSatisfy({ $0 < 0x7F }) { return String(decoding: data, as: UTF8.self) }
    var out = String.UnicodeScalarView()
    for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
      if JSONString.outputEscapes(scalar) {
        out.append(contentsOf: String(format: "\\u%04x", scalar.value).unicodeScalars)
      } else {
        out.append(scalar)
      }
    }
    return String(out)
  }
}
