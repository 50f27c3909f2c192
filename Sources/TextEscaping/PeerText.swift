/// Text that someone else wrote: a peer's device name, an item name from a sender, a receiver's
/// reasons and failure messages, a name from a discovery record.
///
/// Its only ways onto a terminal or into a log are escaped and length-capped: `description` (so
/// `"\(text)"` and `print(text)` are safe by default), `debugDescription`, `shown(limit:)` and a
/// mirror that shows the escaped form. Control characters, escape sequences and bidirectional
/// overrides are written as `\u{…}` (see `Escaping`). `Encodable` writes the value itself, cut to
/// `maximumEncodedBytes`, for `--json` and for files (a JSON encoder escapes control characters;
/// the CLI's JSON lines escape C1 and format characters too); an encoder whose `userInfo` sets
/// `verbatim` gets the value uncut (Wire's messages, whose decoder bounds what a peer sends).
/// A string literal is a `PeerText` too: text written in the source is nobody else's, and a
/// message built here (a Hello, a reason) is a peer's text on the other side.
///
/// The raw value is reachable through one accessor only, `unescaped`, for what is not display:
/// comparing, sanitising a name for the Inbox, storing metadata, the environment of a hook.
/// Every use of it is a place to review (`grep -rn '\.unescaped' Sources`).
package struct PeerText: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable, ExpressibleByStringLiteral
{
  /// Longest `description`, in Unicode scalars of escaped output (then `…`): a device name
  /// (at most 256 bytes on the wire) or a reason fits whole; 15 MiB does not.
  package static let displayLength = 512

  /// Longest value `encode(to:)` writes, in UTF-8 bytes (then `…`): an item name (at most 4096
  /// bytes on the wire) fits whole.
  package static let maximumEncodedBytes = 4096

  /// Set to `true` in an encoder's `userInfo` to make `encode(to:)` write the value whole: a
  /// protocol message carries the text exactly as it was given, not a shortened copy.
  package static let verbatim = CodingUserInfoKey(rawValue: "share.PeerText.verbatim")!

  private let value: String

  /// Wraps text someone else wrote. Wrapping costs nothing and checks nothing: the text is made
  /// safe where it is shown.
  package init(_ value: String) {
    self.value = value
  }

  /// Text written in the source.
  package init(stringLiteral value: String) {
    self.value = value
  }

  /// The text exactly as it was written, for comparisons, Inbox name sanitising, metadata and
  /// hook variables; never for a terminal or a log (use `description` or `shown(limit:)`).
  package var unescaped: String { value }

  /// The text escaped and cut to `displayLength`.
  package var description: String { shown(limit: PeerText.displayLength) }

  /// The text escaped and quoted, cut to `displayLength`.
  package var debugDescription: String { "\"" + shown(limit: PeerText.displayLength) + "\"" }

  /// The text escaped and cut to `limit` Unicode scalars of output (then `…`).
  package func shown(limit: Int) -> String {
    Escaping.escaped(value, maximumLength: limit)
  }

  /// The first `maxLength` characters, still someone else's text (`abcdef012345` of an ID).
  package func prefix(_ maxLength: Int) -> PeerText {
    PeerText(String(value.prefix(maxLength)))
  }

  /// Whether there is no text.
  package var isEmpty: Bool { value.isEmpty }

  /// A `dump` or a debugger shows the escaped form, never the raw one.
  package var customMirror: Mirror { Mirror(self, children: ["shown": description], displayStyle: .struct) }

  package init(from decoder: any Decoder) throws {
    value = try decoder.singleValueContainer().decode(String.self)
  }

  /// Writes the value, cut to `maximumEncodedBytes` on a character boundary (then `…`), or
  /// whole when the encoder's `userInfo` sets `verbatim`.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if encoder.userInfo[PeerText.verbatim] as? Bool == true {
      try container.encode(value)
    } else {
      try container.encode(Escaping.cut(value, toBytes: PeerText.maximumEncodedBytes))
    }
  }
}
