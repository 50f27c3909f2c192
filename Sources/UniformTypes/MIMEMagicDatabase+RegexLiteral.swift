extension MIMEMagicDatabase.Guard {
  /// The longest run of bytes that every match of a POSIX extended regular expression holds as
  /// they are, read conservatively: anything this does not understand ends a run or gives no
  /// answer, never a run a match could lack.
  ///
  /// A run is a sequence of printable ASCII characters, not special in an ERE, each appearing
  /// exactly once in sequence: a character followed by `*`, `?` or `{0,…}` is optional and
  /// dropped; one followed by `+` or `{n,…}` is kept and ends the run (it repeats). An escaped
  /// ERE special (`\.`, `\(`, …) is that character; any other escape (`\1`, GNU's `\w`, `\<`, …)
  /// ends the run. Brackets, groups, `.`, `^` and `$` end runs. An alternation outside groups
  /// (`a|b`: no byte is common to both), stacked quantifiers, or anything malformed gives
  /// nothing.
  static func requiredLiteral(of pattern: [UInt8]) -> [UInt8] {
    guard !hasTopLevelAlternation(pattern) else { return [] }
    var runs: [[UInt8]] = []
    var run: [UInt8] = []
    func endRun() {
      if !run.isEmpty { runs.append(run) }
      run = []
    }
    var index = 0
    while index < pattern.count {
      var literal: UInt8? = nil
      switch pattern[index] {
      case UInt8(ascii: "\\"):
        guard index + 1 < pattern.count else { return [] }
        if ereSpecials.contains(pattern[index + 1]) { literal = pattern[index + 1] }
        index += 2
      case UInt8(ascii: "["):
        guard let end = bracketEnd(pattern, from: index) else { return [] }
        index = end + 1
      case UInt8(ascii: "("):
        guard let end = groupEnd(pattern, from: index) else { return [] }
        index = end + 1
      case UInt8(ascii: "^"), UInt8(ascii: "$"):
        endRun()
        index += 1
        continue
      case UInt8(ascii: "."):
        index += 1
      case let byte where ereSpecials.contains(byte):
        // A quantifier with nothing before it, a stray brace or bar.
        return []
      case let byte:
        if (0x20...0x7E).contains(byte) { literal = byte }
        index += 1
      }
      // What follows the atom: it may be optional, or repeated.
      guard let (quantifier, next) = quantifier(pattern, at: index) else { return [] }
      index = next
      let (optional, repeated) = (quantifier == .optional, quantifier == .repeated)
      guard let literal, !optional else {
        endRun()
        continue
      }
      run.append(literal)
      if repeated { endRun() }
    }
    endRun()
    return runs.max { $0.count < $1.count } ?? []
  }

  private enum Quantifier {
    case once
    /// `*`, `?`, `{0,…}`.
    case optional
    /// `+`, `{n,…}` with n ≥ 1.
    case repeated
  }

  /// The quantifier at `index` (after an atom) and the index after it; nil when it is malformed
  /// or followed by another.
  private static func quantifier(_ pattern: [UInt8], at index: Int) -> (Quantifier, Int)? {
    guard index < pattern.count else { return (.once, index) }
    let quantifier: Quantifier
    var next = index + 1
    switch pattern[index] {
    case UInt8(ascii: "*"), UInt8(ascii: "?"): quantifier = .optional
    case UInt8(ascii: "+"): quantifier = .repeated
    case UInt8(ascii: "{"):
      guard let close = pattern[index...].firstIndex(of: UInt8(ascii: "}")) else { return nil }
      let low = pattern[(index + 1)..<close].prefix { $0 != UInt8(ascii: ",") }
      guard !low.isEmpty, low.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
      quantifier = low.allSatisfy { $0 == UInt8(ascii: "0") } ? .optional : .repeated
      next = close + 1
    default:
      return (.once, index)
    }
    if next < pattern.count, quantifiers.contains(pattern[next]) { return nil }
    return (quantifier, next)
  }

  /// The characters special in a POSIX ERE.
  static let ereSpecials: Set<UInt8> = Set(".[]()*+?{}|^$\\".utf8)
  private static let quantifiers: Set<UInt8> = Set("*+?{".utf8)

  /// Whether `pattern` has a `|` outside brackets and groups (or is malformed).
  private static func hasTopLevelAlternation(_ pattern: [UInt8]) -> Bool {
    switch walk(pattern, from: 0, depth: 0, to: UInt8(ascii: "|")) {
    case .found, .malformed: return true
    case .end: return false
    }
  }

  /// The index of the `)` that closes the group opening at `start`.
  private static func groupEnd(_ pattern: [UInt8], from start: Int) -> Int? {
    if case .found(let index) = walk(pattern, from: start + 1, depth: 1, to: UInt8(ascii: ")")) { return index }
    return nil
  }

  private enum Walk {
    case found(Int)
    case end
    case malformed
  }

  /// Walks `pattern` from `start` at group depth `depth`, skipping escapes and bracket
  /// expressions, to the first `target` (`|` or `)`) that is at depth 0 once read.
  private static func walk(_ pattern: [UInt8], from start: Int, depth: Int, to target: UInt8) -> Walk {
    var index = start
    var depth = depth
    while index < pattern.count {
      switch pattern[index] {
      case UInt8(ascii: "\\"):
        index += 2
        continue
      case UInt8(ascii: "["):
        guard let end = bracketEnd(pattern, from: index) else { return .malformed }
        index = end + 1
        continue
      case UInt8(ascii: "("): depth += 1
      case UInt8(ascii: ")"): depth -= 1
      default: break
      }
      if pattern[index] == target, depth == 0 { return .found(index) }
      index += 1
    }
    return .end
  }

  /// The index of the `]` that closes the bracket expression opening at `start`: a `]` first
  /// (after an optional `^`) is a member, and `[:…:]`, `[.….]`, `[=…=]` are skipped whole.
  private static func bracketEnd(_ pattern: [UInt8], from start: Int) -> Int? {
    var index = start + 1
    if index < pattern.count, pattern[index] == UInt8(ascii: "^") { index += 1 }
    if index < pattern.count, pattern[index] == UInt8(ascii: "]") { index += 1 }
    while index < pattern.count, pattern[index] != UInt8(ascii: "]") {
      if pattern[index] == UInt8(ascii: "["), index + 1 < pattern.count, Set(":.=".utf8).contains(pattern[index + 1]) {
        let closing = [pattern[index + 1], UInt8(ascii: "]")]
        var end = index + 2
        while end + 1 < pattern.count, pattern[end..<end + 2].elementsEqual(closing) == false { end += 1 }
        guard end + 1 < pattern.count else { return nil }
        index = end + 2
        continue
      }
      index += 1
    }
    return index < pattern.count ? index : nil
  }
}
