import LocalSend

/// The PIN a LocalSend sender must give with its offer (`--localsend-pin`, `localsend_pin` in
/// the settings; protocol 2.1 `?pin=` on prepare-upload). A secret: its `description` hides it,
/// so a log line or status that interpolates it by mistake shows no digit of it. Pure.
package struct LocalSendPin: Sendable, Equatable, CustomStringConvertible {
  /// The longest PIN the server compares (a longer `?pin=` is refused unread).
  package static let maxBytes = LocalSendLimits.default.maxPinBytes

  /// What is wrong with a proposed PIN; the sentence never repeats the PIN.
  package enum Problem: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLong(bytes: Int)
    /// It holds a space, a control or format character, or an unassigned code point.
    case notPrintable

    package var description: String {
      switch self {
      case .empty: return "is empty"
      case .tooLong(let bytes): return "is \(bytes) bytes long; at most \(LocalSendPin.maxBytes) are allowed"
      case .notPrintable: return "may hold only letters, digits, punctuation and symbols (no spaces or control characters)"
      }
    }
  }

  /// The PIN itself, for the server's comparison only.
  package let value: String

  /// Checks `text`: 1 to `maxBytes` bytes of UTF-8, every character printable and not a space
  /// (a space or an invisible character is easily typed wrong on a phone, or lost in a JSON file).
  package init(_ text: String) throws(Problem) {
    guard !text.isEmpty else { throw .empty }
    guard text.utf8.count <= Self.maxBytes else { throw .tooLong(bytes: text.utf8.count) }
    guard text.unicodeScalars.allSatisfy(Self.isPrintable) else { throw .notPrintable }
    value = text
  }

  package var description: String { "(PIN hidden)" }

  private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .surrogate, .privateUse, .unassigned,
      .spaceSeparator, .lineSeparator, .paragraphSeparator:
      return false
    default:
      return !scalar.properties.isWhitespace
    }
  }
}
