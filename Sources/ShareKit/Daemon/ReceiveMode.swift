import Foundation

/// Who may send to this receiver, as AirDrop's Receiving Off / Contacts Only / Everyone.
package enum ReceiveMode: String, Codable, Sendable, CaseIterable {
  /// Not advertised; every connection is refused.
  case off
  /// Only trusted peers (contacts); others are refused without asking anyone.
  case contacts
  /// Anyone may ask; an ask from a stranger waits for the person to accept it.
  case everyone
}

/// A mode and, for `everyone`, when it falls back to `contacts` (nil: never).
package struct ModeSetting: Codable, Sendable, Equatable {
  package var mode: ReceiveMode
  package var until: Date?

  package init(mode: ReceiveMode, until: Date? = nil) {
    self.mode = mode
    self.until = mode == .everyone ? until : nil
  }

  /// The mode in force at `now`: `everyone` past its time is `contacts`.
  package func effective(at now: Date = Date()) -> ReceiveMode {
    if mode == .everyone, let until, until <= now { return .contacts }
    return mode
  }
}

/// Parses durations such as `90s`, `10m`, `2h`, `1h30m`, `1d`; a bare number counts in
/// `bareUnit` seconds (minutes unless said otherwise). Nil for anything else, or a negative value.
package func parseDuration(_ text: String, bareUnit: TimeInterval = 60) -> TimeInterval? {
  if let number = Double(text) { return number >= 0 && number.isFinite ? number * bareUnit : nil }
  var total: TimeInterval = 0
  var number = ""
  for character in text {
    if character.isASCII && (character.isNumber || character == ".") {
      number.append(character)
      continue
    }
    guard let value = Double(number) else { return nil }
    switch character {
    case "s": total += value
    case "m": total += value * 60
    case "h": total += value * 3600
    case "d": total += value * 86400
    default: return nil
    }
    number = ""
  }
  guard number.isEmpty, !text.isEmpty, total.isFinite else { return nil }
  return total
}
